/**
 * Routing benchmark: what GPU pinning and queue priority do to interactive latency while long work runs.
 * Runs against the simulated Ollama test server (latency model, not a GPU), through the real router and
 * the official client, so it measures queueing and routing, not model speed.
 */
import { ModelRoutesFileSchema, resolveModelRoutes } from "../src/config/model-routes.ts";
import type { ModelRole } from "../src/core/model.ts";
import { createModelClient, type ModelRouter } from "../src/models/router.ts";
import {
  type LatencyModel,
  type OllamaTestServer,
  startOllamaServer,
} from "../test/servers/ollama-server.ts";
import type { BenchSection } from "./types.ts";

const LATENCY: LatencyModel = { timeToFirstTokenMs: 40, perTokenMs: 5 };
const MODEL = "qwen2.5:7b";
const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(" ");
/** Reply lengths in tokens; the test server streams one whitespace-delimited word per chunk. */
const REPLY_TOKENS = { interactive: 20, briefing: 60, background: 30 };
/** Streams at 40 tokens/s like a 7B model on a GPU, and is cancelled once the chats are measured. */
const LONG_BRIEFING = { tokens: 2000, perTokenMs: 25 };
const ROUNDS = 5;
const TARGET_RATIO = 1.1;

export async function runRoutingBench(): Promise<BenchSection> {
  const gpu0 = await simulatedEndpoint();
  const gpu1 = await simulatedEndpoint();
  try {
    const pinned = client(gpu0.url, gpu1.url, true);
    const spread = client(gpu0.url, gpu1.url, true, true);
    const sharedWithPriority = client(gpu0.url, gpu0.url, true);
    const sharedFifo = client(gpu0.url, gpu0.url, false);
    await chatLatency(pinned); // connection and JIT warm-up
    const idle: number[] = [];
    const busyOther: number[] = [];
    const withPriority: number[] = [];
    const withoutPriority: number[] = [];
    const spreadChat: number[] = [];
    const spreadStarts = { gpu0: 0, gpu1: 0 };
    // Rounds interleave the scenarios so drifting machine load hits all of them alike.
    for (let round = 0; round < ROUNDS; round += 1) {
      idle.push(await chatLatency(pinned), await chatLatency(pinned));

      const briefing = await startWork(
        pinned,
        gpu1,
        "briefing",
        LONG_BRIEFING.tokens,
        LONG_BRIEFING.perTokenMs,
      );
      busyOther.push(await chatLatency(pinned), await chatLatency(pinned));
      if (!briefing.running())
        throw new Error("the briefing ended before the chats; make LONG_BRIEFING longer");
      await briefing.stop();

      // Briefings spread over both endpoints: six queued, one running on each; the chat waits for gpu0's.
      const before = { gpu0: startedCount(gpu0), gpu1: startedCount(gpu1) };
      const queuedBriefings = Array.from({ length: 6 }, () =>
        spread.chat(prompt("briefing", REPLY_TOKENS.briefing)),
      );
      while (startedCount(gpu0) === before.gpu0 || startedCount(gpu1) === before.gpu1) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      spreadChat.push(await chatLatency(spread));
      await Promise.all(queuedBriefings);
      spreadStarts.gpu0 += startedCount(gpu0) - before.gpu0 - 1; // less the chat itself
      spreadStarts.gpu1 += startedCount(gpu1) - before.gpu1;

      for (const [router, samples] of [
        [sharedWithPriority, withPriority],
        [sharedFifo, withoutPriority],
      ] as const) {
        const ahead = [await startWork(router, gpu0, "briefing", REPLY_TOKENS.briefing)];
        for (let job = 0; job < 3; job += 1)
          ahead.push(await startWork(router, gpu0, "background", REPLY_TOKENS.background));
        samples.push(await chatLatency(router));
        await Promise.all(ahead.map((work) => work.stop()));
      }
    }

    const idleMedian = median(idle);
    const ratio = (samples: number[]) => median(samples) / idleMedian;
    const pinnedRatio = ratio(busyOther);
    return {
      title: "Model routing (simulated Ollama: test-server latency model, not real GPUs)",
      lines: [
        `latency model: ${LATENCY.timeToFirstTokenMs} ms to first token, ${LATENCY.perTokenMs} ms/token; replies of ` +
          `${REPLY_TOKENS.interactive} (chat), ${REPLY_TOKENS.briefing} (briefing), ${REPLY_TOKENS.background} ` +
          `(background) tokens; each endpoint serves one request at a time; medians over ${ROUNDS} interleaved rounds`,
        `idle interactive chat: ${idleMedian.toFixed(0)} ms`,
        `two endpoints, briefing streaming at ${1000 / LONG_BRIEFING.perTokenMs} tokens/s on gpu1, chat on gpu0: ` +
          `${median(busyOther).toFixed(0)} ms, ratio ` +
          `${pinnedRatio.toFixed(2)} to idle (target ≤ ${TARGET_RATIO}: ${pinnedRatio <= TARGET_RATIO ? "met" : "MISSED"})`,
        `one shared endpoint, briefing running + 3 background queued ahead, with priority: ` +
          `${median(withPriority).toFixed(0)} ms, ratio ${ratio(withPriority).toFixed(2)} (waits for the running briefing only)`,
        `one shared endpoint, same load, without priority (FIFO): ${median(withoutPriority).toFixed(0)} ms, ratio ` +
          `${ratio(withoutPriority).toFixed(2)}`,
        `two endpoints, briefings spread over both (6 queued, one running on each): chat ${median(spreadChat).toFixed(0)} ms, ` +
          `ratio ${ratio(spreadChat).toFixed(2)} (waits for the one briefing request running on its endpoint); ` +
          `briefing requests served gpu0 ${spreadStarts.gpu0} / gpu1 ${spreadStarts.gpu1}`,
      ],
    };
  } finally {
    await Promise.all([gpu0.close(), gpu1.close()]);
  }
}

function simulatedEndpoint(): Promise<OllamaTestServer> {
  return startOllamaServer({
    models: {
      [MODEL]: {
        // The bench writes the reply length it wants into the prompt.
        reply: ({ request }) => {
          const [tokens, perTokenMs] = String(request.messages.at(-1)?.content ?? "1")
            .split("@")
            .map(Number);
          return {
            content: words(tokens || 1),
            ...(perTokenMs === undefined ? {} : { latency: { perTokenMs } }),
          };
        },
      },
    },
    latency: LATENCY,
  });
}

function client(
  interactiveUrl: string,
  workUrl: string,
  prioritizeInteractive: boolean,
  spreadBriefings = false,
): ModelRouter {
  const shared = interactiveUrl === workUrl;
  const routes = resolveModelRoutes(
    ModelRoutesFileSchema.parse({
      endpoints: shared
        ? [{ name: "gpu0", url: interactiveUrl, concurrency: 1 }]
        : [
            { name: "gpu0", url: interactiveUrl, concurrency: 1 },
            { name: "gpu1", url: workUrl, concurrency: 1 },
          ],
      routes: {
        interactive: { endpoint: "gpu0", model: MODEL },
        briefing: spreadBriefings
          ? { endpoints: ["gpu1", "gpu0"], model: MODEL }
          : { endpoint: shared ? "gpu0" : "gpu1", model: MODEL },
        background: { endpoint: shared ? "gpu0" : "gpu1", model: MODEL },
      },
    }),
    { ollamaHost: interactiveUrl, model: MODEL },
  );
  return createModelClient({ routes, prioritizeInteractive });
}

/** The prompt tells the simulated server how long to answer, and optionally how fast. */
const prompt = (role: ModelRole, tokens: number, perTokenMs?: number) => ({
  role,
  messages: [
    { role: "user" as const, content: perTokenMs === undefined ? `${tokens}` : `${tokens}@${perTokenMs}` },
  ],
});

async function chatLatency(router: ModelRouter): Promise<number> {
  const startedAt = performance.now();
  await router.chat(prompt("interactive", REPLY_TOKENS.interactive));
  return performance.now() - startedAt;
}

/** Queues work and, for the first in line, waits until the server is generating it. */
async function startWork(
  router: ModelRouter,
  server: OllamaTestServer,
  role: ModelRole,
  tokens: number,
  perTokenMs?: number,
) {
  const controller = new AbortController();
  const before = startedCount(server);
  let running = true;
  const done = router
    .chat({ ...prompt(role, tokens, perTokenMs), signal: controller.signal })
    .catch(() => undefined)
    .finally(() => {
      running = false;
    });
  const queuedBehindOthers = router.stats().some((stats) => stats.queued > 0 || stats.running > 1);
  if (!queuedBehindOthers) {
    while (startedCount(server) <= before) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return {
    running: () => running,
    /** Cancels what is left: the bench measured what it needed. */
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

const startedCount = (server: OllamaTestServer) =>
  server.events.filter((event) => event.type === "started").length;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runRoutingBench();
  console.log([section.title, ...section.lines.map((line) => `  ${line}`)].join("\n"));
}
