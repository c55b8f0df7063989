/**
 * `npm run bench`: every benchmark, measured side by side in one run, printed as figures and ratios.
 * Model latency is simulated by the Ollama test server's latency model (no GPU here); each section says so.
 */
import { cpus } from "node:os";
import { runBriefingBench } from "./briefing.ts";
import { runCaldavSyncBench } from "./caldav-sync.ts";
import { runFanoutBench } from "./fanout.ts";
import { runGroundingBench } from "./grounding.ts";
import { runHostileBench } from "./hostile.ts";
import { runHostileModelBench } from "./hostile-model.ts";
import { runReplicasBench } from "./replicas.ts";
import { runRoutingBench } from "./routing.ts";
import { runStartupBench } from "./startup.ts";
import { runTodoistSyncBench } from "./todoist-sync.ts";
import type { BenchSection } from "./types.ts";

const benches: [string, () => Promise<BenchSection>][] = [
  ["routing", runRoutingBench],
  ["briefing", runBriefingBench],
  ["grounding", runGroundingBench],
  ["fanout", runFanoutBench],
  ["hostile", runHostileBench],
  ["hostile-model", runHostileModelBench],
  ["startup", runStartupBench],
  ["replicas", runReplicasBench],
  ["caldav-sync", runCaldavSyncBench],
  ["todoist-sync", runTodoistSyncBench],
];

const only = process.argv.slice(2);
console.log(
  `briefbot benchmarks — node ${process.version}, ${cpus().length} cores, ${new Date().toISOString()}`,
);
console.log(
  "Model latency is SIMULATED by the Ollama test server (test/servers/ollama-server.ts); no GPU is used.\n",
);
let failed = false;
for (const [name, bench] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  const started = performance.now();
  try {
    const section = await bench();
    console.log(`## ${section.title}  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    for (const line of section.lines) console.log(`  ${line}`);
  } catch (error) {
    failed = true;
    console.log(`## ${name}: FAILED — ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log("");
}
process.exitCode = failed ? 1 : 0;
