/**
 * The real binary (`bin/briefbot.js` over dist/), spawned as `npm start` runs it, with nothing configured
 * but what a test passes. A wait that fails says what the process printed, and whether it had exited:
 * on a loaded CI machine that output is the only clue to why.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

const root = join(import.meta.dirname, "../..");
/** Settings a developer's shell may hold that must not leak into a process the test configures. */
const inherited = /^(DATABASE_URL|TELEGRAM_|SLACK_|OLLAMA_|BRIEFBOT_|OPEN_METEO|PORT$)/;

export interface RealRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  /** The exit code; a process still running after `timeoutMs` is killed and the wait fails with its output. */
  exitCode: (timeoutMs?: number) => Promise<number | null>;
  /** Resolves once `predicate` holds for stdout; rejects with the output when the process exits first. */
  waitForStdout: (predicate: (stdout: string) => boolean, what: string, timeoutMs?: number) => Promise<void>;
}

export interface RealBriefbot {
  run: (args: string[], env?: Record<string, string>) => RealRun;
  command: (...args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** SIGKILLs whatever is still running, so a failed assertion leaves no bot behind. */
  killAll: () => void;
}

export function realBriefbot(dataDir: string, baseEnv: Record<string, string> = {}): RealBriefbot {
  const children = new Set<ChildProcess>();

  const run = (args: string[], env: Record<string, string> = {}): RealRun => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !inherited.test(key)));
    const child = spawn(process.execPath, [join(root, "bin/briefbot.js"), ...args], {
      cwd: root,
      env: { ...clean, BRIEFBOT_DATA_DIR: dataDir, LOG_LEVEL: "warn", ...baseEnv, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => {
        children.delete(child);
        resolve(code);
      }),
    );
    const printed = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
    const waitForStdout = async (
      predicate: (stdout: string) => boolean,
      what: string,
      timeoutMs = 180_000,
    ): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(stdout)) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(
            `briefbot ${args.join(" ")} exited (${child.exitCode ?? child.signalCode}) before ${what}\n${printed()}`,
          );
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${printed()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const exitCode = async (timeoutMs = 120_000): Promise<number | null> => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"running">((resolve) => {
        timer = setTimeout(() => resolve("running"), timeoutMs);
      });
      const outcome = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (outcome !== "running") return outcome;
      child.kill("SIGKILL");
      throw new Error(`briefbot ${args.join(" ")} still ran after ${timeoutMs} ms\n${printed()}`);
    };
    return { child, stdout: () => stdout, stderr: () => stderr, exited, exitCode, waitForStdout };
  };

  const command = async (...args: string[]) => {
    const started = run(args);
    const code = await started.exitCode();
    return { code, stdout: started.stdout(), stderr: started.stderr() };
  };

  const killAll = () => {
    for (const child of children) child.kill("SIGKILL");
  };

  return { run, command, killAll };
}

/**
 * A port nothing listens on right now, below Linux's ephemeral range. Inside it — where the kernel picks
 * `listen(0)` ports and the local ports of outgoing connections — a port chosen early and bound later (a
 * soak binds the same one at every restart for minutes) can be taken meanwhile by one of the run's own
 * thousands of connections: a soak's bot failed to start with "port … is already in use".
 */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  for (let tries = 0; tries < 50; tries += 1) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (below - LOWEST_PORT));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${below} after 50 tries`);
}

const LOWEST_PORT = 10_000;

function ephemeralRangeStart(): number {
  try {
    const start = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    return Number.isInteger(start) && start > LOWEST_PORT + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a listener could bind `port` on every address, as the bot does. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/** A `briefbot start` a test runs, and the port its `/healthz` answers on. */
export interface RunningBot {
  run: RealRun;
  port: number;
}

/** `/healthz` of a running bot: its HTTP status and one platform's state. */
export async function platformHealth(
  bot: RunningBot,
  platform: "telegram" | "slack",
): Promise<{ status: number; state: string | undefined }> {
  const response = await fetch(`http://127.0.0.1:${bot.port}/healthz`);
  const body = (await response.json()) as { platforms: Record<string, { state: string } | undefined> };
  return { status: response.status, state: body.platforms[platform]?.state };
}

/**
 * Waits until `/healthz` shows the platform in `state` with a 200 (the scheduler's first tick may come a
 * moment after the summary on a loaded machine; until then a process answers 503). Returns how long it took.
 */
export async function healthBecomes(
  bot: RunningBot,
  platform: "telegram" | "slack",
  state: string,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const now = await platformHealth(bot, platform).catch(() => undefined);
    if (now?.state === state && now.status === 200) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `${platform} never became ${state} (last: ${JSON.stringify(now)})\n${bot.run.stdout()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
