/**
 * The morning rush: 1,000 users due at the same minute, through the real scheduler (claims in PGlite), the
 * real model router and pool, the real outbox and flood gate, and the real Telegram
 * adapter (grammY, over the send transports the app uses) against the Telegram test server with its rate
 * limits ON (30 messages/s overall, 1/s per chat) and network faults injected. Three layouts side by side:
 * one endpoint for everything; two endpoints with briefings spread over both; two endpoints with a
 * dedicated chat endpoint.
 *
 * SIMULATED: the model endpoints are Ollama test servers with a fixed latency per request (no GPU), one
 * request at a time each. The runner is reduced to its storage and two model requests per briefing (a tool
 * turn, then the prose): the full tool loop's PGlite work is measured by the "briefing" section.
 *
 * The database is the PostgreSQL server on 127.0.0.1:5432 (a throwaway database), as a deployment with a
 * thousand users would run; embedded PGlite when no server answers. Everything else shares one process,
 * so on a loaded machine the simulated 60 ms requests also carry event-loop delays: the load average is
 * printed beside the figures.
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { inArray } from "drizzle-orm";
import postgres from "postgres";
import { createTelegramBot } from "../bots/telegram/index.ts";
import { type OpenDatabase, openDatabase } from "../db/client.ts";
import { briefingRuns, deliveries, identities, users } from "../db/schema/index.ts";
import { createDbPorts, createPlatformState } from "../db/stores/index.ts";
import {
  type ModelRoutesFileInput,
  ModelRoutesFileSchema,
  resolveModelRoutes,
} from "../src/config/model-routes.ts";
import type { Assistant, PlatformSender } from "../src/core/assistant.ts";
import type { Clock } from "../src/core/clock.ts";
import type { ChatMessage } from "../src/core/model.ts";
import type { DeliveryOutcome } from "../src/delivery/hooks.ts";
import { createOutbox } from "../src/delivery/outbox.ts";
import { createTelegramTransports, TELEGRAM_PACE } from "../src/delivery/platform-transports.ts";
import { createModelClient, type ModelRouter } from "../src/models/index.ts";
import { type BriefingGenerator, createScheduler } from "../src/scheduler/scheduler.ts";
import { telegramConfigFor } from "../test/bots/telegram/harness.ts";
import { type OllamaTestServer, startOllamaServer } from "../test/servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../test/servers/telegram-server.ts";
import type { BenchSection } from "./types.ts";

const MODEL = "sim-7b";
/** Each briefing request (tool turn or prose) takes this long on its endpoint. */
const BRIEFING_REQUEST_MS = 60;
/** A chat answer: first token after 40 ms, then 20 tokens at 5 ms. */
const CHAT = { timeToFirstTokenMs: 40, perTokenMs: 5, tokens: 20 };
/** One question a second during the rush (a household or small team asking about their day). */
const CHAT_EVERY_MS = 1000;
const SHORT_PROSE =
  "Good morning. Nothing on your calendar today and no overdue tasks, so the day is yours. Partly cloudy, 8 to 16 degrees.";
/** Every tenth user gets a briefing long enough for two Telegram messages (a per-chat 429 on the second). */
const LONG_PROSE = Array.from(
  { length: 60 },
  (_, index) =>
    `Item ${index}: a longer morning briefing paragraph with enough words to need a second message.`,
).join("\n\n");
/** Faults injected into the Telegram server's sendMessage calls. */
const FAULTS = { resetBeforeBodyEvery: 50, answerLostEvery: 250, globalFloodAt: 400, globalFloodSeconds: 2 };

type Layout = "one endpoint" | "two endpoints, briefings spread" | "two endpoints, dedicated chat endpoint";

interface RushResult {
  layout: Layout;
  database: string;
  briefingEndpoints: number;
  makespanMs: number;
  generationMs: number;
  modelWorkMs: number;
  sendFloorMs: number;
  requestsPerEndpoint: Record<string, number>;
  affinityKept: number;
  delivered: number;
  lost: number;
  incomplete: number;
  duplicates: number;
  tooMany: { chat: number; global: number };
  beforeRetryAfter: number;
  outcomes: Record<DeliveryOutcome, number>;
  injected: { resets: number; answersLost: number; floods: number };
  unknownButDelivered: number;
  chatIdleMs: number[];
  chatRushMs: number[];
  peakPerSecond: number;
  failures: Map<string, number>;
  /** Briefing stored → Telegram's answer recorded, per delivered run. */
  postLagMs: number[];
}

export interface FanoutOptions {
  users?: number;
  /** Indexes into the three layouts, for a quicker look at one (`tsx bench/fanout.ts 1000 1`). */
  layouts?: number[];
}

export async function runFanoutBench(options: FanoutOptions = {}): Promise<BenchSection> {
  const count = options.users ?? 1000;
  const results: RushResult[] = [];
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" / ");
  const layouts = [
    "one endpoint",
    "two endpoints, briefings spread",
    "two endpoints, dedicated chat endpoint",
  ] as const;
  for (const [index, layout] of layouts.entries()) {
    if (options.layouts && !options.layouts.includes(index)) continue;
    results.push(await rush(layout, count));
  }
  const lines = [
    `simulated: ${BRIEFING_REQUEST_MS} ms per briefing model request, 2 requests per briefing (tool turn + prose); chat ` +
      `${CHAT.timeToFirstTokenMs} ms to first token + ${CHAT.tokens} tokens × ${CHAT.perTokenMs} ms; endpoints serve one request at a time; ` +
      "runner reduced to storage + model calls; Telegram test server limits 30/s overall, 1/s per chat",
    `injected into sendMessage: a connection reset before the body every ${FAULTS.resetBeforeBodyEvery}th call, an answer ` +
      `lost after posting every ${FAULTS.answerLostEvery}th, a global 429 (retry_after ${FAULTS.globalFloodSeconds}) at the ` +
      `${FAULTS.globalFloodAt}th; every 10th briefing needs 2 messages (its 2nd meets the per-chat limit)`,
    `ideal = max(model work on the endpoints briefings may use (their chats included) ÷ those endpoints, messages ÷ ${TELEGRAM_PACE.outboxPerSecond}/s + the injected ` +
      "global pause); chat ratio = median chat latency during the rush ÷ idle",
    `database: ${results[0]?.database ?? "?"}; machine load average ${load} (1/5/15 min) on this 2-core machine at the start`,
  ];
  for (const result of results) lines.push(...describe(result, count));
  return { title: `fanout: the morning rush, ${count} users due at 07:00, three endpoint layouts`, lines };
}

function describe(result: RushResult, count: number): string[] {
  const idealMs = Math.max(result.modelWorkMs / result.briefingEndpoints, result.sendFloorMs);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const chatRatio = median(result.chatRushMs) / median(result.chatIdleMs);
  const chatWorst = Math.max(...result.chatRushMs) / median(result.chatIdleMs);
  const split = Object.entries(result.requestsPerEndpoint)
    .map(([endpoint, requests]) => `${endpoint} ${requests}`)
    .join(", ");
  return [
    `— ${result.layout} (briefings on ${result.briefingEndpoints}):`,
    `  makespan ${seconds(result.makespanMs)} = ${(result.makespanMs / idealMs).toFixed(2)}× ideal ${seconds(idealMs)} ` +
      `(model work ${seconds(result.modelWorkMs)} ÷ ${result.briefingEndpoints}; send floor ${seconds(result.sendFloorMs)}); ` +
      `generation ${seconds(result.generationMs)} = ${(result.generationMs / (result.modelWorkMs / result.briefingEndpoints)).toFixed(2)}× model work ÷ endpoints, ` +
      `then ${seconds(result.makespanMs - result.generationMs)} to the last delivery`,
    `  briefing requests per endpoint: ${split}; a briefing's 2nd request on its 1st's endpoint: ${(result.affinityKept * 100).toFixed(0)}%`,
    `  delivered ${result.delivered}/${count} runs; lost ${result.lost}; incomplete ${result.incomplete}; duplicates ${result.duplicates}; ` +
      `peak ${result.peakPerSecond} msg/s; stored → posted median ${median(result.postLagMs).toFixed(0)} ms, ` +
      `p99 ${percentile(result.postLagMs, 0.99).toFixed(0)} ms`,
    `  429 answers ${result.tooMany.chat + result.tooMany.global} (${result.tooMany.chat} per chat, ${result.tooMany.global} global, ` +
      `${result.injected.floods} injected); calls made before retry_after ${result.beforeRetryAfter}`,
    `  send outcomes: sent ${result.outcomes.sent}, not sent → retried ${result.outcomes.not_sent} ` +
      `(${result.injected.resets} resets injected), outcome unknown → recorded, not re-sent ${result.outcomes.unknown} ` +
      `(${result.injected.answersLost} answers lost injected; ${result.unknownButDelivered} of them did reach the chat)`,
    `  chat during the rush: median ${median(result.chatRushMs).toFixed(0)} ms vs idle ${median(result.chatIdleMs).toFixed(0)} ms = ` +
      `${chatRatio.toFixed(2)}× idle (worst ${chatWorst.toFixed(2)}×, ${result.chatRushMs.length} chats)`,
    ...[...result.failures].map(([reason, runs]) => `  not delivered (${runs}): ${reason}`),
  ];
}

function routesFor(layout: Layout, gpu0: string, gpu1: string) {
  const route = { model: MODEL };
  const file: ModelRoutesFileInput =
    layout === "one endpoint"
      ? {
          endpoints: [{ name: "gpu0", url: gpu0 }],
          routes: {
            interactive: { endpoint: "gpu0", ...route },
            briefing: { endpoint: "gpu0", ...route },
            background: { endpoint: "gpu0", ...route },
          },
        }
      : {
          endpoints: [
            { name: "gpu0", url: gpu0 },
            { name: "gpu1", url: gpu1 },
          ],
          routes: {
            interactive: { endpoint: "gpu0", ...route },
            briefing:
              layout === "two endpoints, briefings spread"
                ? { endpoints: ["gpu1", "gpu0"], ...route }
                : { endpoint: "gpu1", ...route },
            background: { endpoint: "gpu1", ...route },
          },
        };
  return resolveModelRoutes(ModelRoutesFileSchema.parse(file), { ollamaHost: gpu0, model: MODEL });
}

async function rush(layout: Layout, count: number): Promise<RushResult> {
  const servers = await Promise.all([startEndpoint(), startEndpoint()]);
  const [gpu0, gpu1] = servers as [OllamaTestServer, OllamaTestServer];
  const telegram = await startTelegramServer({ autoCreateChats: true });
  telegram.setRateLimits({ global: { max: 30, windowMs: 1000 }, perChat: { max: 1, windowMs: 1000 } });
  injectFaults(telegram, count);
  const transports = createTelegramTransports();
  const bench = await benchDatabase();
  const database = bench.open;
  try {
    const db = database.db;
    // 07:00 in London when the rush starts, then real time: retries come due as they would live.
    const origin = Date.parse("2025-06-02T06:00:00Z");
    const startedAt = performance.now();
    const clock: Clock = { now: () => new Date(origin + (performance.now() - startedAt)) };
    const created = await db
      .insert(users)
      .values(
        Array.from({ length: count }, (_, index) => ({
          name: `rush-${index}`,
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
    const longFor = new Set(created.filter((_, index) => index % 10 === 0).map((user) => user.id));
    const chatOf = new Map(created.map((user, index) => [user.id, 9_000_000 + index]));

    const router = createModelClient({ routes: routesFor(layout, gpu0.url, gpu1.url) });
    const briefingEndpoints = router.stats().length === 1 || layout.includes("dedicated") ? 1 : 2;
    const turns = new Map<number, string[]>();
    const owner = "fanout-bench";
    const ports = createDbPorts(db);
    await ports.leases.acquire(`process:${owner}`, owner, 3_600_000, clock.now());
    const runner: BriefingGenerator = async ({ user, runId, slot }) => {
      const run = await ports.lifecycle.start(runId, user.id, owner, clock.now());
      if (!run) throw new Error(`run ${runId} was not claimed by the bench`);
      const opening: ChatMessage[] = [
        {
          role: "system",
          content: `Morning briefing for ${user.name}. ${longFor.has(user.id) ? "long" : "short"}`,
        },
        { role: "user", content: "Generate the morning briefing." },
      ];
      const toolTurn = await router.chat({ role: "briefing", messages: opening });
      const prose = await router.chat({
        role: "briefing",
        messages: [
          ...opening,
          { role: "assistant", content: toolTurn.content },
          { role: "user", content: "Now the prose." },
        ],
      });
      turns.set(runId, [toolTurn.endpoint, prose.endpoint]);
      await ports.lifecycle.finish(
        runId,
        owner,
        {
          mode: "agentic",
          route: "briefing",
          endpoint: prose.endpoint,
          model: prose.model,
          turns: 2,
          toolCalls: 0,
          promptTokens: prose.promptEvalCount ?? 0,
          evalTokens: prose.evalCount ?? 0,
          timings: { modelMs: Math.round(prose.durationMs), queueWaitMs: Math.round(prose.queueWaitMs) },
          grounding: null,
          prose: prose.content,
          checks: [],
          reason: null,
        },
        clock.now(),
      );
      return {
        runId,
        userId: user.id,
        slot,
        localDate: run.localDate,
        prose: prose.content,
        checks: [],
        statusRow: "",
        mode: "agentic",
        receipts: [],
        grounding: null,
        timings: {},
      };
    };

    const bot = createTelegramBot({
      config: telegramConfigFor(telegram),
      assistant: unusedAssistant,
      platformState: createPlatformState(db),
      clock,
      retry: { maxAttempts: 3, maxDelaySeconds: 5 },
      transports,
    });
    const sendTimes: number[] = [];
    const timed: PlatformSender = {
      platform: "telegram",
      // A send is counted when its turn comes: the sender paces first, then claims the row.
      deliver: (attempt) =>
        bot.sender.deliver({
          ...attempt,
          begin: async () => {
            const claimed = await attempt.begin();
            if (claimed) sendTimes.push(performance.now());
            return claimed;
          },
        }),
    };
    const outcomes: Record<DeliveryOutcome, number> = { sent: 0, not_sent: 0, unknown: 0, refused: 0 };
    const worker = createOutbox({
      ports,
      clock,
      owner,
      senders: [timed],
      observer: { deliveryAttempt: (_platform, _seconds, outcome) => (outcomes[outcome] += 1) },
    });
    let lastGeneratedAt = 0;
    const scheduler = createScheduler({
      ports,
      owner,
      clock,
      runner: async (request) => {
        const generated = await runner(request);
        lastGeneratedAt = performance.now();
        return generated;
      },
      deliver: worker,
    });

    const chatIdleMs: number[] = [];
    for (let sample = 0; sample < 9; sample += 1) chatIdleMs.push(await chatLatency(router));
    const chatRushMs: number[] = [];
    let generating = true;
    const chats = (async () => {
      await sleep(CHAT_EVERY_MS);
      while (generating) {
        chatRushMs.push(await chatLatency(router));
        await sleep(CHAT_EVERY_MS);
      }
    })();

    const briefingServers = layout.includes("dedicated")
      ? [gpu1]
      : layout === "one endpoint"
        ? [gpu0]
        : servers;
    const busyBefore = busyMs(briefingServers);
    const tickAt = performance.now();
    await scheduler.tick();
    await scheduler.drain();
    generating = false;
    await chats;
    // Retries come due in real time and the worker wakes itself for them; wait until every row settled.
    for (let round = 0; round < 600; round += 1) {
      await worker.drain();
      const open = await db
        .select({ id: deliveries.id })
        .from(deliveries)
        .where(inArray(deliveries.state, ["pending", "sending"]));
      if (open.length === 0) break;
      await sleep(50);
    }
    const doneAt = performance.now();
    const modelWorkMs = busyMs(briefingServers) - busyBefore;

    const runs = await db
      .select({
        id: briefingRuns.id,
        userId: briefingRuns.userId,
        state: briefingRuns.state,
        reason: briefingRuns.reason,
        generatedAt: briefingRuns.generatedAt,
      })
      .from(briefingRuns);
    const sentAt = new Map(
      (await db.select({ runId: deliveries.runId, sentAt: deliveries.sentAt }).from(deliveries)).map(
        (row) => [row.runId, row.sentAt],
      ),
    );
    const postLagMs = runs.flatMap((run) => {
      const sent = sentAt.get(run.id);
      return sent && run.generatedAt ? [sent.getTime() - run.generatedAt.getTime()] : [];
    });
    const failures = new Map<string, number>();
    for (const run of runs) {
      if (run.state === "delivered") continue;
      const key = `${run.state}: ${(run.reason ?? "").replace(/\d{2,}/g, "N").slice(0, 140)}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
    let lost = 0;
    let incomplete = 0;
    let duplicates = 0;
    for (const user of created) {
      const posts = telegram.chat(chatOf.get(user.id) ?? 0).botMessages().length;
      const expected = longFor.has(user.id) ? 2 : 1;
      if (posts === 0) lost += 1;
      else if (posts < expected) incomplete += 1;
      duplicates += Math.max(0, posts - expected);
    }
    const sends = telegram.callsTo("sendMessage");
    const lostAnswers = sends.filter((call) => call.network === "drop-response");
    const unknownButDelivered = lostAnswers.filter(
      (call) => telegram.chat(Number(call.params.chat_id)).botMessages().length > 0,
    ).length;
    const requestsPerEndpoint: Record<string, number> = {};
    let kept = 0;
    for (const endpoints of turns.values()) {
      for (const endpoint of endpoints)
        requestsPerEndpoint[endpoint] = (requestsPerEndpoint[endpoint] ?? 0) + 1;
      if (endpoints[0] === endpoints[1]) kept += 1;
    }
    const messages = count + longFor.size;
    return {
      layout,
      database: bench.kind,
      briefingEndpoints,
      makespanMs: doneAt - tickAt,
      generationMs: lastGeneratedAt - tickAt,
      modelWorkMs,
      sendFloorMs: (messages / TELEGRAM_PACE.outboxPerSecond) * 1000 + FAULTS.globalFloodSeconds * 1000,
      requestsPerEndpoint,
      affinityKept: turns.size > 0 ? kept / turns.size : 0,
      delivered: runs.filter((run) => run.state === "delivered").length,
      lost,
      incomplete,
      duplicates,
      tooMany: {
        chat: sends.filter((call) => call.status === 429 && call.limitScope?.startsWith("chat:")).length,
        global: sends.filter((call) => call.status === 429 && call.limitScope === "global").length,
      },
      beforeRetryAfter: telegram.callsBeforeRetryAfter().length,
      outcomes,
      injected: {
        resets: sends.filter((call) => call.network === "reset-before-body").length,
        answersLost: lostAnswers.length,
        floods: sends.filter(
          (call) =>
            call.status === 429 &&
            call.description?.endsWith(`retry after ${FAULTS.globalFloodSeconds}`) &&
            !call.beforeRetryAfter,
        ).length,
      },
      unknownButDelivered,
      chatIdleMs,
      chatRushMs,
      peakPerSecond: peakPerSecond(sendTimes),
      failures,
      postLagMs,
    };
  } finally {
    transports.close();
    await telegram.close();
    await Promise.all(servers.map((server) => server.close()));
    await bench.dispose();
  }
}

const POSTGRES_URL = process.env.BRIEFBOT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A throwaway database on the PostgreSQL server, or embedded PGlite when none answers; migrated. */
async function benchDatabase(): Promise<{ open: OpenDatabase; kind: string; dispose(): Promise<void> }> {
  const name = `briefbot_bench_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin.unsafe(`create database ${name}`);
  } catch {
    await admin.end({ timeout: 1 }).catch(() => undefined);
    const open = await openDatabase({ dataDir: "memory://" });
    await open.migrate();
    return { open, kind: "embedded PGlite (no PostgreSQL server answered)", dispose: () => open.close() };
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const open = await openDatabase({ databaseUrl: url.toString(), dataDir: "" });
  await open.migrate();
  return {
    open,
    kind: `PostgreSQL ${url.host}`,
    async dispose() {
      await open.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Every Nth sendMessage fails on the network, and one global 429 lands in the middle of the rush. */
function injectFaults(telegram: TelegramTestServer, count: number): void {
  const calls = count * 1.2;
  for (let at = FAULTS.resetBeforeBodyEvery; at < calls; at += FAULTS.resetBeforeBodyEvery) {
    telegram.failNext({
      method: "sendMessage",
      network: "reset-before-body",
      after: FAULTS.resetBeforeBodyEvery - 1,
    });
  }
  for (let at = FAULTS.answerLostEvery; at < calls; at += FAULTS.answerLostEvery) {
    telegram.failNext({ method: "sendMessage", network: "drop-response", after: FAULTS.answerLostEvery - 1 });
  }
  telegram.failNext({
    method: "sendMessage",
    status: 429,
    retryAfter: FAULTS.globalFloodSeconds,
    scope: "global",
    after: FAULTS.globalFloodAt - 1,
  });
}

/** The bot only posts here (it never polls): anything asking the assistant would be a bench bug. */
const unusedAssistant = new Proxy({} as Assistant, {
  get: (_target, property) => {
    throw new Error(`the rush bench handles no updates, yet asked the assistant for ${String(property)}`);
  },
});

function startEndpoint(): Promise<OllamaTestServer> {
  return startOllamaServer({
    models: {
      [MODEL]: {
        reply: ({ request }) => {
          const opening = String(request.messages[0]?.content ?? "");
          if (opening.startsWith("chat")) {
            return {
              content: Array.from({ length: CHAT.tokens }, (_, index) => `w${index}`).join(" "),
              latency: { timeToFirstTokenMs: CHAT.timeToFirstTokenMs, perTokenMs: CHAT.perTokenMs },
            };
          }
          const prose = opening.endsWith("long") ? LONG_PROSE : SHORT_PROSE;
          const toolTurn = request.messages.length <= 2;
          return {
            content: toolTurn ? "Checked tasks, calendar and weather." : prose,
            latency: { timeToFirstTokenMs: BRIEFING_REQUEST_MS, perTokenMs: 0 },
          };
        },
      },
    },
  });
}

async function chatLatency(router: ModelRouter): Promise<number> {
  const startedAt = performance.now();
  await router.chat({ role: "interactive", messages: [{ role: "user", content: "chat: how is my day?" }] });
  return performance.now() - startedAt;
}

/** Time the endpoints spent serving requests (started → finished), from the servers' own events. */
function busyMs(servers: OllamaTestServer[]): number {
  let total = 0;
  for (const server of servers) {
    const started = new Map<number, number>();
    for (const event of server.events) {
      if (event.type === "started") started.set(event.request, event.at);
      if (event.type !== "finished" && event.type !== "failed") continue;
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

function percentile(samples: number[], share: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runFanoutBench({
    users: Number(process.argv[2] ?? 1000),
    ...(process.argv[3] ? { layouts: process.argv[3].split(",").map(Number) } : {}),
  });
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
