/**
 * Orphans on the embedded database (test/replicas/kill-loop.ts): 30 users × 4 slots a minute apart, the
 * only `briefbot start` killed with SIGKILL over and over while the slots fall due, then started once more.
 * The measurement before process leases: 107 kills over 12 minutes left 71 runs in `generating`,
 * and 25 minutes later 54 were still there — neither delivered nor failed.
 *
 * Run twice side by side: with the default route (one endpoint, one request at a time, what `OLLAMA_HOST`
 * alone gives) and with a config giving briefings three of the server's four slots, as a user with
 * `OLLAMA_NUM_PARALLEL=4` would write it. Taking orphans back is the same in both; generating them again is
 * model throughput.
 *
 * SIMULATED: the model is the Ollama test server (500 ms to the first token, 2 ms per token, 4 at a time);
 * Telegram is its test server. The latency is what leaves work for a kill to interrupt: since start-up
 * takes under a second, at 150 ms a 2–8-s life wrote every briefing due before it was killed, and the last
 * start had nothing to take back.
 */
import { ensureBuilt } from "../bin/build.js";
import { runKillLoop } from "../test/replicas/kill-loop.ts";

export async function runOrphanBench(): Promise<string[]> {
  await ensureBuilt();
  const lines: string[] = [];
  for (const briefingSlots of [undefined, 3]) lines.push(...(await orphanFigures(briefingSlots)));
  return lines;
}

async function orphanFigures(briefingSlots: number | undefined): Promise<string[]> {
  const users = 30;
  const slots = 4;
  const result = await runKillLoop({
    users,
    slots,
    killForMs: 200_000,
    lifeMs: [2000, 8000],
    modelMs: 500,
    briefingSlots,
    timeoutMs: 300_000,
  });
  const capacity =
    briefingSlots === undefined
      ? "default route (1 model request at a time)"
      : `BRIEFBOT_CONFIG with ${briefingSlots} briefing slots`;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const failed =
    [...result.failedReasons].map(([reason, count]) => `${count} "${reason}"`).join(", ") || "none";
  return [
    `— orphans on embedded PGlite: ${users} users × ${slots} slots a minute apart, ${result.kills} kill -9 of the only process over ${seconds(200_000)}, ${capacity}:`,
    `  when the kills stopped: ${result.atLastKill.runs} runs claimed, ${result.atLastKill.delivered} delivered, ` +
      `${result.atLastKill.generating} generating, ${result.atLastKill.claimed} claimed, ${result.atLastKill.generated} generated, ${result.atLastKill.posts} posts`,
    `  started once more (times from its spawn, start-up included; start-up summary after ${seconds(result.startupMs)}): all ${result.orphans} orphans taken back after ${seconds(result.orphansTakenBackMs)}, ` +
      `all generated again after ${seconds(result.orphansRegeneratedMs)} (target: within a minute); every run settled after ${seconds(result.allSettledMs)}`,
    `  final: ${result.final.runs}/${result.expectedRuns} runs (${result.distinctKeys} distinct (user, slot, date)), ` +
      `${result.final.delivered} delivered, ${result.final.failed} failed (${failed}), ${result.final.skipped} skipped, ` +
      `${result.final.generating + result.final.claimed} stuck; ${result.posts} posts, ${result.duplicates} duplicates`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await runOrphanBench()) console.log(`  ${line}`);
}
