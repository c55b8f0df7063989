import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DEFAULT_NUM_CTX,
  ModelRoutesFileSchema,
  normalizeOllamaUrl,
  resolveModelRoutes,
} from "../../src/config/model-routes.ts";

const env = { ollamaHost: "http://127.0.0.1:11434", model: "qwen2.5:7b" };

/** Issues as the config loader prints them: `<path> <message>`. */
function problems(file: unknown): string[] {
  const result = ModelRoutesFileSchema.safeParse(file);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
}

const twoGpus = {
  endpoints: [
    { name: "gpu0", url: "http://10.0.0.5:11434" },
    { name: "gpu1", url: ":11435", concurrency: 2 },
  ],
  routes: {
    interactive: { endpoint: "gpu0", model: "qwen2.5:7b", keep_alive: -1 },
    briefing: { endpoint: "gpu1", model: "qwen2.5:14b", fallback: "gpu0", num_ctx: 16384 },
    background: { endpoint: "gpu1", model: "qwen2.5:3b", keep_alive: "10m" },
  },
};

describe("model routes config", () => {
  it("serves every role from OLLAMA_HOST and BRIEFBOT_MODEL without a file", () => {
    const resolved = resolveModelRoutes(undefined, { ollamaHost: "10.0.0.5", model: "llama3.1:8b" });
    expect(resolved.endpoints).toEqual([{ name: "default", url: "http://10.0.0.5:11434", concurrency: 1 }]);
    for (const role of ["interactive", "briefing", "background"] as const) {
      expect(resolved.routes[role]).toEqual({
        role,
        endpoint: "default",
        endpoints: ["default"],
        model: "llama3.1:8b",
        numCtx: DEFAULT_NUM_CTX,
      });
    }
    expect(resolveModelRoutes({}, env).routes.briefing.model).toBe("qwen2.5:7b");
  });

  it("resolves endpoints and routes from the file", () => {
    const resolved = resolveModelRoutes(ModelRoutesFileSchema.parse(twoGpus), env);
    expect(resolved.endpoints).toEqual([
      { name: "gpu0", url: "http://10.0.0.5:11434", concurrency: 1 },
      { name: "gpu1", url: "http://127.0.0.1:11435", concurrency: 2 },
    ]);
    expect(resolved.routes.interactive).toEqual({
      role: "interactive",
      endpoint: "gpu0",
      endpoints: ["gpu0"],
      model: "qwen2.5:7b",
      numCtx: 8192,
      keepAlive: -1,
    });
    expect(resolved.routes.briefing).toMatchObject({ fallback: "gpu0", numCtx: 16384 });
    expect(resolved.routes.background.keepAlive).toBe("10m");
  });

  it("names undefined endpoints, duplicates and self-fallbacks by path", () => {
    expect(
      problems({
        endpoints: [
          { name: "gpu0", url: "http://10.0.0.5:11434" },
          { name: "gpu0", url: "http://10.0.0.5:11435" },
        ],
        routes: {
          interactive: { endpoint: "gpu0", model: "m" },
          briefing: { endpoint: "gpu9", model: "m", fallback: "gpu8" },
          background: { endpoint: "gpu0", model: "m", fallback: "gpu0" },
        },
      }),
    ).toEqual([
      'endpoints.1.name "gpu0" is defined twice',
      'routes.briefing.endpoint "gpu9" is not a defined endpoint',
      'routes.briefing.fallback "gpu8" is not a defined endpoint',
      `routes.background.fallback "gpu0" is the route's own endpoint; name a different one`,
    ]);
  });

  it("explains malformed fields", () => {
    expect(
      problems({
        endpoints: [{ name: "gpu 0", url: "ftp://x", concurrency: 0 }],
        routes: {
          interactive: { endpoint: "gpu0", model: "", num_ctx: 100 },
          briefing: { endpoint: "gpu0", model: "m", keep_alive: "5 minutes" },
        },
      }),
    ).toEqual([
      "endpoints.0.name must be letters, digits, '.', '_' or '-'",
      'endpoints.0.url is not a valid Ollama URL (e.g. "http://10.0.0.5:11434" or ":11435")',
      "endpoints.0.concurrency must be at least 1",
      "routes.interactive.model must be a model name",
      "routes.interactive.num_ctx must be at least 256",
      'routes.briefing.keep_alive must be seconds or a duration like "30m" (negative keeps the model loaded)',
      "routes.background is required",
    ]);
    expect(problems({ endpoints: [{ name: "gpu0", url: "http://h:1" }] })).toEqual([
      "routes is required when endpoints are defined",
    ]);
  });

  it("keeps its cross-checks when another schema extends it", () => {
    const Extended = ModelRoutesFileSchema.extend({ sync: z.object({}).optional() });
    const result = Extended.safeParse({
      ...twoGpus,
      routes: { ...twoGpus.routes, briefing: { endpoint: "x", model: "m" } },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('"x" is not a defined endpoint');
  });

  it("lets briefing and background work spread over listed endpoints, or every endpoint with spill", () => {
    const sameModel = {
      endpoints: [
        { name: "gpu0", url: ":11434" },
        { name: "gpu1", url: ":11435" },
        { name: "gpu2", url: ":11436" },
      ],
      routes: {
        interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
        briefing: { endpoints: ["gpu1", "gpu0"], model: "qwen2.5:7b", fallback: "gpu2" },
        background: { endpoint: "gpu2", spill: true, model: "qwen2.5:7b" },
      },
    };
    const resolved = resolveModelRoutes(ModelRoutesFileSchema.parse(sameModel), env).routes;
    expect(resolved.briefing).toMatchObject({
      endpoint: "gpu1",
      endpoints: ["gpu1", "gpu0"],
      fallback: "gpu2",
    });
    expect(resolved.background).toMatchObject({ endpoint: "gpu2", endpoints: ["gpu2", "gpu0", "gpu1"] });
    expect(resolved.interactive.endpoints).toEqual(["gpu0"]);
  });

  it("refuses spreading that would make Ollama reload, and interactive work spread at all", () => {
    expect(
      problems({
        ...twoGpus,
        routes: {
          interactive: { endpoint: "gpu0", model: "qwen2.5:7b", spill: true },
          briefing: { endpoints: ["gpu1", "gpu0"], model: "qwen2.5:7b", num_ctx: 16384 },
          background: { endpoint: "gpu1", endpoints: ["gpu0", "gpu1"], model: "qwen2.5:3b", spill: false },
        },
      }),
    ).toEqual([
      "routes.interactive.spill interactive work keeps one endpoint, so a question never queues behind briefings; use `fallback` for failover",
      "routes.background.spill cannot be combined with `endpoints`; the list already says where the work may run",
      'routes.background.endpoints must start with the route\'s endpoint "gpu1"',
      'routes.briefing.endpoints spreads qwen2.5:7b (num_ctx 16384) onto "gpu0", where routes.interactive runs qwen2.5:7b (num_ctx 8192); use the same model and num_ctx, or Ollama reloads the model at every switch',
      'routes.background.endpoints spreads qwen2.5:3b (num_ctx 8192) onto "gpu1", where routes.briefing runs qwen2.5:7b (num_ctx 16384); use the same model and num_ctx, or Ollama reloads the model at every switch',
    ]);
    expect(
      problems({
        ...twoGpus,
        routes: {
          interactive: { endpoint: "gpu0", model: "m" },
          briefing: { endpoints: ["gpu1", "gpu9", "gpu1"], model: "m", fallback: "gpu1" },
          background: { model: "m" },
        },
      }),
    ).toEqual([
      'routes.briefing.endpoints.1 "gpu9" is not a defined endpoint',
      'routes.briefing.endpoints.2 "gpu1" is listed twice',
      `routes.briefing.fallback "gpu1" is the route's own endpoint; name a different one`,
      "routes.background.endpoint is required (or list the route's endpoints under `endpoints`)",
    ]);
  });

  it("reads hosts the way OLLAMA_HOST does", () => {
    expect(normalizeOllamaUrl("127.0.0.1:11435")).toBe("http://127.0.0.1:11435");
    expect(normalizeOllamaUrl(":11436")).toBe("http://127.0.0.1:11436");
    expect(normalizeOllamaUrl("gpu-box")).toBe("http://gpu-box:11434");
    expect(normalizeOllamaUrl("https://ollama.internal/")).toBe("https://ollama.internal:443");
    expect(normalizeOllamaUrl("")).toBeUndefined();
    expect(normalizeOllamaUrl("ftp://x")).toBeUndefined();
  });
});
