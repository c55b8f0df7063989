/**
 * The soak suite's runner: the compiled binary started as a user starts it (`node bin/briefbot.js start`,
 * settings in the environment and a `BRIEFBOT_CONFIG` file, the embedded database unless a PostgreSQL
 * database is asked for), against the Telegram, Slack and Ollama test servers, with production timers, for
 * minutes of wall time. In one run: users with several slots falling due, CLI changes while it runs (a user
 * added and linked, a slot moved), one graceful restart, one `kill -9`, and an outage of the platform in
 * which `/healthz` must go 503 and come back to 200 by itself.
 *
 * Sampled every second: `/healthz`, the process's RSS (`/proc/<pid>/status`), the worst event-loop delay
 * since the last sample (`/metrics`). Counted: error-level log lines, overlapping `getUpdates`, deliveries
 * per (user, slot, date) at the platform server and in the database. Used by test/soak/soak.test.ts
 * (the short form, assertions) and test/soak/run.ts (`npm run soak`, the long form, figures).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type DatabaseConfig, openDatabase } from "../../db/client.ts";
import { briefingRuns, deliveries, identities, users } from "../../db/schema/index.ts";
import { freePort, type RealRun, realBriefbot } from "../helpers/real-briefbot.ts";
import { seed } from "../replicas/kill-loop.ts";
import type { OutageKind } from "../servers/http.ts";
import { startOllamaServer } from "../servers/ollama-server.ts";
import { type SlackServer, startSlackServer } from "../servers/slack-server.ts";
import { startSlackSocketModeServer } from "../servers/slack-socket-mode.ts";
import { startTelegramServer } from "../servers/telegram-server.ts";
import { type AccountsResult, soakModel, startAccountsSoak } from "./accounts.ts";

export const SOAK_MODES = ["telegram-polling", "telegram-webhook", "slack-http", "slack-socket"] as const;
export type SoakMode = (typeof SOAK_MODES)[number];

const MODEL = "qwen2.5:7b";
// Words true of every user's day, so grounding keeps them whatever the accounts hold.
const PROSE = "Good morning! Here is your briefing.";
const SLOTS = ["morning", "midday", "afternoon", "evening"] as const;
const MINUTE = 60_000;

export interface SoakOptions {
  mode: SoakMode;
  /**
   * Wall time of the run: the restart, the kill and the outage are spread over it from the first start on;
   * it ends once it has passed and every slot that fell due is delivered.
   */
  durationMs: number;
  /** How long the platform is down (at least: it stays down until the bot's `/healthz` has said so). */
  outageMs: number;
  outageKind?: OutageKind;
  /** Seeded users, each with three slots inside the run (and one moved into it by the CLI for the first). */
  users?: number;
  /** `postgres`: a fresh database on this server (DATABASE_URL); default the embedded PGlite folder. */
  postgresUrl?: string | undefined;
  /** Progress lines (the long form prints them). */
  log?: (line: string) => void;
  /** A user with a CalDAV account and one with a Todoist account (test/soak/accounts.ts); default true. */
  accounts?: boolean;
}

export type HealthReading = number | "down" | "timeout";
export type Phase = "starting" | "running" | "stopping" | "outage";

export interface Sample {
  /** ms since the first spawn */
  at: number;
  /** The run's phase while the sample was taken; "transition" when it changed meanwhile. */
  phase: Phase | "transition";
  health: HealthReading;
  rssKb?: number | undefined;
  loopDelaySeconds?: number | undefined;
  /** How long `/healthz` took to answer. */
  ms: number;
}

export interface SoakResult {
  mode: SoakMode;
  database: "pglite" | "postgres";
  minutesRun: number;
  /** (user, slot, date) keys that fell due inside the run, by the users' settings at the end. */
  slotsDue: number;
  /** Due keys posted on the platform and recorded delivered in the database. */
  slotsDelivered: number;
  /** Posts beyond one per key, and posts of the briefing no delivery row accounts for. */
  duplicates: number;
  /** Due keys not delivered, with what the database says of them. */
  missing: string[];
  /** Graceful restarts and `kill -9`s, each followed by a start. */
  restarts: { graceful: number; killed: number };
  samples: number;
  /** Samples taken while the process ran and no outage or restart was going on. */
  healthySamples: number;
  /** Share of those that answered 200. */
  share200: number;
  /** Those that did not, as `at ms: reading`. */
  unhealthy: string[];
  outage: { ms: number; seen503: boolean; recovered: boolean; recoveredAfterMs: number | undefined };
  /** Error-level (≥ 50) log lines outside the outage, in full. */
  errorLines: string[];
  errorLinesDuringOutage: number;
  overlappingPolls: number;
  peakRssMb: number;
  worstLoopDelaySeconds: number;
  /** The same, leaving out start-ups (opening the database and migrating block the loop by design). */
  worstLoopDelayRunningSeconds: number;
  /** Exit codes of the graceful stops (0 expected). */
  stopCodes: Array<number | null>;
  /** Checks before the kill -9 that found a briefing being written or sent (the kill waited). */
  killDeferrals: number;
  /** The slowest `/healthz` answer of the samples (a stalled event loop answers late). */
  slowestHealthMs: number;
  /** The same, leaving out start-ups. */
  slowestHealthRunningMs: number;
  /** What happened when, in seconds from the first spawn. */
  timeline: string[];
  /** The account users' figures, when the run had them. */
  accounts?: AccountsResult | undefined;
}

/** What a platform test server gives the run: the bot's settings, its accounts, its posts, its outage. */
interface PlatformRig {
  env: Record<string, string>;
  platform: "telegram" | "slack";
  /** The `briefbot user link` flag for this platform. */
  linkFlag: "--telegram" | "--slack";
  /** Make an account known to the platform (a Telegram user who started the bot; a Slack workspace member). */
  addAccount(account: string): void;
  /** The account writes to the bot in its direct chat. */
  userSays(account: string, text: string): Promise<void>;
  /** The bot's posts carrying the briefing, with where they went and the id the platform gave them. */
  briefingPosts(): Array<{ target: string; messageId: string }>;
  outage(on: boolean, kind: OutageKind): void;
  overlappingPolls(): number;
  close(): Promise<void>;
}

const WEBHOOK_SECRET = "soak-webhook-secret";
const SIGNING_SECRET = "soak-signing-secret";

/** One rig per mode: the platform test server (and, for Socket Mode, its WebSocket side) the bot talks to. */
async function startRig(mode: SoakMode, port: number): Promise<PlatformRig> {
  if (mode === "telegram-polling" || mode === "telegram-webhook") {
    const webhook = mode === "telegram-webhook";
    const telegram = await startTelegramServer(webhook ? { webhookOrigin: `http://127.0.0.1:${port}` } : {});
    return {
      platform: "telegram",
      linkFlag: "--telegram",
      env: {
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.url,
        ...(webhook
          ? {
              TELEGRAM_WEBHOOK_URL: "https://briefbot.example/telegram/webhook",
              TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
            }
          : {}),
      },
      addAccount: (account) => telegram.addChat({ id: Number(account), first_name: `User${account}` }),
      userSays: async (account, text) => {
        telegram.sendUserMessage(Number(account), text);
      },
      briefingPosts: () =>
        telegram.sent
          .filter((post) => !post.deleted && post.text.includes(PROSE))
          .map((post) => ({ target: String(post.chatId), messageId: String(post.messageId) })),
      outage: (on, kind) => telegram.outage(on, kind),
      overlappingPolls: () => telegram.pollStats().overlaps,
      close: () => telegram.close(),
    };
  }
  if (mode === "slack-http") {
    const slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
    slack.setAppUrl(`http://127.0.0.1:${port}/slack/events`);
    return {
      ...slackRig(slack),
      userSays: async (account, text) => {
        await slack.sendEvent(slackDm(slack, account, text), { eventId: nextEventId() });
      },
      env: {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
      },
      outage: (on, kind) => slack.outage(on, kind),
      overlappingPolls: () => 0,
      close: () => slack.close(),
    };
  }
  const slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
  const socket = await startSlackSocketModeServer({ slack });
  return {
    ...slackRig(slack),
    userSays: async (account, text) => {
      await socket.sendEvent(slackDm(slack, account, text), { eventId: nextEventId() });
    },
    env: { SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: socket.appToken, SLACK_API_URL: slack.apiUrl },
    // Slack down is both halves down: the Web API and the socket side (open links die, upgrades refused).
    outage: (on, kind) => {
      slack.outage(on, kind);
      socket.setReachable(!on);
    },
    // Socket Mode allows one link per app: two at once would be this mode's overlapping polls.
    overlappingPolls: () => Math.max(0, socket.stats().peak - 1),
    close: async () => {
      await socket.close();
      await slack.close();
    },
  };
}

let nextEvent = 0;
const nextEventId = () => {
  nextEvent += 1;
  return `EvSoak${nextEvent}`;
};

/** A direct message from a workspace member, as Slack's Events API carries it. */
function slackDm(slack: SlackServer, user: string, text: string): Record<string, unknown> {
  return {
    type: "message",
    channel: slack.dmChannelOf(user),
    channel_type: "im",
    user,
    text,
    ts: `${Math.floor(Date.now() / 1000)}.${String(nextEvent).padStart(6, "0")}`,
  };
}

/** What both Slack modes read off the Slack test server. */
function slackRig(
  slack: SlackServer,
): Omit<PlatformRig, "env" | "outage" | "overlappingPolls" | "close" | "userSays"> {
  return {
    platform: "slack",
    linkFlag: "--slack",
    addAccount: (account) => slack.addUser({ id: account, name: `soak ${account}` }),
    briefingPosts: () =>
      slack.posts
        .filter((post) => post.threadTs === undefined && JSON.stringify(post.history).includes(PROSE))
        .map((post) => ({ target: post.channel, messageId: post.ts })),
  };
}

/** A fresh database on a PostgreSQL server, dropped by `dispose`. */
async function freshPostgres(serverUrl: string): Promise<{ url: string; dispose(): Promise<void> }> {
  const name = `briefbot_soak_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async dispose() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const hhmm = (at: number) => {
  const date = new Date(at);
  return `${String(date.getUTCHours()).padStart(2, "0")}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
};

async function probe(
  url: string,
  timeoutMs: number,
): Promise<{ status: HealthReading; body: string; ms: number }> {
  const begun = performance.now();
  const ms = () => Math.round(performance.now() - begun);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await response.text();
    return { status: response.status, body, ms: ms() };
  } catch (error) {
    const name = (error as { name?: string }).name;
    return { status: name === "TimeoutError" ? "timeout" : "down", body: "", ms: ms() };
  }
}

/**
 * Waits (up to a minute) until no briefing is being written or sent, and it is not about to be: outside
 * the first seconds of a minute, when slots fall due. Returns how many checks found work in flight.
 */
async function quietMoment(database: DatabaseConfig): Promise<number> {
  const until = performance.now() + 60_000;
  let busy = 0;
  for (;;) {
    const second = new Date().getUTCSeconds();
    const inFlight = await withDatabase(database, async ({ db }) => {
      const runs = await db.select({ state: briefingRuns.state }).from(briefingRuns);
      const sends = await db.select({ state: deliveries.state }).from(deliveries);
      return (
        runs.some((run) => ["claimed", "generating", "generated"].includes(run.state)) ||
        sends.some((send) => send.state === "pending" || send.state === "sending")
      );
    });
    if ((!inFlight && second >= 15 && second <= 45) || performance.now() > until) return busy;
    if (inFlight) busy += 1;
    await pause(1_000);
  }
}

function rssKbOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => {});
  const timeline: string[] = [];
  const say = (line: string) => {
    timeline.push(`${(since() / 1000).toFixed(0)} s: ${line}`);
    log(`[${options.mode}] ${line}`);
  };
  const outageKind = options.outageKind ?? "5xx";
  const userCount = options.users ?? 3;
  const scratch = mkdtempSync(join(tmpdir(), `briefbot-soak-${options.mode}-`));
  const dataDir = join(scratch, "data");
  const port = await freePort();
  const ollama = await startOllamaServer({
    models: {
      [MODEL]: {
        reply: soakModel(PROSE),
      },
    },
    latency: { timeToFirstTokenMs: 100, perTokenMs: 5 },
    parallel: 2,
  });
  const rig = await startRig(options.mode, port).catch(async (error: unknown) => {
    await ollama.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  });
  const postgresDb = options.postgresUrl ? await freshPostgres(options.postgresUrl) : undefined;
  const database: DatabaseConfig = { dataDir, ...(postgresDb ? { databaseUrl: postgresDb.url } : {}) };

  // The CLI's output, for the secrets check.
  const cliOutputs: string[] = [];
  let briefbot: ReturnType<typeof realBriefbot> | undefined;
  const cli = async (...args: string[]) => {
    const { code, stdout, stderr } = await (briefbot as ReturnType<typeof realBriefbot>).command(...args);
    cliOutputs.push(stdout, stderr);
    if (code !== 0) throw new Error(`briefbot ${args.join(" ")} exited ${code}\n${stdout}\n${stderr}`);
  };
  const accountUsers =
    rig.platform === "telegram"
      ? { caldav: "6000501", todoist: "6000502" }
      : { caldav: "U0SOAKCAL", todoist: "U0SOAKTOD" };
  const accounts =
    options.accounts === false
      ? undefined
      : await startAccountsSoak({
          withDatabase,
          database,
          scratch,
          cli,
          platform: rig.platform,
          platformAccounts: accountUsers,
          userSays: (account, text) => rig.userSays(account, text),
          say: (line) => say(line),
        });

  const configPath = join(scratch, "briefbot.json");
  const route = { endpoint: "local", model: MODEL };
  writeFileSync(
    configPath,
    JSON.stringify({
      endpoints: [{ name: "local", url: ollama.url, concurrency: 2 }],
      routes: { interactive: route, briefing: route, background: route },
      ...accounts?.config,
    }),
  );
  briefbot = realBriefbot(dataDir, {
    BRIEFBOT_CONFIG: configPath,
    LOG_LEVEL: "info",
    ...(postgresDb ? { DATABASE_URL: postgresDb.url } : {}),
    ...accounts?.env,
  });
  const metricsLeaks: string[] = [];

  const processes: RealRun[] = [];
  let current: RealRun | undefined;
  let phase: Phase = "starting";
  const samples: Sample[] = [];
  let sampling = true;
  const startedAt = performance.now();
  const startedWall = Date.now();
  const since = () => Math.round(performance.now() - startedAt);
  let outageFrom: number | undefined;
  let outageUntil: number | undefined;
  let recoveredAt: number | undefined;
  const restarts = { graceful: 0, killed: 0 };
  const stopCodes: Array<number | null> = [];
  let killDeferrals = 0;

  const healthUrl = `http://127.0.0.1:${port}/healthz`;
  const sampler = (async () => {
    while (sampling) {
      const begun = performance.now();
      const phaseAtStart = phase;
      const at = since();
      // A generous bound: a late answer is a figure (slowestHealthMs), not a failed sample.
      const [health, metrics] = await Promise.all([
        probe(healthUrl, 10_000),
        probe(`http://127.0.0.1:${port}/metrics`, 10_000),
      ]);
      const delay = /^briefbot_event_loop_delay_max_seconds (\S+)$/m.exec(metrics.body)?.[1];
      for (const secret of accounts?.secrets ?? [])
        if (metrics.body.includes(secret) || health.body.includes(secret))
          metricsLeaks.push(`at ${at} ms: a secret in /metrics or /healthz`);
      samples.push({
        at,
        phase: phase === phaseAtStart ? phaseAtStart : "transition",
        health: health.status,
        rssKb: rssKbOf(current?.child.pid),
        loopDelaySeconds: delay === undefined ? undefined : Number(delay),
        ms: health.ms,
      });
      await pause(1_000 - (performance.now() - begun));
    }
  })();

  const healthIs = async (wanted: (status: HealthReading) => boolean, timeoutMs: number, what: string) => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const { status, body } = await probe(healthUrl, 3_000);
      if (wanted(status)) return;
      if (performance.now() > deadline)
        throw new Error(
          `soak ${options.mode}: ${what} not seen within ${timeoutMs} ms (last ${status}: ${body})`,
        );
      await pause(250);
    }
  };

  const start = async () => {
    phase = "starting";
    const run = (briefbot as ReturnType<typeof realBriefbot>).run(["start"], {
      PORT: String(port),
      ...rig.env,
    });
    processes.push(run);
    current = run;
    await run.waitForStdout((stdout) => stdout.includes("  syncs      "), "the start-up summary", 120_000);
    await healthIs((status) => status === 200, 120_000, "a 200 from /healthz after start");
    phase = "running";
    say(`process ${processes.length} (pid ${run.child.pid}) up at ${(since() / 1000).toFixed(0)} s`);
  };

  try {
    // Slots from the wall clock: the run's minutes, the first due at once, the last well before the end.
    // seed() sets each slot at this minute plus its offset.
    const firstMinute = Math.floor(Date.now() / MINUTE) * MINUTE;
    const lastMinute = Math.max(
      firstMinute + MINUTE,
      Math.floor((startedWall + options.durationMs - 45_000) / MINUTE) * MINUTE,
    );
    const span = (lastMinute - firstMinute) / MINUTE;
    const seeded = await seed(
      database,
      {
        users: userCount,
        slots: 3,
        namePrefix: "soak",
        platform: rig.platform,
        // Three slots spread over the run, each user shifted a little; the first user's evening slot
        // an hour away, for the CLI to move into the run.
        slotMinutes: (index) => [
          Math.min(span, index % 2),
          Math.round(span / 2),
          Math.max(0, span - (index % 2)),
          index === 0 ? 60 : null,
        ],
      },
      [],
    );
    for (const { account } of seeded) rig.addAccount(account);
    if (accounts) {
      rig.addAccount(accountUsers.caldav);
      rig.addAccount(accountUsers.todoist);
      await accounts.prepare();
    }

    await start();
    // The run's events are spread from here: a first start on a loaded machine may take a minute or more.
    const upAt = performance.now();
    say(`slots from ${hhmm(firstMinute)} to ${hhmm(lastMinute)} UTC`);
    let settle: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    // The other client's rounds while the rest goes on; the chat ask once the outage is over.
    const client = accounts?.client(
      Date.now() + (upAt + options.durationMs * 0.85 - performance.now()),
      settled,
    );
    client?.catch(() => undefined);

    // One graceful restart.
    await pause(upAt + options.durationMs * 0.1 - performance.now());
    {
      const run = current as RealRun;
      phase = "stopping";
      say("SIGTERM");
      run.child.kill("SIGTERM");
      stopCodes.push(await run.exitCode(60_000));
      say(`exited ${stopCodes.at(-1)}`);
      restarts.graceful += 1;
      await start();
    }

    // One kill -9.
    await pause(upAt + options.durationMs * 0.25 - performance.now());
    {
      const run = current as RealRun;
      // Never mid-send: a post cut off by kill -9 may or may not have reached the chat, and the outbox
      // rightly never sends it again (at most once), so "exactly once" holds only for what was not in flight.
      killDeferrals = await quietMoment(database);
      phase = "stopping";
      say(`kill -9${killDeferrals > 0 ? ` (after ${killDeferrals} checks found work in flight)` : ""}`);
      run.child.kill("SIGKILL");
      await run.exited;
      restarts.killed += 1;
      await start();
    }

    // CLI changes while it runs (during the outage: the database is up, only the platform is down): a user
    // added and linked, whose slot is the next minute; a slot moved into the run.
    const lateAccount = rig.platform === "telegram" ? "6000999" : "U0SOAKLATE";
    rig.addAccount(lateAccount);
    let lastDueMinute = lastMinute;
    const cliChanges = async () => {
      const off = ["--slot", "midday=off", "--slot", "afternoon=off", "--slot", "evening=off"];
      await cli("user", "add", "soak-late", "--tz", "UTC", "--slot", "morning=off", ...off);
      await cli("user", "link", "soak-late", rig.linkFlag, lateAccount);
      // Its slot once it is linked: a slot due before the link would be written for no platform.
      const lateMinute = (Math.floor(Date.now() / MINUTE) + 1) * MINUTE;
      lastDueMinute = Math.max(lastMinute, lateMinute);
      await cli("user", "set", "soak-late", "--slot", `morning=${hhmm(lateMinute)}`);
      await cli("user", "set", "soak-0", "--slot", `evening=${hhmm(lastMinute)}`);
      say(
        `CLI: soak-late added, linked, morning at ${hhmm(lateMinute)}; soak-0's evening moved to ${hhmm(lastMinute)}`,
      );
    };

    // The platform goes down; it comes back once the outage has lasted its time and the bot has said so.
    await pause(Math.max(5_000, upAt + options.durationMs * 0.4 - performance.now()));
    phase = "outage";
    outageFrom = Date.now();
    rig.outage(true, outageKind);
    say(`outage (${outageKind}) from ${(since() / 1000).toFixed(0)} s`);
    const outageStarted = performance.now();
    const changed = cliChanges();
    await pause(options.outageMs);
    await healthIs((status) => status === 503, 150_000, "a 503 from /healthz during the outage").then(
      () => say("503"),
      (error: unknown) => say(String(error)),
    );
    // A little longer, so the bot's retries meet the outage too and not only its first failure.
    await pause(Math.min(5_000, options.outageMs / 4));
    await changed;
    rig.outage(false, outageKind);
    const outageMs = Math.round(performance.now() - outageStarted);
    outageUntil = Date.now();
    say(`outage over after ${(outageMs / 1000).toFixed(0)} s`);
    const offAt = performance.now();
    await healthIs((status) => status === 200, 180_000, "a 200 from /healthz after the outage").then(
      () => {
        recoveredAt = Date.now();
        say("200 again");
      },
      (error: unknown) => say(String(error)),
    );
    const recoveredAfterMs = recoveredAt === undefined ? undefined : Math.round(performance.now() - offAt);
    phase = "running";
    settle();
    if (client) {
      await client;
      lastDueMinute = Math.max(lastDueMinute, accounts?.lastSlotMinute() ?? 0);
    }

    // Until the run's time is up and every slot that fell due is delivered (or a bound passes).
    const dueKeys = async () => expectedKeys(database, firstMinute, lastDueMinute, rig.platform);
    await pause(upAt + options.durationMs * 0.9 - performance.now());
    const settleBy = performance.now() + 180_000;
    for (;;) {
      const due = await dueKeys();
      const delivered = await deliveredKeys(database);
      if ([...due].every((key) => delivered.has(key)) || performance.now() > settleBy) break;
      await pause(2_000);
    }
    say("every due slot delivered (or the bound passed); SIGTERM");
    {
      const run = current as RealRun;
      phase = "stopping";
      run.child.kill("SIGTERM");
      stopCodes.push(await run.exitCode(60_000));
    }
    say(`exited ${stopCodes.at(-1)}`);
    sampling = false;
    await sampler;

    const minutesRun = (performance.now() - startedAt) / MINUTE;
    const due = await dueKeys();
    const runs = await runRecords(database);
    const posts = rig.briefingPosts();
    const postsByKey = new Map<string, number>();
    let unaccounted = 0;
    for (const post of posts) {
      const run = runs.find((entry) => entry.target === post.target && entry.messageId === post.messageId);
      if (!run) unaccounted += 1;
      else postsByKey.set(run.key, (postsByKey.get(run.key) ?? 0) + 1);
    }
    const duplicates = unaccounted + [...postsByKey.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    const deliveredInDb = new Set(runs.filter((run) => run.state === "delivered").map((run) => run.key));
    const missing = [...due]
      .filter((key) => !(deliveredInDb.has(key) && (postsByKey.get(key) ?? 0) >= 1))
      .map((key) => {
        const run = runs.find((entry) => entry.key === key);
        return `${key}: ${run ? `${run.state}${run.reason ? ` (${run.reason})` : ""}` : "no run"}, ${postsByKey.get(key) ?? 0} posts`;
      });

    const healthy = samples.filter((sample) => sample.phase === "running");
    const inOutage = (time: number) =>
      outageFrom !== undefined &&
      time >= outageFrom &&
      time <= (recoveredAt ?? outageUntil ?? Date.now()) + 2_000;
    const errorLines: string[] = [];
    let errorLinesDuringOutage = 0;
    for (const run of processes) {
      for (const line of `${run.stdout()}\n${run.stderr()}`.split("\n")) {
        const entry = parseLogLine(line);
        if (!entry || entry.level < 50) continue;
        if (inOutage(entry.time)) errorLinesDuringOutage += 1;
        else errorLines.push(line);
      }
    }
    const logLines = [
      ...processes.flatMap((run) => `${run.stdout()}\n${run.stderr()}`.split("\n")),
      ...cliOutputs.flatMap((output) => output.split("\n")),
    ];
    const accountFigures = await accounts?.result(logLines, metricsLeaks);
    const rss = samples.map((sample) => sample.rssKb ?? 0);
    const delays = samples.map((sample) => sample.loopDelaySeconds ?? 0);
    return {
      mode: options.mode,
      database: postgresDb ? "postgres" : "pglite",
      minutesRun,
      slotsDue: due.size,
      slotsDelivered: due.size - missing.length,
      duplicates,
      missing,
      restarts,
      samples: samples.length,
      healthySamples: healthy.length,
      share200:
        healthy.length === 0 ? 0 : healthy.filter((sample) => sample.health === 200).length / healthy.length,
      unhealthy: healthy
        .filter((sample) => sample.health !== 200)
        .map((sample) => `${sample.at} ms: ${sample.health}`),
      outage: {
        ms: outageMs,
        seen503: samples.some((sample) => sample.phase === "outage" && sample.health === 503),
        recovered: recoveredAt !== undefined,
        recoveredAfterMs,
      },
      errorLines,
      errorLinesDuringOutage,
      overlappingPolls: rig.overlappingPolls(),
      peakRssMb: Math.max(0, ...rss) / 1024,
      worstLoopDelaySeconds: Math.max(0, ...delays),
      worstLoopDelayRunningSeconds: Math.max(
        0,
        ...samples
          .filter((sample) => sample.phase === "running" || sample.phase === "outage")
          .map((sample) => sample.loopDelaySeconds ?? 0),
      ),
      stopCodes,
      killDeferrals,
      slowestHealthMs: Math.max(0, ...samples.map((sample) => sample.ms)),
      slowestHealthRunningMs: Math.max(
        0,
        ...samples
          .filter((sample) => sample.phase === "running" || sample.phase === "outage")
          .map((sample) => sample.ms),
      ),
      timeline: [...timeline, ...(accountFigures?.timeline ?? [])],
      accounts: accountFigures,
    };
  } finally {
    sampling = false;
    briefbot?.killAll();
    await sampler.catch(() => undefined);
    await Promise.allSettled(processes.map((run) => run.exited));
    await Promise.allSettled([rig.close(), ollama.close(), accounts?.close()]);
    await postgresDb?.dispose().catch(() => undefined);
    if (process.env.SOAK_KEEP_LOGS) {
      // A folder named but not made yet must not cost the run its figures (this runs in `finally`).
      mkdirSync(process.env.SOAK_KEEP_LOGS, { recursive: true });
      for (const [index, run] of processes.entries())
        writeFileSync(
          join(process.env.SOAK_KEEP_LOGS, `${options.mode}-${index + 1}.log`),
          run.stdout() + run.stderr(),
        );
      if (accounts)
        writeFileSync(join(process.env.SOAK_KEEP_LOGS, `${options.mode}-wire.jsonl`), accounts.wireLog());
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A pino JSON line's level and time; undefined for anything else (the start-up summary). */
function parseLogLine(line: string): { level: number; time: number } | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const entry = JSON.parse(line) as { level?: unknown; time?: unknown };
    return typeof entry.level === "number" && typeof entry.time === "number"
      ? { level: entry.level, time: entry.time }
      : undefined;
  } catch {
    return undefined;
  }
}

async function withDatabase<T>(
  database: DatabaseConfig,
  work: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
) {
  const open = await openDatabase(database);
  try {
    return await work(open);
  } finally {
    await open.close();
  }
}

/**
 * The (user, slot, date) keys due inside the run by the users' settings now: each linked user's slot
 * times (UTC) between the first and the last minute, not before the user was created (as the scheduler
 * counts them).
 */
async function expectedKeys(
  database: DatabaseConfig,
  firstMinute: number,
  lastMinute: number,
  platform: "telegram" | "slack",
): Promise<Set<string>> {
  return withDatabase(database, async ({ db }) => {
    const linked = new Set(
      (await db.select({ userId: identities.userId, platform: identities.platform }).from(identities))
        .filter((identity) => identity.platform === platform)
        .map((identity) => identity.userId),
    );
    const keys = new Set<string>();
    for (const user of await db.select().from(users)) {
      if (!linked.has(user.id)) continue;
      for (const slot of SLOTS) {
        const time = user.slots[slot];
        if (!time) continue;
        for (let minute = firstMinute; minute <= lastMinute; minute += MINUTE) {
          if (hhmm(minute) !== time || minute < user.createdAt.getTime()) continue;
          keys.add(`${user.id}|${slot}|${new Date(minute).toISOString().slice(0, 10)}`);
        }
      }
    }
    return keys;
  });
}

async function deliveredKeys(database: DatabaseConfig): Promise<Set<string>> {
  const runs = await runRecords(database);
  return new Set(runs.filter((run) => run.state === "delivered").map((run) => run.key));
}

/** Every scheduled run with its key, state, and where its delivery was posted. */
async function runRecords(database: DatabaseConfig) {
  return withDatabase(database, async ({ db }) => {
    const runs = await db
      .select({
        id: briefingRuns.id,
        userId: briefingRuns.userId,
        slot: briefingRuns.slot,
        localDate: briefingRuns.localDate,
        state: briefingRuns.state,
        reason: briefingRuns.reason,
        trigger: briefingRuns.trigger,
      })
      .from(briefingRuns);
    const sent = await db
      .select({ runId: deliveries.runId, target: deliveries.target, messageId: deliveries.platformMessageId })
      .from(deliveries);
    return runs
      .filter((run) => run.trigger === "schedule")
      .map((run) => {
        const delivery = sent.find((entry) => entry.runId === run.id);
        return {
          key: `${run.userId}|${run.slot}|${run.localDate}`,
          state: run.state,
          reason: run.reason,
          target: delivery?.target ?? undefined,
          messageId: delivery?.messageId ?? undefined,
        };
      });
  });
}
