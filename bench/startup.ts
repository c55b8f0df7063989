/**
 * The first hour, measured: `briefbot --help` and `briefbot user list` (wall time and peak memory), and the
 * bot's time from launch to a healthy `/healthz` and its idle memory, on embedded PGlite. Side by side:
 * - "tsx": the sources transpiled at start, as `briefbot` ran before it shipped compiled JavaScript;
 * - "dist": the compiled program the `briefbot` bin, `npm start` and the image run;
 * - "before": the tree at $BENCH_BEFORE_REF (e.g. the commit this work started from), when set and git
 *   can extract it, run as it ran then.
 * `user list` is measured twice on dist: owning the folder (no bot running) and through a running bot.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBuilt } from "../bin/build.js";
import type { BenchSection } from "./types.ts";

const ROOT = join(import.meta.dirname, "..");
const PEAK_HOOK = join(import.meta.dirname, "peak-rss.mjs");
const ROUNDS = 5;

interface Variant {
  name: string;
  /** The node arguments that run `briefbot` this way. */
  command: string[];
  cwd: string;
}

interface Measured {
  ms: number;
  peakKb: number;
}

export async function runStartupBench(): Promise<BenchSection> {
  await ensureBuilt();
  const scratch = mkdtempSync(join(tmpdir(), "briefbot-bench-startup-"));
  const variants: Variant[] = [
    { name: "tsx", command: ["--import", "tsx", join(ROOT, "src/cli/main.ts")], cwd: ROOT },
    { name: "dist", command: [join(ROOT, "bin/briefbot.js")], cwd: ROOT },
  ];
  const before = extractBefore(scratch);
  if (before) variants.unshift(before);
  const lines: string[] = [
    `${ROUNDS} rounds each, medians; peak = the highest resident set size of the process (VmHWM); wall time from spawn to exit`,
    before
      ? `"before" is ${process.env.BENCH_BEFORE_REF} run as it ran then (tsx registered by its bin)`
      : "set BENCH_BEFORE_REF=<commit> to add the tree before this work as a column",
  ];
  try {
    // --help: no database at all.
    const help = new Map<string, Measured>();
    for (const variant of variants)
      help.set(variant.name, median(await repeat(() => runOnce(variant, ["--help"], scratch))));
    lines.push(row("briefbot --help", help, 500));

    // user list on an embedded folder that already exists, with no bot: the command owns the folder.
    const dataDir = join(scratch, "data");
    await runOnce(variants.at(-1) as Variant, ["user", "add", "ann", "--tz", "Europe/London"], scratch, {
      dataDir,
    });
    const list = new Map<string, Measured>();
    for (const variant of variants) {
      list.set(
        variant.name,
        median(await repeat(() => runOnce(variant, ["user", "list"], scratch, { dataDir }))),
      );
    }
    lines.push(row("user list, no bot running", list, 1500));

    // The bot: first start on an empty folder (creates the cluster), then a restart on it.
    const bots: string[] = [];
    for (const variant of variants) {
      const fresh = await startBot(variant, join(scratch, `bot-${variant.name}`), scratch);
      // Creating the cluster is the memory-hungriest moment of the bot's life (initdb ran a second PGlite).
      const freshPeakMb = fresh.peakRssMb();
      await fresh.stop();
      const again = await startBot(variant, join(scratch, `bot-${variant.name}`), scratch);
      let through: Measured | undefined;
      if (variant.name === "dist") {
        through = median(
          await repeat(() =>
            runOnce(variant, ["user", "list"], scratch, { dataDir: join(scratch, "bot-dist") }),
          ),
        );
      }
      const idleMb = await again.idleRssMb();
      await again.stop();
      bots.push(
        `bot (${variant.name}): /healthz 200 after ${seconds(fresh.readyMs)} on a new folder (peak ${freshPeakMb} MB), ${seconds(again.readyMs)} on an existing one (target ≤ 5 s); idle RSS ${idleMb} MB (target ≤ 200 MB)`,
      );
      if (through)
        lines.push(`user list through the running bot (dist): ${format(through)} (target ≤ 1.5 s)`);
    }
    lines.push(...bots);
    return {
      title: "startup: the CLI and the bot, tsx on sources vs compiled dist/ (PGlite, no platforms)",
      lines,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The tree at BENCH_BEFORE_REF, unpacked beside the current node_modules. */
function extractBefore(scratch: string): Variant | undefined {
  const ref = process.env.BENCH_BEFORE_REF;
  if (!ref) return undefined;
  const folder = join(scratch, "before");
  try {
    execFileSync("sh", [
      "-c",
      `mkdir -p "${folder}" && git -C "${ROOT}" archive "${ref}" | tar -x -C "${folder}"`,
    ]);
  } catch {
    return undefined;
  }
  symlinkSync(join(ROOT, "node_modules"), join(folder, "node_modules"));
  return { name: "before", command: [join(folder, "bin/briefbot.js")], cwd: folder };
}

async function repeat(measure: () => Promise<Measured>): Promise<Measured[]> {
  const results: Measured[] = [];
  for (let round = 0; round < ROUNDS; round += 1) results.push(await measure());
  return results;
}

function environment(
  scratch: string,
  dataDir: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(DATABASE_URL|TELEGRAM_|SLACK_|OLLAMA_|BRIEFBOT_)/.test(key),
    ),
  );
  return {
    ...clean,
    BRIEFBOT_DATA_DIR: dataDir,
    OLLAMA_HOST: "127.0.0.1:9",
    LOG_LEVEL: "warn",
    BENCH_PEAK_FILE: join(scratch, `peak-${process.hrtime.bigint()}`),
    ...extra,
  };
}

async function runOnce(
  variant: Variant,
  args: string[],
  scratch: string,
  options: { dataDir?: string } = {},
): Promise<Measured> {
  const env = environment(scratch, options.dataDir ?? join(scratch, "unused"));
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PEAK_HOOK, ...variant.command, ...args], {
    cwd: variant.cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const ms = performance.now() - started;
  if (code !== 0)
    throw new Error(`${variant.name} ${args.join(" ")} exited ${code}: ${stderr.trim().split("\n")[0]}`);
  return { ms, peakKb: Number(readFileSync(env.BENCH_PEAK_FILE ?? "", "utf8")) };
}

interface RunningBot {
  readyMs: number;
  idleRssMb(): Promise<number>;
  /** The highest resident set size so far (VmHWM). */
  peakRssMb(): number;
  stop(): Promise<void>;
}

async function startBot(variant: Variant, dataDir: string, scratch: string): Promise<RunningBot> {
  const port = 41_000 + Math.floor(Math.random() * 9_000);
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...variant.command, "start"], {
    cwd: variant.cwd,
    env: environment(scratch, dataDir, { PORT: String(port) }),
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  for (;;) {
    const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    if (answer?.status === 200) break;
    if (performance.now() - started > 180_000) {
      child.kill("SIGKILL");
      throw new Error(`${variant.name} bot: no healthy /healthz within 180 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const readyMs = performance.now() - started;
  const statusMb = (field: "VmRSS" | "VmHWM") => {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  };
  return {
    readyMs,
    peakRssMb: () => statusMb("VmHWM"),
    async idleRssMb() {
      // Let start-up work (first syncs, the first tick) settle before reading.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      return statusMb("VmRSS");
    },
    async stop() {
      child.kill("SIGINT");
      await exited;
    },
  };
}

function median(results: Measured[]): Measured {
  const middle = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return {
    ms: middle(results.map((result) => result.ms)),
    peakKb: middle(results.map((result) => result.peakKb)),
  };
}

function row(label: string, results: Map<string, Measured>, targetMs: number): string {
  const cells = [...results].map(([name, measured]) => `${name} ${format(measured)}`);
  const dist = results.get("dist");
  const tsx = results.get("tsx");
  const ratio = dist && tsx ? `; dist/tsx ${(dist.ms / tsx.ms).toFixed(2)}× time` : "";
  const met = dist ? (dist.ms <= targetMs ? "met" : "NOT met") : "?";
  return `${label}: ${cells.join(" | ")}${ratio} (target ≤ ${targetMs / 1000} s: ${met})`;
}

function format(measured: Measured): string {
  return `${seconds(measured.ms)}, peak ${Math.round(measured.peakKb / 1024)} MB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
