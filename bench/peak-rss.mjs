// Preloaded into a measured process (`node --import ./bench/peak-rss.mjs …`): at exit it writes the
// process's peak resident set size in kilobytes to $BENCH_PEAK_FILE.
import { writeFileSync } from "node:fs";

const target = process.env.BENCH_PEAK_FILE;
if (target) {
  process.on("exit", () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
