/**
 * Fan-out: 1,000 users due at the same minute, through the real scheduler (claims in PGlite), the real model
 * router and queues, the real delivery worker and pacer, and the real Telegram adapter (grammY) against the
 * Telegram test server with its rate limits ON (30 messages/s global, 1/s per chat).
 *
 * SIMULATED: the two model endpoints are Ollama test servers with a fixed latency (20 ms to first token, no
 * per-token cost), one request at a time each. The router serves a role from one endpoint, so users are
 * split across two briefing routes (user id parity), as two GPUs each owning half the users would be.
 * The runner is reduced to its storage and one model request per briefing (claimed → generating →
 * generated, prose from the model): the full tool loop costs ~150 ms of PGlite work per briefing on
 * this machine and is measured by the "briefing" section; here it would only measure the embedded database.
 */
import { inArray } from "drizzle-orm";
import { createTelegramBot } from "../bots/telegram/index.ts";
import { openDatabase } from "../db/client.ts";
import { finishRun, startClaimedRun } from "../db/queries/runs.ts";
import { briefingRuns, deliveries, identities, users } from "../db/schema/index.ts";
import { createDbPorts } from "../db/stores/index.ts";
import { resolveModelRoutes } from "../src/config/model-routes.ts";
import { type Clock, composeCore, type PlatformSender, silentLogger } from "../src/core/index.ts";
import { TELEGRAM_LIMITS } from "../src/delivery/pacer.ts";
import { createDeliveryWorker } from "../src/delivery/worker.ts";
import { createModelClient } from "../src/models/index.ts";
import { type BriefingGenerator, createScheduler } from "../src/scheduler/scheduler.ts";
import { telegramConfigFor } from "../test/bots/telegram/harness.ts";
import { type OllamaTestServer, startOllamaServer } from "../test/servers/ollama-server.ts";
import { startTelegramServer } from "../test/servers/telegram-server.ts";
import type { BenchSection } from "./types.ts";

const MODEL = "sim-briefing";
const LATENCY_MS = 20;
const PROSE =
  "Good morning. Nothing on your calendar today and no overdue tasks, so the day is yours. Partly cloudy, 8 to 16 degrees.";

export interface FanoutOptions {
  users?: number;
}

export async function runFanoutBench(options: FanoutOptions = {}): Promise<BenchSection> {
  const count = options.users ?? 1000;
  const endpoints = await Promise.all([startEndpoint(), startEndpoint()]);
  const telegram = await startTelegramServer({ autoCreateChats: true });
  telegram.setRateLimits({ global: { max: 30, windowMs: 1000 }, perChat: { max: 1, windowMs: 1000 } });
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    await database.migrate();
    const db = database.db;
    // 07:00 in London when the bench starts, then real time: retries (429s) come due as they would live.
    const origin = Date.parse("2025-06-02T06:00:00Z");
    const startedAt = performance.now();
    const clock: Clock = { now: () => new Date(origin + (performance.now() - startedAt)) };

    const created = await db
      .insert(users)
      .values(
        Array.from({ length: count }, (_, index) => ({
          name: `fanout-${index}`,
          timeZone: "Europe/London",
          slots: { morning: "07:00", midday: null, afternoon: null, evening: null },
          createdAt: new Date("2025-01-01T00:00:00Z"),
        })),
      )
      .returning({ id: users.id });
    await db.insert(identities).values(
      created.map((user, index) => ({
        userId: user.id,
        platform: "telegram" as const,
        externalUserId: String(9_000_000 + index),
        chatId: String(9_000_000 + index),
      })),
    );

    const models = endpoints.map((server) =>
      createModelClient({ routes: resolveModelRoutes(undefined, { ollamaHost: server.url, model: MODEL }) }),
    );
    const runner: BriefingGenerator = async ({ user, runId }) => {
      await startClaimedRun(db, runId, clock.now());
      const model = models[user.id % 2] ?? models[0];
      if (!model) throw new Error("no model");
      const result = await model.chat({
        role: "briefing",
        messages: [
          {
            role: "system",
            content: "You are the user's personal assistant giving their full morning briefing.",
          },
          { role: "user", content: "Generate the morning briefing." },
        ],
      });
      await finishRun(
        db,
        runId,
        {
          mode: "agentic",
          route: "briefing",
          endpoint: result.endpoint,
          model: result.model,
          turns: 1,
          toolCalls: 0,
          promptTokens: result.promptEvalCount ?? 0,
          evalTokens: result.evalCount ?? 0,
          timings: { modelMs: Math.round(result.durationMs), queueWaitMs: Math.round(result.queueWaitMs) },
          grounding: null,
          prose: result.content,
          reason: null,
        },
        clock.now(),
      );
    };

    const bot = createTelegramBot({
      config: telegramConfigFor(telegram),
      db,
      assistant: composeCore({
        ports: createDbPorts(db),
        model: models[0] ?? fail(),
        clock,
        config: {},
        logger: silentLogger,
      }).assistant,
      clock,
      retry: { maxAttempts: 1, maxDelaySeconds: 5 },
    });
    const sendTimes: number[] = [];
    const timed: PlatformSender = {
      platform: "telegram",
      deliver(target, message) {
        sendTimes.push(performance.now());
        return bot.sender.deliver(target, message);
      },
    };
    let lastGeneratedAt = 0;
    const worker = createDeliveryWorker({ db, clock, senders: [timed], baseBackoffMs: 1000 });
    const scheduler = createScheduler({
      db,
      clock,
      runner: async (request) => {
        await runner(request);
        lastGeneratedAt = performance.now();
      },
      deliver: worker,
      maxConcurrentGenerations: 200,
    });

    const tickAt = performance.now();
    const report = await scheduler.tick();
    await scheduler.drain();
    // Retries after a 429 come due in real time; the cron would pick them up, so tick until settled.
    for (let round = 0; round < 30; round += 1) {
      const open = await db
        .select({ id: deliveries.id })
        .from(deliveries)
        .where(inArray(deliveries.state, ["pending", "sending"]));
      if (open.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await scheduler.tick();
      await scheduler.drain();
    }
    const doneAt = performance.now();

    const runs = await db
      .select({
        id: briefingRuns.id,
        userId: briefingRuns.userId,
        state: briefingRuns.state,
        reason: briefingRuns.reason,
      })
      .from(briefingRuns);
    const failures = new Map<string, number>();
    for (const run of runs) {
      const key = `${run.state}: ${run.reason}`;
      if (run.state !== "delivered") failures.set(key, (failures.get(key) ?? 0) + 1);
    }
    const perChat = new Map<number, number>();
    for (const post of telegram.sent) perChat.set(post.chatId, (perChat.get(post.chatId) ?? 0) + 1);
    const duplicates = [...perChat.values()].reduce((sum, posts) => sum + Math.max(0, posts - 1), 0);
    const delivered = runs.filter((run) => run.state === "delivered").length;
    const lost = count - new Set([...perChat.keys()]).size;
    const tooMany = telegram.calls.filter(
      (call) => call.method.toLowerCase() === "sendmessage" && call.status === 429,
    ).length;

    const modelBusyMs = endpoints.reduce((sum, server) => sum + busyMs(server), 0);
    const idealModelMs = modelBusyMs / endpoints.length;
    const generationMs = lastGeneratedAt - tickAt;
    const makespanMs = doneAt - tickAt;
    const sendFloorMs = (count / TELEGRAM_LIMITS.globalPerSecond) * 1000;
    const idealEndToEndMs = Math.max(idealModelMs, sendFloorMs);

    return {
      title: `fanout: ${count} users due at 07:00, 2 simulated model endpoints, Telegram test server limits on`,
      lines: [
        `simulated: ${LATENCY_MS} ms per model request (fixed), 1 request/briefing, endpoints serve one at a time; runner reduced to storage + model call`,
        `claimed ${report.claimed} in one tick; runs delivered ${delivered}/${count}; duplicates ${duplicates} (must be 0); lost ${lost} (must be 0)`,
        `model busy ${(modelBusyMs / 1000).toFixed(1)} s total → ideal ${(idealModelMs / 1000).toFixed(1)} s on 2 endpoints; generation makespan ${(generationMs / 1000).toFixed(1)} s = ${(generationMs / idealModelMs).toFixed(2)}× ideal`,
        `end-to-end makespan ${(makespanMs / 1000).toFixed(1)} s = ${(makespanMs / idealModelMs).toFixed(2)}× model ideal; ${(makespanMs / idealEndToEndMs).toFixed(2)}× max(model ideal, ${count} posts at ${TELEGRAM_LIMITS.globalPerSecond}/s = ${(sendFloorMs / 1000).toFixed(1)} s)`,
        ...[...failures].map(([reason, runs]) => `not delivered (${runs}): ${reason}`),
        `peak Telegram send rate ${peakPerSecond(sendTimes)} msg/s in any 1 s window (pacer ${TELEGRAM_LIMITS.globalPerSecond}/s, server limit 30/s); 429 answers ${tooMany}`,
      ],
    };
  } finally {
    await telegram.close();
    await Promise.all(endpoints.map((server) => server.close()));
    await database.close();
  }
}

function startEndpoint(): Promise<OllamaTestServer> {
  return startOllamaServer({
    models: { [MODEL]: { reply: () => ({ content: PROSE }) } },
    latency: { timeToFirstTokenMs: LATENCY_MS, perTokenMs: 0 },
  });
}

/** Time the endpoint spent serving chat requests (started → finished), from the server's own events. */
function busyMs(server: OllamaTestServer): number {
  const started = new Map<number, number>();
  let total = 0;
  for (const event of server.events) {
    if (event.type === "started") started.set(event.request, event.at);
    if (event.type === "finished" || event.type === "failed") {
      const at = started.get(event.request);
      if (at !== undefined) total += event.at - at;
    }
  }
  return total;
}

function peakPerSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= 1000) start += 1;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

function fail(): never {
  throw new Error("no model client");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runFanoutBench({ users: Number(process.argv[2] ?? 1000) });
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
