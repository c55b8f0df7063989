import { afterEach, describe, expect, it } from "vitest";
import { formatModelsReport, modelsReport, parseUtilisation } from "../../src/cli/commands/models.ts";
import { parseParameterSize } from "../../src/models/capabilities.ts";
import type { ModelsInspection } from "../../src/models/inspect.ts";
import { createHttpServer } from "../../src/server/http-server.ts";
import { createMetrics, type MetricsReadings } from "../../src/server/metrics.ts";
import { cliHarness } from "../helpers/cli.ts";
import {
  type OllamaTestServer,
  refusedUrl,
  startOllamaServer,
  type TestModelSpec,
} from "../servers/ollama-server.ts";
import { ask, routesFrom, singleRoute, testClient } from "./fixtures.ts";

const servers: OllamaTestServer[] = [];
async function serverWith(models: Record<string, TestModelSpec>) {
  const started = await startOllamaServer({ models });
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

describe("canRunAgentic", () => {
  it("accepts a 7B model with the tools capability", async () => {
    const gpu0 = await serverWith({ "qwen2.5:7b": { parameterSize: "7.6B" } });
    const { client } = testClient(singleRoute(gpu0.url));
    expect(await client.canRunAgentic("briefing")).toEqual({
      ok: true,
      model: "qwen2.5:7b",
      endpoint: "gpu0",
    });
  });

  it.each([
    ["llama3.2:1b", { parameterSize: "1.2B" }, /1\.2B parameters/],
    ["llama3.2:3b", { parameterSize: "3.2B" }, /3\.2B parameters; models in the 3B class/],
    ["qwen2.5:0.5b", { parameterSize: "494.03M" }, /494\.03M parameters/],
    ["llama3:8b", { capabilities: ["completion"] }, /does not support tools \(capabilities: completion\)/],
    ["old:7b", { omitCapabilities: true, template: "{{ .Prompt }}" }, /does not support tools/],
  ])("refuses %s", async (model, spec, reason) => {
    const gpu0 = await serverWith({ [model]: spec });
    const { client } = testClient(singleRoute(gpu0.url, model));
    const verdict = await client.canRunAgentic("briefing");
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(reason);
  });

  it("infers tool support from the template on servers without `capabilities`", async () => {
    const gpu0 = await serverWith({
      "old:7b": { omitCapabilities: true, template: "{{ if .Tools }}{{ end }}" },
    });
    const { client } = testClient(singleRoute(gpu0.url, "old:7b"));
    expect((await client.canRunAgentic("briefing")).ok).toBe(true);
  });

  it("caches /api/show per endpoint and model", async () => {
    const gpu0 = await serverWith({ "qwen2.5:7b": {} });
    const { client } = testClient(singleRoute(gpu0.url));
    await client.canRunAgentic("briefing");
    await client.canRunAgentic("interactive");
    const capabilities = await client.capabilities("gpu0", "qwen2.5:7b");
    expect(capabilities).toMatchObject({ capabilities: ["completion", "tools"], contextLength: 32768 });
    expect(gpu0.requests.filter((request) => request.path === "/api/show")).toHaveLength(1);
  });

  it("says why when the model is missing or the endpoint is down, and checks the fallback", async () => {
    const gpu1 = await serverWith({ "qwen2.5:7b": {} });
    const missing = await serverWith({ "other:7b": {} });
    const down = await refusedUrl();
    const { client } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: down },
          { name: "gpu1", url: gpu1.url },
          { name: "gpu2", url: missing.url },
        ],
        routes: {
          interactive: { endpoint: "gpu2", model: "qwen2.5:7b" },
          briefing: { endpoint: "gpu0", model: "qwen2.5:7b", fallback: "gpu1" },
          background: { endpoint: "gpu0", model: "qwen2.5:7b" },
        },
      }),
    );

    expect(await client.canRunAgentic("interactive")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not available on gpu2 (404 model 'qwen2.5:7b' not found)"),
    });
    expect(await client.canRunAgentic("briefing")).toEqual({
      ok: true,
      model: "qwen2.5:7b",
      endpoint: "gpu1",
    });
    expect(await client.canRunAgentic("background")).toMatchObject({
      ok: false,
      endpoint: "gpu0",
      reason: expect.stringMatching(/gpu0 unreachable \(fetch failed: .*ECONNREFUSED/),
    });
  });

  it("parses Ollama's parameter sizes", () => {
    expect(parseParameterSize("7.6B")).toBe(7.6e9);
    expect(parseParameterSize("494.03M")).toBeCloseTo(4.9403e8);
    expect(parseParameterSize("unknown")).toBeNull();
  });
});

describe("briefbot models", () => {
  async function twoEndpoints() {
    const gpu0 = await serverWith({ "qwen2.5:7b": {}, "llama3.2:3b": { parameterSize: "3.2B" } });
    const down = await refusedUrl();
    const routes = routesFrom({
      endpoints: [
        { name: "gpu0", url: gpu0.url },
        { name: "gpu1", url: down },
      ],
      routes: {
        interactive: { endpoint: "gpu0", model: "qwen2.5:7b", num_ctx: 16384 },
        briefing: { endpoint: "gpu1", model: "qwen2.5:7b", fallback: "gpu0" },
        background: { endpoint: "gpu0", model: "llama3.2:3b", keep_alive: -1 },
      },
    });
    // Loaded with another num_ctx than the route sends, so the report warns about the reload.
    const { client } = testClient(
      routesFrom({
        endpoints: [{ name: "gpu0", url: gpu0.url }],
        routes: {
          interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
          briefing: { endpoint: "gpu0", model: "qwen2.5:7b" },
          background: { endpoint: "gpu0", model: "qwen2.5:7b" },
        },
      }),
    );
    await client.warm("interactive");
    return { gpu0, routes };
  }

  it("reports reachability, loaded models, capabilities and the agentic verdict", async () => {
    const { routes } = await twoEndpoints();

    const report = await modelsReport({ routes });

    expect(report).toMatch(/gpu0 {2}http:\/\/127\.0\.0\.1:\d+ {2}reachable, Ollama 0\.12\.10/);
    expect(report).toContain("loaded: qwen2.5:7b (num_ctx 8192)");
    expect(report).toMatch(/gpu1 {2}http:\/\/127\.0\.0\.1:\d+ {2}UNREACHABLE: fetch failed/);
    expect(report).toContain("qwen2.5:7b on gpu0, num_ctx 16384");
    expect(report).toContain("loaded with num_ctx 8192: the next request reloads it at 16384");
    expect(report).toContain("qwen2.5:7b on gpu1 (fallback gpu0), num_ctx 8192");
    expect(report).toContain("agentic briefings: yes (checked on gpu0)");
    expect(report).toContain("llama3.2:3b on gpu0, num_ctx 8192, keep_alive -1");
    expect(report).toContain("agentic briefings: no, llama3.2:3b has 3.2B parameters");
  });

  it("prints JSON with --json and exits 1 naming the endpoint that is down", async () => {
    const { routes } = await twoEndpoints();
    const run = cliHarness(
      () => {
        throw new Error("briefbot models needs no database");
      },
      { config: { models: routes } },
    );
    const result = await run("models", "--json", "--metrics-url", `${await refusedUrl()}/metrics`);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("briefbot: unreachable: gpu1\n");
    const inspection = JSON.parse(result.stdout) as ModelsInspection;
    expect(inspection.endpoints.map((endpoint) => [endpoint.name, endpoint.reachable])).toEqual([
      ["gpu0", true],
      ["gpu1", false],
    ]);
    expect(inspection.routes.find((route) => route.role === "background")?.agentic.ok).toBe(false);
    expect(formatModelsReport(inspection)).toContain("Routes");
    expect(JSON.parse(result.stdout).utilisation.error).toMatch(/fetch failed/);
  });

  it("shows each endpoint's utilisation as the running bot measures it on /metrics", async () => {
    const gpu0 = await serverWith({ "qwen2.5:7b": {} });
    const gpu1 = await serverWith({ "qwen2.5:7b": {} });
    const routes = routesFrom({
      endpoints: [
        { name: "gpu0", url: gpu0.url },
        { name: "gpu1", url: gpu1.url },
      ],
      routes: {
        interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
        briefing: { endpoints: ["gpu1", "gpu0"], model: "qwen2.5:7b" },
        background: { endpoint: "gpu1", model: "qwen2.5:7b" },
      },
    });
    // The "running bot": a router that served a small rush, and its /metrics.
    const { client } = testClient(routes);
    await Promise.all([
      ...Array.from({ length: 6 }, (_, index) => client.chat(ask("briefing", `b${index}`))),
      client.chat(ask("interactive", "q")),
    ]);
    const noDatabase = new Proxy({} as MetricsReadings, {
      get: () => {
        throw new Error("no database in this test");
      },
    });
    const metrics = createMetrics({ readings: noDatabase, model: client });
    const http = createHttpServer({
      health: async () => ({ ok: true }) as never,
      metrics: () => metrics.render(),
    });
    const port = await http.listen(0, "127.0.0.1");
    try {
      const metricsUrl = `http://127.0.0.1:${port}/metrics`;
      const report = await modelsReport({ routes, metricsUrl });
      expect(report).toContain("qwen2.5:7b on gpu1 (also gpu0 when free), num_ctx 8192");
      expect(report).toContain(`Utilisation (the running bot, ${metricsUrl})`);
      expect(report).toMatch(
        /gpu0 {2}\d+% last minute, \d+% last 15 min, \d+% since start; busy time since start: interactive \d+%, briefing \d+%; took \d+ briefing request\(s\) from other endpoints' routes/,
      );
      expect(report).toMatch(
        /gpu1 {2}\d+% last minute, \d+% last 15 min, \d+% since start; busy time since start: briefing 100%$/m,
      );
      const parsed = parseUtilisation(await (await fetch(metricsUrl)).text());
      const stats = client.stats();
      for (const endpoint of parsed) {
        const measured = stats.find((entry) => entry.endpoint === endpoint.endpoint);
        expect(endpoint.spilledIn.briefing ?? 0).toBe(measured?.spilledIn.briefing);
        expect(endpoint.lastMinute).toBeGreaterThan(0);
      }
      expect(parsed.map((endpoint) => endpoint.endpoint)).toEqual(["gpu0", "gpu1"]);
    } finally {
      await http.close();
    }
  });
});
