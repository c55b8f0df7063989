// Preloaded into a measured process (`node --import ./bench/peak-rss.mjs …`): at exit it writes the
// process's peak resident set size in kilobytes to $BENCH_PEAK_FILE. It reads VmHWM, the high-water mark
// of this program's own memory: getrusage's maxRSS would also count the bench process it was forked from.
import { readFileSync, writeFileSync } from "node:fs";

const target = process.env.BENCH_PEAK_FILE;
if (target) {
  process.on("exit", () => {
    const status = readFileSync("/proc/self/status", "utf8");
    writeFileSync(target, /VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0");
  });
}
