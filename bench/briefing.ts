/**
 * A morning briefing, three ways, against simulated models in the Ollama test server (its latency model
 * stands in for a GPU: a fixed time to first token plus a per-token delay; prompt length does not slow it):
 * - sequential: one tool call per turn, as small local models tend to do;
 * - batching: every tool call in one turn (Ollama supports parallel calls);
 * - legacy: data gathered by code, one synthesis request.
 * Reports model requests, prompt tokens, non-model time (tools + storage + grounding) and agentic/legacy wall time.
 */
import { openDatabase } from "../db/client.ts";
import { getRun } from "../db/queries/runs.ts";
import { createUser } from "../db/queries/users.ts";
import { createDbPorts } from "../db/stores/index.ts";
import { resolveModelRoutes } from "../src/config/model-routes.ts";
import { type BriefingOutcome, composeCore, fixedClock, silentLogger } from "../src/core/index.ts";
import { createModelClient } from "../src/models/index.ts";
import { LONDON, START, seedTasks, seedWeather } from "../test/core/fixture.ts";
import {
  type ReplyFunction,
  type ScriptedToolCall,
  startOllamaServer,
} from "../test/servers/ollama-server.ts";
import type { BenchSection } from "./types.ts";

const LATENCY = { timeToFirstTokenMs: 120, perTokenMs: 6 };
const ROUNDS = 3;
const CALLS: ScriptedToolCall[] = [
  { name: "list_tasks", arguments: { filter: "due_today" } },
  { name: "list_tasks", arguments: { filter: "overdue" } },
  { name: "list_events", arguments: { range: "today" } },
  { name: "get_weather", arguments: {} },
  { name: "get_rss_items", arguments: { max: 8 } },
  { name: "list_projects", arguments: {} },
];
const PROSE =
  'Good morning. Nothing on your calendar today, so it is a clean run at the desk. "Renew passport" is due today ' +
  'and "File expenses" is overdue, so start there. Partly cloudy, 8 to 16 degrees.';

const turnsTaken = (request: { messages: Array<{ role: string; tool_calls?: unknown }> }) =>
  request.messages.filter((message) => message.role === "assistant" && message.tool_calls).length;

const sequential: ReplyFunction = ({ request }) => {
  const next = CALLS[turnsTaken(request)];
  return next && request.tools ? { toolCalls: [next] } : { content: PROSE };
};
const batching: ReplyFunction = ({ request }) =>
  turnsTaken(request) === 0 && request.tools ? { toolCalls: CALLS } : { content: PROSE };

interface Measure {
  wallMs: number;
  requests: number;
  promptTokens: number;
  nonModelMs: number;
  mode: string;
}

export async function runBriefingBench(): Promise<BenchSection> {
  const server = await startOllamaServer({
    latency: LATENCY,
    models: { "sim-sequential": { reply: sequential }, "sim-batching": { reply: batching } },
  });
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    await database.migrate();
    const db = database.db;
    const clock = fixedClock(START);
    const agentic = await createUser(db, { name: "bench-agentic", ...LONDON });
    const legacy = await createUser(db, { name: "bench-legacy", ...LONDON, briefingMode: "legacy" });
    for (const user of [agentic, legacy]) await seedTasks(db, user);
    await seedWeather(db);
    const ports = createDbPorts(db);

    const measure = async (model: string, user: typeof agentic): Promise<Measure> => {
      const client = createModelClient({
        routes: resolveModelRoutes(undefined, { ollamaHost: server.url, model }),
      });
      const { assistant } = composeCore({ ports, model: client, clock, config: {}, logger: silentLogger });
      await client.canRunAgentic("briefing"); // capability probe cached outside the timed runs
      const samples: Measure[] = [];
      for (let round = 0; round < ROUNDS; round++) {
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
            (outcome.timings.toolsMs ?? 0) +
            (outcome.timings.storageMs ?? 0) +
            (outcome.timings.groundingMs ?? 0),
          mode: outcome.mode,
        });
      }
      samples.sort((a, b) => a.wallMs - b.wallMs);
      return samples[Math.floor(samples.length / 2)] ?? fail();
    };

    const seq = await measure("sim-sequential", agentic);
    const batch = await measure("sim-batching", agentic);
    const old = await measure("sim-batching", legacy);
    const row = (label: string, m: Measure) =>
      `${label.padEnd(22)} ${String(m.requests).padStart(8)} ${String(m.promptTokens).padStart(13)} ${m.nonModelMs.toFixed(1).padStart(16)} ${m.wallMs.toFixed(0).padStart(9)}  (${m.mode})`;
    return {
      title: "briefing: morning briefing, agentic (sequential / batching model) vs legacy",
      lines: [
        `simulated model latency: ${LATENCY.timeToFirstTokenMs} ms to first token + ${LATENCY.perTokenMs} ms per token; ${CALLS.length} tool calls; median of ${ROUNDS}`,
        `${"".padEnd(22)} ${"requests".padStart(8)} ${"prompt tokens".padStart(13)} ${"non-model ms".padStart(16)} ${"wall ms".padStart(9)}`,
        row("agentic, sequential", seq),
        row("agentic, batching", batch),
        row("legacy (one-shot)", old),
        `agentic/legacy wall time: sequential ${(seq.wallMs / old.wallMs).toFixed(2)}×, batching ${(batch.wallMs / old.wallMs).toFixed(2)}×`,
        "non-model = tool handlers (concurrent calls of a turn count once) + message storage + grounding check",
      ],
    };
  } finally {
    await server.close();
    await database.close();
  }
}

function fail(): never {
  throw new Error("no samples");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runBriefingBench();
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
