/**
 * The grounding gate on natural prose, and what receipts first costs each slot and a chat question:
 * - the corpus (test/core/grounding/corpus): honest sentences kept and lies stopped, per kind, on the
 *   briefing path (the run's receipts) and the chat path (receipts read back from stored messages), for the
 *   tuning corpus, the held-out one (whose failures issue 22's second part read) and the untouched check set
 *   and the second untouched set (both only ever measured);
 * - the gate's added time per briefing: a ten-sentence briefing of the busy day through the gate;
 * - model requests per slot and for "what meeting do I have today?", with a batching model (test/servers/
 *   tool-habits.ts) that wants exactly what each prompt says it looks at, against the real core on PGlite.
 */
import { openDatabase } from "../db/client.ts";
import { createUser } from "../db/queries/users.ts";
import { databasePorts } from "../src/build-core.ts";
import { resolveModelRoutes } from "../src/config/model-routes.ts";
import { COVERAGE } from "../src/core/briefing/coverage.ts";
import type { SlotName } from "../src/core/domain.ts";
import { groundAnswer } from "../src/core/grounding/gate.ts";
import { gateOptions } from "../src/core/grounding/options.ts";
import { composeCore, fixedClock, silentLogger } from "../src/core/index.ts";
import { createModelClient } from "../src/models/index.ts";
import { LONDON, START, seedTasks, seedWeather } from "../test/core/fixture.ts";
import { BUSY, USER } from "../test/core/grounding/corpus/days.ts";
import { HELD_OUT } from "../test/core/grounding/corpus/held-out.ts";
import { type CorpusScore, type GatePath, scoreCorpus } from "../test/core/grounding/corpus/score.ts";
import { CORPUS } from "../test/core/grounding/corpus/sentences.ts";
import { TUNING_2 } from "../test/core/grounding/corpus/tuning-2.ts";
import { UNTOUCHED } from "../test/core/grounding/corpus/untouched.ts";
import { UNTOUCHED_2 } from "../test/core/grounding/corpus/untouched-2.ts";
import { type ScriptedToolCall, startOllamaServer } from "../test/servers/ollama-server.ts";
import { batching } from "../test/servers/tool-habits.ts";
import type { BenchSection } from "./types.ts";

const ROUNDS = 20;

export async function runGroundingBench(): Promise<BenchSection> {
  const lines: string[] = [];
  const scores: Record<string, CorpusScore> = {};
  const sets = [
    ["tuning", CORPUS],
    ["tuning-2", TUNING_2],
    ["held-out", HELD_OUT],
    ["untouched", UNTOUCHED],
    ["untouched-2", UNTOUCHED_2],
  ] as const;
  for (const [name, corpus] of sets) {
    for (const path of ["briefing", "chat"] as GatePath[])
      scores[`${name}/${path}`] = await scoreCorpus(corpus, path);
  }
  lines.push(
    `corpus: ${CORPUS.length} tuning sentences + ${TUNING_2.length} tuning-2 + ${HELD_OUT.length} held out + ${UNTOUCHED.length} untouched + ${UNTOUCHED_2.length} untouched-2, over 6 planted days`,
  );
  for (const [name] of sets) {
    const briefing = scores[`${name}/briefing`];
    const chat = scores[`${name}/chat`];
    if (!briefing || !chat) continue;
    lines.push(
      `${name}: | kind | honest kept (briefing) | lies stopped (briefing) | honest kept (chat) | lies stopped (chat) |`,
    );
    lines.push("| --- | --- | --- | --- | --- |");
    for (const kind of briefing.kinds) {
      const other = chat.kinds.find((entry) => entry.kind === kind.kind);
      lines.push(
        `| ${kind.kind} | ${fraction(kind.honestKept, kind.honest)} | ${fraction(kind.liesStopped, kind.lies)} | ${fraction(other?.honestKept ?? 0, other?.honest ?? 0)} | ${fraction(other?.liesStopped ?? 0, other?.lies ?? 0)} |`,
      );
    }
  }
  for (const [key, score] of Object.entries(scores)) {
    lines.push(
      `${key.padEnd(18)} honest kept ${fraction(score.honestKept, score.honest)} (${percent(score.honestKept, score.honest)}), lies stopped ${fraction(score.liesStopped, score.lies)} (${percent(score.liesStopped, score.lies)}), ${score.msPerSentence.toFixed(1)} ms a sentence`,
    );
  }
  lines.push(await gateTime());
  lines.push(...(await requestsPerSlot()));
  return {
    title: "grounding: the gate on natural prose (corpus), its time per briefing, requests per slot",
    lines,
  };
}

/** A true ten-sentence briefing of the busy day through the gate, as the ground step runs it. */
async function gateTime(): Promise<string> {
  const honest = CORPUS.filter((entry) => entry.day === "busy" && entry.honest).slice(0, 10);
  const prose = honest.map((entry) => entry.text).join(" ");
  const options = gateOptions(USER, new Date(`${BUSY.localDate}T${BUSY.localTime}:00Z`), BUSY.localDate);
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await groundAnswer({
      draft: prose,
      receipts: BUSY.receipts,
      options,
      rewrite: async () => ({ text: undefined, receipts: [] }),
    });
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  return `gate time per briefing (10 sentences, ${BUSY.receipts.length} receipts): median ${median.toFixed(1)} ms over ${ROUNDS} runs (44.4 ms on this machine before issue 22's fourth part, 29.6 ms before its second; about 40 ms before issue 22)`;
}

/** Model requests per slot and for a chat question, receipts first, with a model that wants what its prompt names. */
async function requestsPerSlot(): Promise<string[]> {
  const wantedOf = (slot: SlotName): ScriptedToolCall[] =>
    COVERAGE[slot].map((call) => ({ name: call.name, arguments: { ...call.arguments } }));
  const prose = "Here is your day. Your calendar and tasks are above.";
  const models: Record<string, { reply: ReturnType<typeof batching> }> = {
    "sim-chat": {
      reply: batching([{ name: "list_events", arguments: { range: "today" } }], "Nothing to report."),
    },
  };
  for (const slot of ["morning", "midday", "afternoon", "evening"] as SlotName[]) {
    models[`sim-${slot}`] = { reply: batching(wantedOf(slot), prose) };
  }
  const server = await startOllamaServer({ models });
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    await database.migrate();
    const db = database.db;
    const clock = fixedClock(START);
    const user = await createUser(db, { name: "bench-slots", ...LONDON });
    await seedTasks(db, user);
    await seedWeather(db);
    const ports = databasePorts(db, {
      fetch: async () => new Response("offline", { status: 503 }),
      clock,
      forecastUrl: "http://127.0.0.1:9/",
      maxAgeMinutes: { calendar: 15, feeds: 30, weather: 24 * 60 },
    });
    const core = (model: string) =>
      composeCore({
        ports,
        model: createModelClient({
          routes: resolveModelRoutes(undefined, { ollamaHost: server.url, model }),
        }),
        clock,
        config: {},
        logger: silentLogger,
      }).assistant;
    const parts: string[] = [];
    for (const slot of ["morning", "midday", "afternoon", "evening"] as SlotName[]) {
      const model = `sim-${slot}`;
      await core(model).brief(user.id, { slot });
      parts.push(`${slot} ${server.chatRequests(model).length}`);
    }
    await core("sim-chat").reply(
      user.id,
      { platform: "cli", threadKey: "bench-chat" },
      "what meeting do I have today?",
    );
    parts.push(`chat "what meeting do I have today?" ${server.chatRequests("sim-chat").length}`);
    return [
      `model requests (batching model wanting what each prompt names; before: morning 1, check-ins 2–4, chat 2): ${parts.join(", ")}`,
    ];
  } finally {
    await database.close();
    await server.close();
  }
}

function fraction(part: number, whole: number): string {
  return `${part}/${whole}`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)} %`;
}
