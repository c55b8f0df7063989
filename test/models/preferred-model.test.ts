import { afterEach, describe, expect, it } from "vitest";
import { withPreferredModel } from "../../src/core/model.ts";
import { type OllamaTestServer, refusedUrl, startOllamaServer } from "../servers/ollama-server.ts";
import { ask, routesFrom, singleRoute, testClient } from "./fixtures.ts";

const servers: OllamaTestServer[] = [];
async function server(models: Record<string, object>) {
  const started = await startOllamaServer({ models });
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

const MODELS = {
  "qwen2.5:7b": {},
  "qwen2.5:14b": { parameterSize: "14.8B" },
  "llama3.2:3b": { parameterSize: "3.2B" },
};

describe("a per-request model", () => {
  it("replaces the route's model on the route's endpoint, with the route's num_ctx", async () => {
    const gpu0 = await server(MODELS);
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", num_ctx: 16384 };
    const { client, events } = testClient(
      routesFrom({
        endpoints: [{ name: "gpu0", url: gpu0.url }],
        routes: { interactive: route, briefing: route, background: route },
      }),
    );

    const result = await client.chat({ ...ask("briefing", "morning"), model: "qwen2.5:14b" });

    expect([result.endpoint, result.model]).toEqual(["gpu0", "qwen2.5:14b"]);
    expect(gpu0.chatRequests().map((body) => body.model)).toEqual(["qwen2.5:14b"]);
    expect(gpu0.chatRequests()[0]?.options?.num_ctx).toBe(16384);
    expect(events).toContainEqual({
      type: "finished",
      role: "briefing",
      endpoint: "gpu0",
      model: "qwen2.5:14b",
    });
  });

  it("follows the route's fallback with the requested model", async () => {
    const down = await refusedUrl();
    const gpu1 = await server(MODELS);
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", fallback: "gpu1" };
    const { client, events } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: down },
          { name: "gpu1", url: gpu1.url },
        ],
        routes: { interactive: route, briefing: route, background: route },
      }),
    );

    const result = await client.chat({ ...ask("interactive"), model: "qwen2.5:14b" });

    expect([result.endpoint, result.model]).toEqual(["gpu1", "qwen2.5:14b"]);
    expect(gpu1.chatRequests().map((body) => body.model)).toEqual(["qwen2.5:14b"]);
    expect(events).toContainEqual({
      type: "fallback",
      role: "interactive",
      from: "gpu0",
      to: "gpu1",
      model: "qwen2.5:14b",
    });
  });

  it("checks agentic capability on the requested model, not the route's", async () => {
    const gpu0 = await server(MODELS);
    const { client } = testClient(singleRoute(gpu0.url));

    expect((await client.canRunAgentic("briefing")).ok).toBe(true);
    const small = await client.canRunAgentic("briefing", "llama3.2:3b");
    expect(small).toMatchObject({ ok: false, model: "llama3.2:3b", endpoint: "gpu0" });
    expect(small.reason).toMatch(/3\.2B parameters/);
  });
});

describe("withPreferredModel", () => {
  it("pins chats and capability checks to the preferred model", async () => {
    const gpu0 = await server(MODELS);
    const { client } = testClient(singleRoute(gpu0.url));
    const preferred = withPreferredModel(client, "llama3.2:3b");

    const result = await preferred.chat(ask("interactive"));

    expect(result.model).toBe("llama3.2:3b");
    expect(gpu0.chatRequests().map((body) => body.model)).toEqual(["llama3.2:3b"]);
    expect(await preferred.canRunAgentic("briefing")).toMatchObject({ ok: false, model: "llama3.2:3b" });
  });

  it("leaves the client as it is when there is no preference", () => {
    const { client } = testClient(singleRoute("http://127.0.0.1:1"));
    expect(withPreferredModel(client, null)).toBe(client);
    expect(withPreferredModel(client, "  ")).toBe(client);
  });
});
