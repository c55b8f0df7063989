/**
 * A model that never stops: the output cap (`num_predict`, sent on every request and enforced on the
 * stream), the per-turn deadline and the run's budget each cut it, as typed errors the core turns into a
 * digest or an apology. Against the Ollama test server, through the official client.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ModelError } from "../../src/core/model.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { ask, routesFrom, singleRoute, testClient } from "./fixtures.ts";

const MODEL = "qwen2.5:7b";
const servers: OllamaTestServer[] = [];
async function server() {
  const started = await startOllamaServer({ models: { [MODEL]: {} } });
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error("expected the request to fail");
}

describe("runaway model replies", () => {
  it("sends num_predict on every request: the route's own, else the client default of 2048", async () => {
    const ollama = await server();
    const route = { endpoint: "gpu0", model: MODEL };
    const { client } = testClient(
      routesFrom({
        endpoints: [{ name: "gpu0", url: ollama.url }],
        routes: { interactive: route, briefing: { ...route, num_predict: 512 }, background: route },
      }),
    );
    await client.chat(ask("interactive"));
    await client.chat(ask("briefing"));
    await client.warm("background");
    expect(ollama.chatRequests().map((body) => body.options?.num_predict)).toEqual([2048, 512, 2048]);
  });

  it("keeps what a server honouring num_predict sends: the reply is cut with done_reason length, not an error", async () => {
    const ollama = await server();
    ollama.script(MODEL, { content: Array.from({ length: 100 }, (_, index) => `word${index}`).join(" ") });
    const { client } = testClient(singleRoute(ollama.url), { numPredict: 16 });
    const result = await client.chat(ask("briefing"));
    expect(result.content.split(" ")).toHaveLength(16);
  });

  it("cuts an endless stream at the output cap (64 tokens here) and says so", async () => {
    const ollama = await server();
    ollama.script(MODEL, { endless: { token: "la " } });
    const { client } = testClient(singleRoute(ollama.url), { numPredict: 64 });
    const error = await failure(client.chat(ask("briefing")));
    expect(error.code).toBe("OUTPUT_CAPPED");
    expect(error.message).toMatch(/went past the output cap of 64 tokens \(97 chunks/);
    // Not retried: the next attempt would run away the same way.
    expect(ollama.chatRequests()).toHaveLength(1);
    await expect.poll(() => ollama.events.some((event) => event.type === "disconnected")).toBe(true);
  });

  it("cuts a steady stream at the turn deadline, however steadily it streams", async () => {
    const ollama = await server();
    ollama.script(MODEL, { endless: { token: "la ", everyMs: 10 } });
    const { client } = testClient(singleRoute(ollama.url), { numPredict: 1_000_000, turnTimeoutMs: 250 });
    const error = await failure(client.chat(ask("briefing")));
    expect(error.code).toBe("DEADLINE_EXCEEDED");
    expect(error.message).toMatch(
      /still answering at the turn deadline: no answer within the 250 ms turn deadline/,
    );
    expect(ollama.chatRequests()).toHaveLength(1);
  });

  it("stops a request when the run's budget (timeoutMs) runs out, queue wait included", async () => {
    const ollama = await server();
    ollama.script(MODEL, { stallMs: 10_000 });
    const { client } = testClient(singleRoute(ollama.url));
    const error = await failure(client.chat({ ...ask("briefing"), timeoutMs: 150 }));
    expect(error.code).toBe("DEADLINE_EXCEEDED");
    expect(error.message).toBe(
      "the briefing request ran out of the run's time (150 ms left when it was made)",
    );
  });
});
