/**
 * The morning rush on real replicas: N `briefbot start` processes (dist/) on one PostgreSQL database,
 * Telegram in webhook mode and Slack in HTTP mode, both platforms' inbound traffic sent to one address (a
 * round-robin proxy in front of the replicas' ports), and users due at the minute the replicas come up.
 * The Telegram test server keeps Telegram's limits (30/s overall, 1/s per chat) and gives a few scripted
 * 429s with `retry_after`, as does the Slack one; both record every call's arrival, so what the replicas
 * did together is read off the platforms, not off the replicas.
 *
 * Used by test/replicas/three-replicas.test.ts (assertions) and bench/replicas.ts (figures).
 *
 * The kill: `kill -9` of one replica while it is generating. It is stopped (SIGSTOP) first and killed only
 * when none of its deliveries is mid-send: a post cut off in flight is, by design, failed rather than sent
 * again ("interrupted mid-send; not re-sent to avoid a duplicate" — neither platform takes an idempotency
 * key), so a kill there would make "delivered exactly once" a matter of luck. Such moments are counted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, inArray, like, sql } from "drizzle-orm";
import { briefingRuns, deliveries, identities, users } from "../../db/schema/index.ts";
import { SLACK_PACE, TELEGRAM_PACE } from "../../src/delivery/platform-transports.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { freePort, type RealRun, realBriefbot } from "../helpers/real-briefbot.ts";
import type { CallTiming } from "../servers/http.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { type RoundRobinProxy, startRoundRobinProxy } from "../servers/round-robin-proxy.ts";
import { type SlackServer, startSlackServer } from "../servers/slack-server.ts";
import { type ApiCall, startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";
import { batching } from "../servers/tool-habits.ts";

export const PROSE = "Good morning! Your calendar is clear today.";
const MODEL = "qwen2.5:7b";
const SIGNING_SECRET = "rush-signing-secret";
const WEBHOOK_SECRET = "rush-webhook-secret";
/** What the replicas register; the Telegram test server pushes to the proxy instead (TLS ends there). */
const PUBLIC_WEBHOOK_URL = "https://briefbot.example/telegram/webhook";
/** Telegram's own limits, enforced by the test server (ours are below them: TELEGRAM_PACE). */
const TELEGRAM_LIMITS = { global: { max: 30, windowMs: 1000 }, perChat: { max: 1, windowMs: 1000 } };

export interface RushOptions {
  replicas: number;
  users: number;
  /** `kill -9` one replica mid-rush and start it again. */
  killOne: boolean;
  /** Unlinked people writing to the bot after the kill, per platform, through the proxy. */
  inbound?: number;
  timeoutMs?: number;
}

export interface RushUser {
  id: number;
  platform: "telegram" | "slack";
  /** Telegram chat id or Slack user id. */
  account: string;
}

export interface RushResult {
  users: RushUser[];
  /** Briefing posts each user received at the platform. */
  postsPerUser: Map<number, number>;
  /** Runs per (user, slot, date) key, with their states. */
  runs: Array<{ key: string; state: string; claimedBy: string | null }>;
  deliveryStates: Record<string, number>;
  /** From the first replica's spawn to the last briefing post, and from the slot's tick to it. */
  spawnToLastPostMs: number;
  readyToLastPostMs: number;
  killedAfterPosts?: number;
  /** Times the chosen replica was mid-send when stopped, so let go and stopped again later. */
  killDeferrals: number;
  restartToAllDeliveredMs?: number;
  telegram: PlatformFigures;
  slack: PlatformFigures;
  inbound: { telegramAnswered: number; telegramSent: number; slackAcked: number; slackSent: number };
  proxy: { servedBy: number[]; unserved: number };
  /** Which replica sent each briefing (by owner), for "all did work". */
  sendersByOwner: Map<string, number>;
}

export interface PlatformFigures {
  sends: number;
  /** Most sends arriving within any one second, across all replicas (printed; arrivals bunch under load). */
  maxPerSecond: number;
  /**
   * Most sends arriving within any five seconds: what the test holds to the rate, since a process the CPU
   * starves between its turn at the limiter and the wire can deliver a second's sends late and together.
   */
  maxPerFiveSeconds: number;
  configuredPerSecond: number;
  /** Most sends to one chat/channel within any one second. */
  maxPerChatPerSecond: number;
  /** 429s the server gave: scripted ones and any the replicas earned. */
  tooMany: number;
  scripted429s: number;
  /** Sends that arrived while a 429 the server gave for their scope had not elapsed. */
  beforeRetryAfter: number;
  /** The 429s and the sends inside them, for a failure's message: when (ms since the first call), where. */
  limited: string[];
}

export async function runRush(options: RushOptions): Promise<RushResult> {
  const timeoutMs = options.timeoutMs ?? 150_000;
  const ports = await Promise.all(Array.from({ length: options.replicas }, () => freePort()));
  const proxy = await startRoundRobinProxy(ports);
  const rig = await startPlatforms(proxy);
  const scratch = mkdtempSync(join(tmpdir(), "briefbot-rush-"));
  const started: RealRun[] = [];
  const retired: RealRun[] = [];
  const briefbot = realBriefbot(scratch);
  try {
    const testDb = rig.database;
    const db = testDb.open.db;
    const rushUsers = await seedUsers(testDb, options.users, rig);
    rig.slack.setAppUrl(`${proxy.url}/slack/events`);

    const env = (port: number): Record<string, string> => ({
      DATABASE_URL: testDb.url ?? "",
      BRIEFBOT_DATA_DIR: join(scratch, `replica-${port}`),
      PORT: String(port),
      OLLAMA_HOST: rig.ollama.url,
      TELEGRAM_BOT_TOKEN: rig.telegram.token,
      TELEGRAM_API_ROOT: rig.telegram.url,
      TELEGRAM_WEBHOOK_URL: PUBLIC_WEBHOOK_URL,
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SLACK_BOT_TOKEN: rig.slack.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: rig.slack.apiUrl,
      ...(process.env.RUSH_LOGS ? { LOG_LEVEL: "info" } : {}),
    });
    const spawnedAt = performance.now();
    for (const port of ports) started.push(briefbot.run(["start"], env(port)));
    await Promise.all(started.map((replica) => replica.waitForStdout(summaryPrinted, "start-up summary")));
    const readyAt = performance.now();

    const briefingPosts = () => countBriefingPosts(rig, rushUsers);
    const total = () => [...briefingPosts().values()].reduce((sum, count) => sum + count, 0);
    const deadline = performance.now() + timeoutMs;
    const waitUntil = async (probe: () => Promise<boolean> | boolean, what: string) => {
      while (!(await probe())) {
        if (performance.now() > deadline) {
          const outputs = started
            .map((replica, index) => `replica ${index}:\n${replica.stderr()}`)
            .join("\n");
          throw new Error(`timed out waiting for ${what} (${total()} posts)\n${outputs}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    // Scripted 429s, once the rush is under way: a global one and a per-chat one on Telegram, one on Slack.
    const scripted = scriptRateLimits(rig, options.users);

    let killedAfterPosts: number | undefined;
    let killDeferrals = 0;
    const marks: Array<{ at: number; what: string }> = [];
    let restartedAt: number | undefined;
    if (options.killOne) {
      const victim = started[0] as RealRun;
      const pid = victim.child.pid as number;
      const ownerLike = `bot-%-${pid}-%`;
      await waitUntil(async () => {
        if (total() < Math.min(5, options.users)) return false;
        const [generating] = await db
          .select({ count: sql<number>`count(*)::int` })
          .from(briefingRuns)
          .where(
            and(
              inArray(briefingRuns.state, ["claimed", "generating"]),
              like(briefingRuns.claimedBy, ownerLike),
            ),
          );
        if ((generating?.count ?? 0) === 0) return false;
        victim.child.kill("SIGSTOP");
        marks.push({ at: performance.now(), what: "SIGSTOP replica 0" });
        const [sending] = await db
          .select({ count: sql<number>`count(*)::int` })
          .from(deliveries)
          .where(and(eq(deliveries.state, "sending"), like(deliveries.sendingBy, ownerLike)));
        if ((sending?.count ?? 0) > 0) {
          killDeferrals += 1;
          victim.child.kill("SIGCONT");
          return false;
        }
        victim.child.kill("SIGKILL");
        marks.push({ at: performance.now(), what: "SIGKILL replica 0" });
        return true;
      }, "a moment when replica 0 is generating and not mid-send");
      await victim.exited;
      killedAfterPosts = total();
      const again = briefbot.run(["start"], env(ports[0] as number));
      retired.push(victim);
      started[0] = again;
      await again.waitForStdout(summaryPrinted, "the restarted replica's summary");
      restartedAt = performance.now();
    }

    const inbound = await sendInbound(rig, options.inbound ?? 0);
    await waitUntil(() => total() >= rushUsers.length, "every briefing to be posted");
    const lastPostAt = performance.now();
    await waitUntil(async () => {
      const open = await db
        .select({ id: briefingRuns.id })
        .from(briefingRuns)
        .where(inArray(briefingRuns.state, ["claimed", "generating", "generated", "delivering"]));
      return open.length === 0;
    }, "every run to be settled");
    await scripted.done;
    // A late duplicate would come from a recovery pass: let every replica run one more after the last post.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    await waitUntil(() => inbound.settled(), "the inbound messages to be answered");

    const runs = await db
      .select({
        userId: briefingRuns.userId,
        slot: briefingRuns.slot,
        localDate: briefingRuns.localDate,
        state: briefingRuns.state,
        claimedBy: briefingRuns.claimedBy,
      })
      .from(briefingRuns);
    const rows = await db
      .select({ state: deliveries.state, sendingBy: deliveries.sendingBy })
      .from(deliveries);
    const deliveryStates: Record<string, number> = {};
    const sendersByOwner = new Map<string, number>();
    for (const row of rows) {
      deliveryStates[row.state] = (deliveryStates[row.state] ?? 0) + 1;
      const owner = row.sendingBy ?? "none";
      sendersByOwner.set(owner, (sendersByOwner.get(owner) ?? 0) + 1);
    }
    return {
      users: rushUsers,
      postsPerUser: briefingPosts(),
      runs: runs.map((run) => ({
        key: `${run.userId}|${run.slot}|${run.localDate}`,
        state: run.state,
        claimedBy: run.claimedBy,
      })),
      deliveryStates,
      spawnToLastPostMs: lastPostAt - spawnedAt,
      readyToLastPostMs: lastPostAt - readyAt,
      killDeferrals,
      ...(killedAfterPosts !== undefined ? { killedAfterPosts } : {}),
      ...(restartedAt !== undefined ? { restartToAllDeliveredMs: lastPostAt - restartedAt } : {}),
      telegram: telegramFigures(rig.telegram, scripted.telegram, marks),
      slack: slackFigures(rig.slack, scripted.slack),
      inbound: inbound.figures(),
      proxy: { servedBy: ports.map((port) => proxy.servedBy.get(port) ?? 0), unserved: proxy.unserved },
      sendersByOwner,
    };
  } finally {
    if (process.env.RUSH_LOGS) {
      const { writeFileSync } = await import("node:fs");
      for (const [index, replica] of [...retired, ...started].entries())
        writeFileSync(
          join(process.env.RUSH_LOGS, `replica-${index}.log`),
          replica.stdout() + replica.stderr(),
        );
    }
    briefbot.killAll();
    await Promise.allSettled(started.map((replica) => replica.exited));
    await rig.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const summaryPrinted = (stdout: string) => stdout.includes("  syncs      ");

interface Platforms {
  database: TestDatabase;
  ollama: OllamaTestServer;
  telegram: TelegramTestServer;
  slack: SlackServer;
  proxy: RoundRobinProxy;
  close(): Promise<void>;
}

async function startPlatforms(proxy: RoundRobinProxy): Promise<Platforms> {
  const wanted = [
    { name: "list_tasks", arguments: { filter: "due_today" } },
    { name: "list_events", arguments: { range: "today" } },
  ];
  const ollama = await startOllamaServer({
    models: { [MODEL]: { reply: batching(wanted, PROSE) } },
    latency: { timeToFirstTokenMs: 15, perTokenMs: 1 },
    parallel: 4,
  });
  const telegram = await startTelegramServer({ autoCreateChats: true, webhookOrigin: proxy.url });
  telegram.setRateLimits(TELEGRAM_LIMITS);
  const slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
  const database = await createTestDatabase("postgres");
  const platforms: Platforms = {
    database,
    ollama,
    telegram,
    slack,
    proxy,
    async close() {
      await proxy.close();
      await Promise.allSettled([telegram.close(), slack.close(), ollama.close()]);
      await database.dispose();
    },
  };
  return platforms;
}

/** Half on Telegram, half on Slack, all in UTC with the morning slot at this minute (due at once). */
async function seedUsers(testDb: TestDatabase, count: number, rig: Platforms): Promise<RushUser[]> {
  const db = testDb.open.db;
  const now = new Date();
  const slot = `${String(now.getUTCHours()).padStart(2, "0")}:${String(now.getUTCMinutes()).padStart(2, "0")}`;
  const created = await db
    .insert(users)
    .values(
      Array.from({ length: count }, (_, index) => ({
        name: `rush-${index}`,
        timeZone: "UTC",
        slots: { morning: slot, midday: null, afternoon: null, evening: null },
        createdAt: new Date(now.getTime() - 86_400_000),
      })),
    )
    .returning({ id: users.id });
  const rushUsers: RushUser[] = created.map((user, index) =>
    index % 2 === 0
      ? { id: user.id, platform: "telegram", account: String(7_000_000 + index) }
      : { id: user.id, platform: "slack", account: `U0RUSH${index}` },
  );
  await db.insert(identities).values(
    rushUsers.map((user) => ({
      userId: user.id,
      platform: user.platform,
      externalUserId: user.account,
      ...(user.platform === "telegram" ? { chatId: user.account } : {}),
    })),
  );
  for (const user of rushUsers) {
    if (user.platform === "slack") rig.slack.addUser({ id: user.account, name: `rush ${user.account}` });
  }
  return rushUsers;
}

/** Briefing posts per user: Telegram messages in their chat, Slack thread parents in their DM. */
function countBriefingPosts(rig: Platforms, rushUsers: RushUser[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const user of rushUsers) {
    const posts =
      user.platform === "telegram"
        ? rig.telegram
            .chat(Number(user.account))
            .botMessages()
            .filter((post) => post.text.includes(PROSE))
        : rig.slack.posts.filter(
            (post) =>
              post.channel === rig.slack.dmChannelOf(user.account) &&
              post.threadTs === undefined &&
              post.history[0]?.text.includes(PROSE),
          );
    counts.set(user.id, posts.length);
  }
  return counts;
}

interface Scripted {
  telegram: number;
  slack: number;
  done: Promise<void>;
}

/**
 * A global 429 (retry_after 2) on Telegram after a fifth of its users' briefings, a per-chat one (retry_after
 * 3) after two fifths; on Slack a chat.postMessage 429 (Retry-After 2) once a fifth of its posts are in.
 */
function scriptRateLimits(rig: Platforms, count: number): Scripted {
  const fifth = Math.max(1, Math.floor(count / 2 / 5));
  rig.telegram.failNext({ method: "sendMessage", status: 429, retryAfter: 2, scope: "global", after: fifth });
  rig.telegram.failNext({
    method: "sendMessage",
    status: 429,
    retryAfter: 3,
    scope: "chat",
    after: 2 * fifth,
  });
  const done = (async () => {
    await rig.slack.waitForPost(() => rig.slack.posts.length >= fifth, 120_000).catch(() => undefined);
    rig.slack.rateLimit("chat.postMessage", { times: 1, retryAfterSec: 2 });
  })();
  return { telegram: 2, slack: 1, done };
}

interface Inbound {
  settled(): boolean;
  figures(): RushResult["inbound"];
}

/** Unlinked people write `/receipts` on both platforms; each platform delivers it through the proxy. */
async function sendInbound(rig: Platforms, count: number): Promise<Inbound> {
  const telegramIds = Array.from({ length: count }, (_, index) => 8_100_000 + index);
  for (const id of telegramIds) {
    rig.telegram.addChat({ id, first_name: `Guest${id}` });
    rig.telegram.sendUserMessage({ id, first_name: `Guest${id}` }, "/receipts");
  }
  const acks = await Promise.all(
    Array.from({ length: count }, (_, index) => rig.slack.sendCommand("/receipts", "", `U0GUEST${index}`)),
  );
  const answered = () => telegramIds.filter((id) => rig.telegram.chat(id).botMessages().length > 0).length;
  return {
    settled: () => answered() >= count,
    figures: () => ({
      telegramSent: count,
      telegramAnswered: telegramIds.filter((id) => rig.telegram.chat(id).botMessages().length === 1).length,
      slackSent: count,
      slackAcked: acks.filter((ack) => ack.status === 200).length,
    }),
  };
}

const TELEGRAM_SENDING = new Set([
  "sendmessage",
  "senddocument",
  "editmessagetext",
  "editmessagereplymarkup",
]);

function telegramFigures(
  server: TelegramTestServer,
  scripted429s: number,
  marks: Array<{ at: number; what: string }>,
): PlatformFigures {
  const sends = server.calls.filter((call) => TELEGRAM_SENDING.has(call.method));
  const chatOf = (call: ApiCall) => String(call.params.chat_id);
  return {
    sends: sends.length,
    maxPerSecond: maxInWindow(
      sends.map((call) => call.receivedAt),
      1000,
    ),
    maxPerFiveSeconds: maxInWindow(
      sends.map((call) => call.receivedAt),
      5000,
    ),
    configuredPerSecond: TELEGRAM_PACE.overallPerSecond,
    maxPerChatPerSecond: maxPerKey(sends, chatOf),
    tooMany: server.calls.filter((call) => call.status === 429).length,
    scripted429s,
    beforeRetryAfter: server.callsBeforeRetryAfter().length,
    limited: [
      ...describeLimited(server.calls, chatOf),
      ...marks.map((mark) => `${(mark.at - (server.calls[0]?.receivedAt ?? 0)).toFixed(0)} ms: ${mark.what}`),
    ],
  };
}

function slackFigures(server: SlackServer, scripted429s: number): PlatformFigures {
  const posts = server.calls.filter((call) => call.method === "chat.postMessage");
  return {
    sends: posts.length,
    maxPerSecond: maxInWindow(
      posts.map((call) => call.receivedAt),
      1000,
    ),
    maxPerFiveSeconds: maxInWindow(
      posts.map((call) => call.receivedAt),
      5000,
    ),
    configuredPerSecond: SLACK_PACE.outboxPerSecond,
    maxPerChatPerSecond: maxPerKey(posts, (call) => String(call.args.channel)),
    tooMany: server.calls.filter((call) => call.status === 429).length,
    scripted429s,
    beforeRetryAfter: server.callsBeforeRetryAfter().length,
    limited: describeLimited(server.calls, (call) => String(call.args.channel)),
  };
}

function describeLimited<T extends CallTiming & { method: string }>(
  calls: T[],
  where: (call: T) => string,
): string[] {
  const origin = calls[0]?.receivedAt ?? 0;
  const ms = (at: number | undefined) => (at === undefined ? "-" : (at - origin).toFixed(0));
  return calls
    .filter((call) => call.retryAfter !== undefined || call.beforeRetryAfter)
    .map(
      (call) =>
        `${ms(call.receivedAt)} ms ${call.method} ${where(call)}: ${call.beforeRetryAfter ? "INSIDE a closed scope, " : ""}` +
        `429 retry_after ${call.retryAfter ?? "-"} on ${call.limitScope ?? "-"}, answered at ${ms(call.answeredAt)} ms`,
    );
}

function maxPerKey<T extends { receivedAt: number }>(calls: T[], keyOf: (call: T) => string): number {
  const byKey = new Map<string, number[]>();
  for (const call of calls) byKey.set(keyOf(call), [...(byKey.get(keyOf(call)) ?? []), call.receivedAt]);
  return Math.max(0, ...[...byKey.values()].map((times) => maxInWindow(times, 1000)));
}

/** The most instants inside any half-open window `[t, t + windowMs)`. */
export function maxInWindow(instants: number[], windowMs: number): number {
  const sorted = [...instants].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while ((sorted[end] as number) - (sorted[start] as number) >= windowMs) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}
