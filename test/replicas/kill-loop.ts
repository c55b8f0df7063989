/**
 * The embedded database's worst morning: the only `briefbot start` (dist/, one PGlite data folder) killed
 * with SIGKILL again and again while its users' slots fall due, then started once more and left alone.
 * Every run a killed process left claimed or generating must be generated again by the next owner (on the
 * embedded database every earlier owner is gone the moment a new one starts), exactly once.
 *
 * Figures, counted at the Telegram test server and in the folder: what was delivered and what sat in
 * `generating` when the kills stopped; how long after the last start until no run was left in
 * `claimed`/`generating`; and at the end each run's state, posts per (user, slot, date) and duplicates.
 * Used by test/replicas/orphans.test.ts (assertions) and bench/orphans.ts (figures).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inArray } from "drizzle-orm";
import { type DatabaseConfig, type OpenDatabase, openDatabase } from "../../db/client.ts";
import { briefingRuns, identities, users } from "../../db/schema/index.ts";
import { freePort, type RealRun, realBriefbot } from "../helpers/real-briefbot.ts";
import { startOllamaServer } from "../servers/ollama-server.ts";
import { startTelegramServer } from "../servers/telegram-server.ts";
import { batching } from "../servers/tool-habits.ts";

const MODEL = "qwen2.5:7b";
const PROSE = "Good morning! Your calendar is clear today.";
const SLOTS = ["morning", "midday", "afternoon", "evening"] as const;

export interface KillLoopOptions {
  users: number;
  /** Slots per user (1–4), due a minute apart from the minute the loop starts. */
  slots: number;
  /** How long to keep killing, from the first start, and at least how many times (a slow machine starts slowly). */
  killForMs: number;
  minKills?: number;
  /** Each life lasts from its start-up summary plus a random pause in this range, then SIGKILL. */
  lifeMs: [number, number];
  /** Model latency per request (time to first token). */
  modelMs: number;
  /**
   * Briefing requests the model may serve at once. Unset: the default route, one endpoint at concurrency 1
   * (what `OLLAMA_HOST` alone gives). A number: a `BRIEFBOT_CONFIG` a user with `OLLAMA_NUM_PARALLEL=4` would
   * write — questions on an endpoint of their own, briefings and background work on one of this many slots.
   */
  briefingSlots?: number;
  timeoutMs?: number;
}

export interface RunCounts {
  delivered: number;
  generating: number;
  claimed: number;
  generated: number;
  failed: number;
  skipped: number;
  other: number;
}

export interface KillLoopResult {
  kills: number;
  expectedRuns: number;
  /** When the kills stopped (the folder read with no process running). */
  atLastKill: RunCounts & { runs: number; posts: number };
  /** Runs left claimed or generating by the killed processes. */
  orphans: number;
  /** From the last spawn until its start-up summary was printed. */
  startupMs: number;
  /**
   * From the last start's spawn: until every orphan was taken back by the new process (or done), until
   * every orphan was generated again (no longer claimed or generating), and until every run was settled.
   */
  orphansTakenBackMs: number;
  orphansRegeneratedMs: number;
  allSettledMs: number;
  final: RunCounts & { runs: number };
  /** Distinct (user, slot, date) keys among the runs: fewer than `runs` would mean one was claimed twice. */
  distinctKeys: number;
  posts: number;
  /** Posts beyond one per run that may have posted. */
  duplicates: number;
  failedReasons: Map<string, number>;
}

function modelConfigEnv(
  scratch: string,
  url: string,
  briefingSlots: number | undefined,
): Record<string, string> {
  if (briefingSlots === undefined) return {};
  const path = join(scratch, "models.json");
  const route = { model: MODEL };
  writeFileSync(
    path,
    JSON.stringify({
      endpoints: [
        { name: "questions", url, concurrency: 1 },
        { name: "briefings", url, concurrency: briefingSlots },
      ],
      routes: {
        interactive: { endpoint: "questions", ...route },
        briefing: { endpoint: "briefings", ...route },
        background: { endpoint: "briefings", ...route },
      },
    }),
  );
  return { BRIEFBOT_CONFIG: path };
}

export async function runKillLoop(options: KillLoopOptions): Promise<KillLoopResult> {
  const timeoutMs = options.timeoutMs ?? 240_000;
  const scratch = mkdtempSync(join(tmpdir(), "briefbot-kill-loop-"));
  const dataDir = join(scratch, "data");
  const ollama = await startOllamaServer({
    models: {
      [MODEL]: {
        reply: batching(
          [
            { name: "list_tasks", arguments: { filter: "due_today" } },
            { name: "list_events", arguments: { range: "today" } },
          ],
          PROSE,
        ),
      },
    },
    latency: { timeToFirstTokenMs: options.modelMs, perTokenMs: 2 },
    parallel: 4,
  });
  const telegram = await startTelegramServer({ autoCreateChats: true });
  const briefbot = realBriefbot(dataDir, {
    OLLAMA_HOST: ollama.url,
    ...modelConfigEnv(scratch, ollama.url, options.briefingSlots),
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
  });
  const start = async (): Promise<RealRun> => {
    const bot = briefbot.run(["start"], { PORT: String(await freePort()) });
    await bot.waitForStdout((stdout) => stdout.includes("  syncs      "), "start-up summary", 60_000);
    return bot;
  };
  const chats: number[] = [];
  try {
    await seed({ dataDir }, options, chats);
    const posts = () =>
      chats.reduce(
        (sum, chat) =>
          sum +
          telegram
            .chat(chat)
            .botMessages()
            .filter((post) => post.text.includes(PROSE)).length,
        0,
      );

    let kills = 0;
    const killUntil = performance.now() + options.killForMs;
    while (performance.now() < killUntil || kills < (options.minKills ?? 0)) {
      const bot = await start();
      const [least, most] = options.lifeMs;
      await new Promise((resolve) => setTimeout(resolve, least + Math.random() * (most - least)));
      bot.child.kill("SIGKILL");
      await bot.exited;
      kills += 1;
    }
    // The last kill lands while a briefing is being written (if any is left to write), so the next start
    // has orphans to take back.
    {
      const bot = await start();
      const watch = await openDatabase({ dataDir });
      const until = performance.now() + 60_000;
      try {
        for (;;) {
          const counts = await countRuns(watch);
          const unwritten = options.users * options.slots - counts.runs + counts.claimed + counts.generating;
          if (counts.generating > 0 || unwritten === 0 || performance.now() > until) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        bot.child.kill("SIGKILL");
        await watch.close().catch(() => undefined);
      }
      await bot.exited;
      kills += 1;
    }
    const atLastKill = await withFolder({ dataDir }, async (db) => ({
      ...(await countRuns(db)),
      posts: posts(),
    }));
    const orphanIds = await withFolder({ dataDir }, async (db) =>
      (
        await db.db
          .select({ id: briefingRuns.id })
          .from(briefingRuns)
          .where(inArray(briefingRuns.state, ["claimed", "generating"]))
      ).map((run) => run.id),
    );

    const spawnedAt = performance.now();
    const last = await start();
    const startupMs = performance.now() - spawnedAt;
    const deadline = spawnedAt + timeoutMs;
    let orphansRegeneratedMs: number | undefined;
    let orphansTakenBackMs: number | undefined;
    let settled: (RunCounts & { runs: number }) | undefined;
    const live = await openDatabase({ dataDir });
    try {
      const livePid = String(last.child.pid);
      for (;;) {
        const counts = await countRuns(live);
        const orphans = await live.db
          .select({ state: briefingRuns.state, claimedBy: briefingRuns.claimedBy })
          .from(briefingRuns)
          .where(inArray(briefingRuns.id, orphanIds.length > 0 ? orphanIds : [-1]));
        const open = (run: { state: string }) => run.state === "claimed" || run.state === "generating";
        // Owner ids are `bot-<host>-<pid>-<random>`.
        const ownedByLive = (run: { claimedBy: string | null }) =>
          (run.claimedBy ?? "").split("-").includes(livePid);
        if (orphansTakenBackMs === undefined && orphans.every((run) => !open(run) || ownedByLive(run)))
          orphansTakenBackMs = performance.now() - spawnedAt;
        if (orphansRegeneratedMs === undefined && orphans.every((run) => !open(run)))
          orphansRegeneratedMs = performance.now() - spawnedAt;
        const unsettled = counts.claimed + counts.generating + counts.generated + counts.other;
        if (counts.runs >= options.users * options.slots && unsettled === 0) {
          settled = counts;
          break;
        }
        if (performance.now() > deadline)
          throw new Error(`runs not settled: ${JSON.stringify(counts)}\n${last.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const allSettledMs = performance.now() - spawnedAt;
      const runs = await live.db
        .select({
          userId: briefingRuns.userId,
          slot: briefingRuns.slot,
          localDate: briefingRuns.localDate,
          state: briefingRuns.state,
          reason: briefingRuns.reason,
        })
        .from(briefingRuns);
      const failedReasons = new Map<string, number>();
      for (const run of runs.filter((entry) => entry.state === "failed")) {
        const reason = run.reason ?? "(no reason)";
        failedReasons.set(reason, (failedReasons.get(reason) ?? 0) + 1);
      }
      // A delivery that failed mid-send ("interrupted mid-send") may have reached the chat: it may post.
      const mayHavePosted = new Map<number, number>();
      for (const run of runs.filter((entry) => entry.state === "delivered" || entry.state === "failed"))
        mayHavePosted.set(run.userId, (mayHavePosted.get(run.userId) ?? 0) + 1);
      const userOfChat = await live.db
        .select({ userId: identities.userId, chatId: identities.chatId })
        .from(identities);
      let duplicates = 0;
      for (const { userId, chatId } of userOfChat) {
        const count = telegram
          .chat(Number(chatId))
          .botMessages()
          .filter((post) => post.text.includes(PROSE)).length;
        duplicates += Math.max(0, count - (mayHavePosted.get(userId) ?? 0));
      }
      return {
        kills,
        expectedRuns: options.users * options.slots,
        atLastKill,
        orphans: orphanIds.length,
        startupMs,
        orphansTakenBackMs: orphansTakenBackMs ?? allSettledMs,
        orphansRegeneratedMs: orphansRegeneratedMs ?? allSettledMs,
        allSettledMs,
        final: settled,
        distinctKeys: new Set(runs.map((run) => `${run.userId}|${run.slot}|${run.localDate}`)).size,
        posts: posts(),
        duplicates,
        failedReasons,
      };
    } finally {
      await live.close();
    }
  } finally {
    briefbot.killAll();
    await Promise.allSettled([telegram.close(), ollama.close()]);
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface SeedOptions {
  users: number;
  /** Slots per user (1–4), due a minute apart from this minute (the first one due at once). */
  slots: number;
  /**
   * Each slot's minutes from this minute, for user `index` (overrides `slots`; `null` leaves the slot off).
   * Times past the end of the day wrap (the slot is then tomorrow's).
   */
  slotMinutes?: (index: number) => Array<number | null>;
  /** Where the users are linked. Default Telegram, each its own private chat. */
  platform?: "telegram" | "slack";
  namePrefix?: string;
}

/**
 * Users in UTC, linked to Telegram (chat ids from 6 000 000) or Slack (U0SOAK…), created a day ago so
 * every slot of today counts. Returns their accounts in order; Telegram's are pushed onto `chats` too.
 */
export async function seed(
  database: DatabaseConfig,
  options: SeedOptions,
  chats: number[] = [],
): Promise<Array<{ userId: number; name: string; account: string }>> {
  const now = Date.now();
  const at = (minutes: number) => {
    const date = new Date(now + minutes * 60_000);
    return `${String(date.getUTCHours()).padStart(2, "0")}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
  };
  const slotsOf = (index: number) => {
    const minutes =
      options.slotMinutes?.(index) ?? SLOTS.map((_, slot) => (slot < options.slots ? slot : null));
    return Object.fromEntries(
      SLOTS.map((slot, position) => {
        const offset = minutes[position];
        return [slot, offset === null || offset === undefined ? null : at(offset)];
      }),
    ) as { morning: string | null; midday: string | null; afternoon: string | null; evening: string | null };
  };
  const platform = options.platform ?? "telegram";
  return withFolder(database, async (open) => {
    await open.migrate();
    const created = await open.db
      .insert(users)
      .values(
        Array.from({ length: options.users }, (_, index) => ({
          name: `${options.namePrefix ?? "orphan"}-${index}`,
          timeZone: "UTC",
          slots: slotsOf(index),
          createdAt: new Date(now - 86_400_000),
        })),
      )
      .returning({ id: users.id, name: users.name });
    const accounts = created.map((user, index) => ({
      userId: user.id,
      name: user.name,
      account: platform === "telegram" ? String(6_000_000 + index) : `U0SOAK${index}`,
    }));
    await open.db.insert(identities).values(
      accounts.map(({ userId, account }) => {
        if (platform === "telegram") chats.push(Number(account));
        return {
          userId,
          platform,
          externalUserId: account,
          ...(platform === "telegram" ? { chatId: account } : {}),
        };
      }),
    );
    return accounts;
  });
}

async function withFolder<T>(database: DatabaseConfig, work: (open: OpenDatabase) => Promise<T>): Promise<T> {
  const open = await openDatabase(database);
  try {
    return await work(open);
  } finally {
    await open.close();
  }
}

export async function countRuns(open: OpenDatabase): Promise<RunCounts & { runs: number }> {
  const rows = await open.db.select({ state: briefingRuns.state }).from(briefingRuns);
  const counts: RunCounts & { runs: number } = {
    runs: rows.length,
    delivered: 0,
    generating: 0,
    claimed: 0,
    generated: 0,
    failed: 0,
    skipped: 0,
    other: 0,
  };
  for (const { state } of rows) {
    if (state in counts) counts[state as keyof RunCounts] += 1;
    else counts.other += 1;
  }
  return counts;
}
