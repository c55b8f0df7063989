import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "briefbot-start-"));
const children = new Set<ChildProcess>();
afterAll(() => {
  // A failed assertion must not leave a bot running.
  for (const child of children) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** The real binary, as `npm start` runs it, with nothing configured but a fresh data folder. */
function briefbot(args: string[], env: Record<string, string> = {}): ChildProcess {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(DATABASE_URL|TELEGRAM_|SLACK_|OLLAMA_|BRIEFBOT_|OPEN_METEO)/.test(key),
    ),
  );
  const child = spawn(process.execPath, [join(root, "bin/briefbot.js"), ...args], {
    cwd: root,
    env: { ...clean, BRIEFBOT_DATA_DIR: dataDir, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

function collect(child: ChildProcess): { output: () => string; exited: Promise<number | null> } {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { output: () => output, exited };
}

/** Waits for the bot's output to show `what`; a bot that exits first (a port taken, say) fails with its output. */
async function waitFor(
  child: ChildProcess,
  output: () => string,
  predicate: (output: string) => boolean,
  what: string,
  timeoutMs = 180_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate(output())) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`briefbot exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; it printed:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Each test spawns real processes (PGlite initdb on the first start): slow on a loaded two-core machine.
describe("briefbot start", { timeout: 240_000 }, () => {
  it("starts on embedded PGlite with no configuration, says what runs, and stops cleanly on SIGINT", async () => {
    const port = String(40_000 + Math.floor(Math.random() * 20_000));
    const child = briefbot(["start"], { PORT: port, OLLAMA_HOST: "127.0.0.1:9" });
    const run = collect(child);
    await waitFor(child, run.output, (output) => output.includes("  syncs      "), "the start-up summary");
    expect(run.output()).toContain(`embedded PGlite in ${dataDir}`);
    expect(run.output()).toContain("telegram   off (set TELEGRAM_BOT_TOKEN to enable)");
    // Nothing listens on the port we point OLLAMA_HOST at: the operator is told at start, not at 07:00.
    expect(run.output()).toMatch(
      /models {5}interactive qwen2\.5:7b on default \(http:\/\/127\.0\.0\.1:9\) — UNREACHABLE/,
    );
    expect(run.output()).toContain("slack      off (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to enable)");
    child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain("stopped cleanly");
  });

  it("refuses a broken configuration with one line per problem and exit code 2", async () => {
    const run = collect(
      briefbot(["start"], { PORT: "eighty", TELEGRAM_WEBHOOK_URL: "https://x.example/telegram/webhook" }),
    );
    expect(await run.exited).toBe(2);
    expect(run.output().trim().split("\n")).toEqual([
      "briefbot: PORT: must be a port number",
      "briefbot: TELEGRAM_BOT_TOKEN: required when TELEGRAM_WEBHOOK_URL is set",
      "briefbot: TELEGRAM_WEBHOOK_SECRET: required in webhook mode, so forged updates are refused",
    ]);
  });

  it("migrates on request and the data survives a restart", async () => {
    const migrate = collect(briefbot(["migrate"]));
    expect(await migrate.exited).toBe(0);
    expect(migrate.output()).toContain(`database is up to date (PGlite in ${dataDir})`);
    const add = collect(briefbot(["user", "add", "kim", "--tz", "Asia/Seoul"]));
    expect(await add.exited).toBe(0);
    const list = collect(briefbot(["user", "list"]));
    expect(await list.exited).toBe(0);
    expect(list.output()).toContain("kim  Asia/Seoul");
  });
});
