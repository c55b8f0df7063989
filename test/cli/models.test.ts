/** `briefbot models` tells when a route's model is not pulled, how to pull it, and exits 1. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { resolveModelRoutes } from "../../src/config/model-routes.ts";
import { cliHarness } from "../helpers/cli.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";

let ollama: OllamaTestServer;
beforeAll(async () => {
  ollama = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
});
afterAll(async () => {
  await ollama?.close();
});

it("names a model its endpoint has not pulled, prints the ollama pull line, and exits 1", async () => {
  const routes = resolveModelRoutes(
    {
      endpoints: [{ name: "gpu0", url: ollama.url, concurrency: 1 }],
      routes: {
        interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
        briefing: { endpoint: "gpu0", model: "llama3.1:8b" },
        background: { endpoint: "gpu0", model: "llama3.1:8b" },
      },
    },
    { ollamaHost: ollama.url, model: "qwen2.5:7b" },
  );
  const run = cliHarness(
    () => {
      throw new Error("briefbot models needs no database");
    },
    { config: { models: routes } },
  );
  const result = await run("models");
  expect(result.code).toBe(1);
  expect(result.stderr).toBe("briefbot: not pulled: llama3.1:8b on gpu0 (ollama pull)\n");
  expect(result.stdout).toContain(
    `Not pulled yet (briefings fall back to a plain digest until they are):\n  OLLAMA_HOST=${ollama.url} ollama pull llama3.1:8b\n`,
  );

  const pulled = resolveModelRoutes(undefined, { ollamaHost: ollama.url, model: "qwen2.5:7b" });
  const fine = await cliHarness(
    () => {
      throw new Error("unused");
    },
    { config: { models: pulled } },
  )("models");
  expect(fine).toMatchObject({ code: 0, stderr: "" });
  expect(fine.stdout).not.toContain("Not pulled");
});
