/**
 * A morning briefing against simulated models in the Ollama test server (its latency model stands in for a
 * GPU: a fixed time to first token plus a per-token delay; prompt length does not slow it), receipts first:
 * the runner fetches the slot's coverage before the first model request. Habits (test/servers/tool-habits.ts):
 * - sequential: one tool call per turn until it has seen what it wants, as small local models tend to do;
 * - batching: every call it still wants in one turn (Ollama supports parallel calls);
 * - sequential + notes: the same habit wanting one tool the receipts do not cover (list_notes);
 * - legacy: data gathered by code, one synthesis request without tools.
 * Reports model requests, prompt tokens (before: main at ed6b90c, model-first, recorded), non-model time and
 * agentic/legacy wall time, then what the refresh step adds when every source is fresh (no network call) and
 * when the forecast is stale (one call to the Open-Meteo test server).
 */
import { openDatabase } from "../db/client.ts";
import { addCalendar, recordCalendarNotModified } from "../db/queries/calendars.ts";
import { addFeed, markFeedNotModified } from "../db/queries/feeds.ts";
import { getRun } from "../db/queries/runs.ts";
import { createUser } from "../db/queries/users.ts";
import { databasePorts } from "../src/build-core.ts";
import { resolveModelRoutes } from "../src/config/model-routes.ts";
import { type BriefingOutcome, composeCore, fixedClock, silentLogger, type User } from "../src/core/index.ts";
import { createModelClient } from "../src/models/index.ts";
import { LONDON, START, seedTasks, seedWeather } from "../test/core/fixture.ts";
import { type ScriptedToolCall, startOllamaServer } from "../test/servers/ollama-server.ts";
import { startOpenMeteoServer } from "../test/servers/open-meteo-server.ts";
import { batching, oneCallPerTurn } from "../test/servers/tool-habits.ts";
import type { BenchSection } from "./types.ts";

const LATENCY = { timeToFirstTokenMs: 120, perTokenMs: 6 };
const ROUNDS = 5;
/** What the simulated models want to see before they write: the morning's coverage. */
const CALLS: ScriptedToolCall[] = [
  { name: "list_tasks", arguments: { filter: "due_today" } },
  { name: "list_tasks", arguments: { filter: "overdue" } },
  { name: "list_events", arguments: { range: "today" } },
  { name: "get_weather", arguments: {} },
  { name: "get_rss_items", arguments: { max: 8 } },
  { name: "list_projects", arguments: {} },
];
const NOTES: ScriptedToolCall = { name: "list_notes", arguments: { recent_days: 1 } };
const PROSE =
  'Good morning. Nothing on your calendar today, so it is a clean run at the desk. "Renew passport" is due today ' +
  'and "File expenses" is overdue, so start there. Partly cloudy, 8 to 16 degrees.';

/**
 * main at ed6b90c (model-first: the model asked for every call itself), measured by this bench on that tree
 * before receipts first and recorded here, since the old runner cannot run beside the new one.
 */
const BEFORE = {
  sequential: { requests: 7, promptTokens: 8200, ratio: "3.10×" },
  batching: { requests: 2, promptTokens: 2301, ratio: "1.34×" },
  legacy: { requests: 1, promptTokens: 260, ratio: "" },
} as const;

interface Measure {
  wallMs: number;
  requests: number;
  promptTokens: number;
  nonModelMs: number;
  refreshMs: number;
  mode: string;
}

export async function runBriefingBench(): Promise<BenchSection> {
  const server = await startOllamaServer({
    latency: LATENCY,
    models: {
      "sim-sequential": { reply: oneCallPerTurn(CALLS, PROSE) },
      "sim-batching": { reply: batching(CALLS, PROSE) },
      "sim-notes": { reply: oneCallPerTurn([...CALLS, NOTES], PROSE) },
    },
  });
  const meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    await database.migrate();
    const db = database.db;
    const clock = fixedClock(START);
    const agentic = await createUser(db, { name: "bench-agentic", ...LONDON });
    const legacy = await createUser(db, { name: "bench-legacy", ...LONDON, briefingMode: "legacy" });
    for (const user of [agentic, legacy]) {
      await seedTasks(db, user);
      // A calendar and a feed synced ten minutes ago: young enough that the refresh step leaves them be.
      const synced = new Date(clock.now().getTime() - 10 * 60_000);
      const calendar = await addCalendar(db, {
        userId: user.id,
        source: `https://cal.example/${user.id}.ics`,
      });
      await recordCalendarNotModified(db, calendar.id, synced);
      const feed = await addFeed(db, { userId: user.id, url: `https://news.example/${user.id}.xml` });
      await markFeedNotModified(db, feed.id, synced);
    }
    await seedWeather(db);
    let networkCalls = 0;
    const countingFetch: typeof fetch = (input, init) => {
      networkCalls += 1;
      return fetch(input, init);
    };
    // The production ports and refresh (build-core's), against the Open-Meteo test server.
    const ports = databasePorts(db, {
      fetch: countingFetch,
      clock,
      forecastUrl: meteo.url,
      maxAgeMinutes: { calendar: 15, feeds: 30, weather: 30 },
    });

    const measure = async (model: string, user: User, rounds = ROUNDS): Promise<Measure> => {
      const client = createModelClient({
        routes: resolveModelRoutes(undefined, { ollamaHost: server.url, model }),
      });
      const { assistant } = composeCore({ ports, model: client, clock, config: {}, logger: silentLogger });
      await client.canRunAgentic("briefing"); // capability probe cached outside the timed runs
      const samples: Measure[] = [];
      for (let round = 0; round < rounds; round++) {
        const requestsBefore = server.chatRequests(model).length;
        const started = performance.now();
        const outcome: BriefingOutcome = await assistant.brief(user.id, { slot: "morning" });
        const wallMs = performance.now() - started;
        const requests = server.chatRequests(model).slice(requestsBefore);
        samples.push({
          wallMs,
          requests: requests.length,
          promptTokens: (await getRun(db, outcome.runId))?.promptTokens ?? 0,
          nonModelMs:
            (outcome.timings.refreshMs ?? 0) +
            (outcome.timings.toolsMs ?? 0) +
            (outcome.timings.storageMs ?? 0) +
            (outcome.timings.groundingMs ?? 0),
          refreshMs: outcome.timings.refreshMs ?? 0,
          mode: outcome.mode,
        });
      }
      samples.sort((a, b) => a.wallMs - b.wallMs);
      return samples[Math.floor(samples.length / 2)] ?? fail();
    };

    // Interleaved rounds, so a busy moment of the shared machine does not land on one row only.
    const rows = {
      seq: [] as Measure[],
      batch: [] as Measure[],
      notes: [] as Measure[],
      old: [] as Measure[],
    };
    const callsBefore = networkCalls;
    for (let round = 0; round < ROUNDS; round++) {
      rows.seq.push(await measure("sim-sequential", agentic, 1));
      rows.batch.push(await measure("sim-batching", agentic, 1));
      rows.notes.push(await measure("sim-notes", agentic, 1));
      rows.old.push(await measure("sim-batching", legacy, 1));
    }
    const freshCalls = networkCalls - callsBefore;
    const [seq, batch, notes, old] = [rows.seq, rows.batch, rows.notes, rows.old].map(median);
    if (!seq || !batch || !notes || !old) return fail();

    // A stale forecast: the refresh step fetches it (one request) before the model looks.
    const staleRefresh: number[] = [];
    const callsBeforeStale = networkCalls;
    for (let round = 0; round < ROUNDS; round++) {
      await seedWeather(db, new Date(clock.now().getTime() - 3 * 3600_000));
      staleRefresh.push((await measure("sim-batching", agentic, 1)).refreshMs);
    }
    const staleCalls = networkCalls - callsBeforeStale;

    const row = (label: string, m: Measure, before?: { requests: number; promptTokens: number }) =>
      `${label.padEnd(26)} ${String(m.requests).padStart(8)} ${String(before?.requests ?? "").padStart(7)} ${String(m.promptTokens).padStart(14)} ${String(before?.promptTokens ?? "").padStart(7)} ${m.nonModelMs.toFixed(1).padStart(13)} ${m.wallMs.toFixed(0).padStart(8)}  (${m.mode})`;
    const ratio = (m: Measure) => (m.wallMs / old.wallMs).toFixed(2);
    return {
      title: "briefing: morning briefing, receipts first, agentic (three tool habits) vs legacy",
      lines: [
        `simulated model latency: ${LATENCY.timeToFirstTokenMs} ms to first token + ${LATENCY.perTokenMs} ms per token; the runner makes the morning's ${CALLS.length} coverage calls; median of ${ROUNDS} interleaved rounds`,
        `before = main at ed6b90c (model-first), measured on that tree and recorded in bench/briefing.ts; every other figure measured in this run`,
        `${"".padEnd(26)} ${"requests".padStart(8)} ${"before".padStart(7)} ${"prompt tokens".padStart(14)} ${"before".padStart(7)} ${"non-model ms".padStart(13)} ${"wall ms".padStart(8)}`,
        row("agentic, sequential", seq, BEFORE.sequential),
        row("agentic, batching", batch, BEFORE.batching),
        row("agentic, sequential+notes", notes),
        row("legacy (one-shot)", old, BEFORE.legacy),
        `agentic/legacy wall time: sequential ${ratio(seq)}× (before ${BEFORE.sequential.ratio}), batching ${ratio(batch)}× (before ${BEFORE.batching.ratio}), sequential+notes ${ratio(notes)}× (target ≤ 1.15× for sequential and batching; +notes pays one more round trip)`,
        `refresh step, every source fresh: ${seq.refreshMs.toFixed(1)} ms added (median, sequential row), ${freshCalls} network calls in ${ROUNDS * 4} briefings`,
        `refresh step, forecast 3 h old: ${median(staleRefresh.map((refreshMs) => ({ refreshMs })))?.refreshMs.toFixed(1)} ms added (median; ${staleCalls} forecast requests to the Open-Meteo test server in ${ROUNDS} briefings)`,
        "non-model = refresh + tool handlers (concurrent calls of a turn count once) + message storage + grounding check",
      ],
    };
  } finally {
    await server.close();
    await meteo.close();
    await database.close();
  }
}

function median<T extends { wallMs?: number; refreshMs: number }>(samples: T[]): T | undefined {
  const sorted = [...samples].sort((a, b) => (a.wallMs ?? a.refreshMs) - (b.wallMs ?? b.refreshMs));
  return sorted[Math.floor(sorted.length / 2)];
}

function fail(): never {
  throw new Error("no samples");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runBriefingBench();
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
