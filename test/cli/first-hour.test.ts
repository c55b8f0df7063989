/**
 * The first hour of running briefbot, with real processes on one embedded data folder: the bot owns the
 * folder and a CLI change reaches it at once, a second bot is refused, a `kill -9` leaves nothing a restart
 * cannot recover, and fatal start errors end the process with one line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const root = join(import.meta.dirname, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "briefbot-first-hour-"));
const children = new Set<ChildProcess>();
let telegram: TelegramTestServer;

beforeAll(async () => {
  telegram = await startTelegramServer();
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await telegram?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The real binary (dist/), with nothing configured but the data folder and what the test passes. */
function briefbot(args: string[], env: Record<string, string> = {}): Run {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(DATABASE_URL|TELEGRAM_|SLACK_|OLLAMA_|BRIEFBOT_|OPEN_METEO|PORT$)/.test(key),
    ),
  );
  const child = spawn(process.execPath, [join(root, "bin/briefbot.js"), ...args], {
    cwd: root,
    env: { ...clean, BRIEFBOT_DATA_DIR: dataDir, LOG_LEVEL: "warn", OLLAMA_HOST: "127.0.0.1:9", ...env },
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
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function command(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = briefbot(args);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const randomPort = () => String(40_000 + Math.floor(Math.random() * 20_000));

function startBot(env: Record<string, string> = {}): Run {
  return briefbot(["start"], {
    PORT: randomPort(),
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
    ...env,
  });
}

describe("the first hour, real processes on one embedded folder", { timeout: 300_000 }, () => {
  let bot: Run;

  it("honours a CLI `user link` in the running bot within seconds", async () => {
    bot = startBot();
    await waitFor(() => bot.stdout().includes("  syncs      "), "the bot's start-up summary");
    expect(bot.stdout()).toContain(`CLI commands work through ${dataDir}/.s.PGSQL.5432`);

    telegram.addChat({ id: 111, first_name: "Ann" });
    telegram.sendUserMessage({ id: 111, first_name: "Ann" }, "/receipts");
    const refusal = await telegram.waitFor(() => telegram.chat(111).botMessages()[0], 20_000);
    expect(refusal.text).toContain("111");

    expect(await command("user", "add", "ann", "--tz", "Europe/London")).toMatchObject({ code: 0 });
    const linked = await command("user", "link", "ann", "--telegram", "111");
    expect(linked).toMatchObject({ code: 0, stdout: "linked Telegram 111 to ann\n", stderr: "" });

    // No restart: the next message from that account is answered as ann's.
    telegram.sendUserMessage({ id: 111, first_name: "Ann" }, "/receipts");
    const answer = await telegram.waitFor(() => telegram.chat(111).botMessages()[1], 10_000);
    expect(answer.text).toBe("There is no briefing yet. Try /brief.");
  });

  it("refuses a second bot on the same folder with one clear line", async () => {
    const second = startBot();
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(
      new RegExp(
        `^briefbot: another briefbot \\(pid ${bot.child.pid}, started [^)]+\\) already runs on ${dataDir}; stop it first, or set BRIEFBOT_DATA_DIR to another folder\\n$`,
      ),
    );
  });

  it("recovers the folder and its data after the owner is killed with SIGKILL", async () => {
    bot.child.kill("SIGKILL");
    await bot.exited;
    // The lock and socket file are left behind; a command notices the owner is gone and takes over.
    const listed = await command("user", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("ann  Europe/London");

    const restarted = startBot();
    await waitFor(() => restarted.stdout().includes("  syncs      "), "the restarted bot");
    expect((await command("user", "show", "ann")).stdout).toContain("linked     telegram 111");
    restarted.child.kill("SIGINT");
    expect(await restarted.exited).toBe(0);
    expect(restarted.stdout()).toContain("stopped cleanly");
  });

  it("exits non-zero with one line when Telegram refuses the token", async () => {
    const refused = startBot({ TELEGRAM_BOT_TOKEN: "123:not-the-token" });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toBe(
      "briefbot: Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized); check the token with @BotFather\n",
    );
  });

  it("exits non-zero with one line when the database cannot be reached", async () => {
    const unreachable = briefbot(["start"], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/briefbot" });
    expect(await unreachable.exited).toBe(1);
    expect(unreachable.stderr()).toBe(
      "briefbot: cannot use the database at postgres://postgres@127.0.0.1:1/briefbot: connection refused\n",
    );
  });

  it("exits non-zero with one line when the port is taken", async () => {
    const occupied = await new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, () => resolve(server));
    });
    const port = (occupied.address() as { port: number }).port;
    try {
      const busy = startBot({ PORT: String(port) });
      expect(await busy.exited).toBe(1);
      expect(busy.stderr()).toBe(
        `briefbot: port ${port} is already in use; stop what listens there or set PORT to a free port\n`,
      );
    } finally {
      await new Promise((resolve) => occupied.close(resolve));
    }
  });
});
