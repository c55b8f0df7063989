/** `/healthz`, `/metrics` and mounted platform routes over real HTTP, fed by a real scheduler run. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsReadings } from "../../db/stores/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { createHealthCheck } from "../../src/server/health.ts";
import { createHttpServer, type HttpServer } from "../../src/server/http-server.ts";
import { createMetrics } from "../../src/server/metrics.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { modelFor, permanent, startModel, startRig, telegramUser } from "../scheduler/rig.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";

const MORNING_ONLY = { morning: "07:00", midday: null, afternoon: null, evening: null };

describe("HTTP server: health and metrics", () => {
  let testDb: TestDatabase;
  let ollama: OllamaTestServer;
  let http: HttpServer;
  let base: string;
  let databaseDown = false;
  const webhookBodies: string[] = [];
  const clock = fixedClock("2025-06-02T06:00:00Z");

  beforeAll(async () => {
    testDb = await createTestDatabase("pglite");
    ollama = await startModel();
    const db = testDb.open.db;
    await telegramUser(db, { slots: MORNING_ONLY });
    await telegramUser(db, { slots: MORNING_ONLY });
    const model = modelFor(ollama);
    const metricsRef: { current?: ReturnType<typeof createMetrics> } = {};
    const rig = await startRig(db, clock, model, {
      worker: { observer: { deliveryAttempt: (...args) => metricsRef.current?.deliveryAttempt(...args) } },
      scheduler: { observer: { generation: (...args) => metricsRef.current?.generation(...args) } },
    });
    const metrics = createMetrics({ readings: createMetricsReadings(db), model, scheduler: rig.scheduler });
    metricsRef.current = metrics;
    rig.sender.plan.push({ kind: "ok" }, { kind: "fail", error: permanent() });
    await rig.scheduler.tick();
    await rig.scheduler.drain();

    http = createHttpServer({
      routes: {
        "/telegram/webhook": async (request, response) => {
          let body = "";
          for await (const chunk of request) body += String(chunk);
          webhookBodies.push(body);
          response.writeHead(200).end("ok");
        },
      },
      health: createHealthCheck({
        clock,
        pingDatabase: async () => {
          if (databaseDown) throw new Error("connection refused");
          await testDb.open.ping();
        },
        scheduler: rig.scheduler,
      }),
      metrics: () => metrics.render(),
    });
    const port = await http.listen(0, "127.0.0.1");
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await http?.close();
    await ollama?.close();
    await testDb?.dispose();
  });

  it("reports healthy with the last tick time, and unhealthy when the database or the ticks stop", async () => {
    const healthy = await fetch(`${base}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({
      ok: true,
      database: { ok: true },
      scheduler: { ok: true, ticking: true, lastTickAt: "2025-06-02T06:00:00.000Z" },
    });

    databaseDown = true;
    const noDatabase = await fetch(`${base}/healthz`);
    databaseDown = false;
    expect(noDatabase.status).toBe(503);
    expect(await noDatabase.json()).toMatchObject({
      ok: false,
      database: { ok: false, error: "connection refused" },
    });

    clock.advance(10 * 60_000);
    const stalled = await fetch(`${base}/healthz`);
    clock.advance(-10 * 60_000);
    expect(stalled.status).toBe(503);
    expect(await stalled.json()).toMatchObject({ ok: false, scheduler: { ticking: false } });
  });

  it("exposes runs by state, latencies, model queue, tool calls and grounding in Prometheus format", async () => {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const body = await response.text();
    expect(body).toContain('briefbot_runs{state="delivered",trigger="schedule"} 1');
    expect(body).toContain('briefbot_runs{state="failed",trigger="schedule"} 1');
    expect(body).toContain('briefbot_deliveries{platform="telegram",state="sent"} 1');
    expect(body).toMatch(/briefbot_tool_calls_total\{tool="list_tasks"\} [1-9]/);
    expect(body).toMatch(/briefbot_generation_seconds_count\{state="generated"\} 2/);
    expect(body).toMatch(/briefbot_delivery_seconds_count\{platform="telegram",outcome="sent"\} 1/);
    expect(body).toMatch(/briefbot_delivery_seconds_count\{platform="telegram",outcome="refused"\} 1/);
    expect(body).toMatch(/briefbot_delivery_sends_total\{platform="telegram",outcome="sent"\} 1/);
    expect(body).toMatch(/briefbot_model_utilisation_ratio\{endpoint="[^"]+",window="1m"\} 0\.\d+/);
    expect(body).toMatch(/briefbot_model_busy_seconds_total\{endpoint="[^"]+",role="briefing"\} \d/);
    expect(body).toMatch(/briefbot_model_slots\{endpoint="[^"]+"\} 1/);
    expect(body).toMatch(/briefbot_model_queue_depth\{endpoint="[^"]+"\} 0/);
    expect(body).toMatch(/briefbot_model_queue_waits_total\{endpoint="[^"]+",role="briefing"\} [1-9]/);
    expect(body).toContain("# TYPE briefbot_grounding_corrections_total counter");
    expect(body).toMatch(/briefbot_scheduler_last_tick_timestamp_seconds 1748844000/);
  });

  it("serves mounted platform routes and refuses the rest", async () => {
    const posted = await fetch(`${base}/telegram/webhook?x=1`, { method: "POST", body: '{"update_id":1}' });
    expect(posted.status).toBe(200);
    expect(webhookBodies).toEqual(['{"update_id":1}']);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
    expect(() =>
      createHttpServer({
        routes: { "/healthz": () => {} },
        health: async () => {
          throw new Error("unused");
        },
        metrics: async () => ({ contentType: "", body: "" }),
      }),
    ).toThrow(/served by the HTTP server itself/);
  });
});
