/**
 * Hostile model replies, through the real model client, the Ollama test server and the real core over
 * embedded PGlite: a briefing and a chat turn each meet a model that sends NUL characters, arguments nested
 * 1,000 deep, 10,000 tool calls in one turn, and a stream that never ends (the server ignores num_predict;
 * the client's output cap, the default 2,048 tokens, cuts it). Per case: how the run ended, wall time, peak
 * heap growth and peak RSS growth while it ran. The test server adds no latency; the figures are this
 * machine's own work.
 */
import { openDatabase } from "../db/client.ts";
import { createUser } from "../db/queries/users.ts";
import { createDbPorts } from "../db/stores/index.ts";
import { resolveModelRoutes } from "../src/config/model-routes.ts";
import { composeCore, fixedClock, silentLogger } from "../src/core/index.ts";
import { createModelClient } from "../src/models/index.ts";
import { LONDON, START, seedTasks, seedWeather } from "../test/core/fixture.ts";
import { type ScriptedReply, startOllamaServer } from "../test/servers/ollama-server.ts";
import type { BenchSection } from "./types.ts";

const WRITE = { content: '"Renew passport" is due at 14:30.' };

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { filter: "open" };
  for (let level = 1; level < depth; level += 1) value = { filter: value };
  return value;
}

const CASES: Array<{ name: string; script: () => ScriptedReply[] }> = [
  {
    name: "NUL in prose and arguments",
    script: () => [
      { toolCalls: [{ name: "search_notes", arguments: { query: "pass\u0000port" } }] },
      { content: '"Renew passport"\u0000 is due at 14:30.\u0000' },
    ],
  },
  {
    name: "arguments nested 1,000 deep",
    script: () => [{ toolCalls: [{ name: "list_tasks", arguments: nested(1_000) }] }, WRITE],
  },
  {
    name: "10,000 tool calls in one turn",
    script: () => [
      {
        toolCalls: Array.from({ length: 10_000 }, () => ({
          name: "list_tasks",
          arguments: { filter: "open" },
        })),
      },
      WRITE,
    ],
  },
  { name: "endless stream", script: () => [{ endless: { token: "blah " } }] },
];

interface Measured {
  ended: string;
  wallMs: number;
  heapMb: number;
  rssMb: number;
}

export async function runHostileModelBench(): Promise<BenchSection> {
  const server = await startOllamaServer();
  const database = await openDatabase({ dataDir: "memory://" });
  try {
    await database.migrate();
    const db = database.db;
    const clock = fixedClock(START);
    const ports = createDbPorts(db);
    const client = (model: string, numPredict?: number) =>
      createModelClient({
        routes: resolveModelRoutes(undefined, { ollamaHost: server.url, model }),
        retry: { attempts: 1 },
        ...(numPredict ? { numPredict } : {}),
      });
    let users = 0;
    const measure = async (
      script: ScriptedReply[],
      run: (assistant: ReturnType<typeof composeCore>["assistant"], userId: number) => Promise<string>,
      numPredict?: number,
    ): Promise<Measured> => {
      users += 1;
      const user = await createUser(db, { name: `bench-hostile-${users}`, ...LONDON });
      await seedTasks(db, user);
      // A model of its own per run, so no reply left over from one run reaches the next.
      const model = `hostile-${users}`;
      server.setModel(model);
      const { assistant } = composeCore({
        ports,
        model: client(model, numPredict),
        clock,
        config: {},
        logger: silentLogger,
      });
      server.script(model, script);
      global.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      const rssBefore = process.memoryUsage().rss;
      let heapPeak = heapBefore;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => {
        const usage = process.memoryUsage();
        heapPeak = Math.max(heapPeak, usage.heapUsed);
        rssPeak = Math.max(rssPeak, usage.rss);
      }, 5);
      const started = performance.now();
      const ended = await run(assistant, user.id);
      const wallMs = performance.now() - started;
      clearInterval(sampler);
      const usage = process.memoryUsage();
      heapPeak = Math.max(heapPeak, usage.heapUsed);
      rssPeak = Math.max(rssPeak, usage.rss);
      return {
        ended,
        wallMs,
        heapMb: (heapPeak - heapBefore) / 2 ** 20,
        rssMb: (rssPeak - rssBefore) / 2 ** 20,
      };
    };
    await seedWeather(db);

    const lines = [
      `${"case".padEnd(32)} ${"path".padEnd(9)} ${"ended as".padEnd(34)} ${"wall ms".padStart(8)} ${"heap +MB".padStart(9)} ${"RSS +MB".padStart(8)}`,
    ];
    for (const entry of CASES) {
      // 1,000-deep arguments and 10,000 calls are past any honest output cap (a server honouring
      // num_predict never sends them); these cases lift the cap so that what reaches the core is measured.
      const cap = entry.name === "endless stream" ? undefined : 1_000_000;
      const briefing = await measure(
        entry.script(),
        async (assistant, userId) => {
          const outcome = await assistant.brief(userId, { slot: "morning" });
          return `${outcome.mode}, ${outcome.receipts.length} receipts`;
        },
        cap,
      );
      const chat = await measure(
        entry.script(),
        async (assistant, userId) => {
          const reply = await assistant.reply(
            userId,
            { platform: "cli", threadKey: `bench-${userId}` },
            "hi",
          );
          return reply.grounding === null
            ? `apology, ${reply.receipts.length} receipts`
            : `answer, ${reply.receipts.length} receipts`;
        },
        cap,
      );
      for (const [path, m] of [
        ["briefing", briefing],
        ["chat", chat],
      ] as const) {
        lines.push(
          `${entry.name.padEnd(32)} ${path.padEnd(9)} ${m.ended.padEnd(34)} ${m.wallMs.toFixed(0).padStart(8)} ${m.heapMb.toFixed(1).padStart(9)} ${m.rssMb.toFixed(1).padStart(8)}`,
        );
      }
    }
    return {
      title: "hostile-model: model replies that used to crash runs, now bounded (no simulated latency)",
      lines: [
        ...lines,
        "limits: 16 tool calls per turn (the rest answered with one error), arguments ≤ 6 levels and 20,000 characters, output cap num_predict 2,048 (enforced on the stream), turn deadline 180 s, run deadline 600 s (briefing) / 180 s (chat)",
        "heap and RSS: peak growth over the run, sampled every 5 ms (run with node --expose-gc for a settled baseline)",
      ],
    };
  } finally {
    await server.close();
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runHostileModelBench();
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
