/**
 * The first hour of running briefbot, with real processes on one embedded data folder: the bot owns the
 * folder and a CLI change reaches it at once, a second bot is refused, a `kill -9` leaves nothing a restart
 * cannot recover, and fatal start errors end the process with one line.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RealRun, realBriefbot } from "../helpers/real-briefbot.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const dataDir = mkdtempSync(join(tmpdir(), "briefbot-first-hour-"));
const briefbot = realBriefbot(dataDir, { OLLAMA_HOST: "127.0.0.1:9" });
const { command } = briefbot;
let telegram: TelegramTestServer;

beforeAll(async () => {
  telegram = await startTelegramServer();
});
afterAll(async () => {
  briefbot.killAll();
  await telegram?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startBot(env: Record<string, string> = {}): Promise<RealRun> {
  return briefbot.run(["start"], {
    PORT: String(await freePort()),
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
    ...env,
  });
}

const summaryPrinted = (stdout: string) => stdout.includes("  syncs      ");

describe("the first hour, real processes on one embedded folder", { timeout: 300_000 }, () => {
  let bot: RealRun;

  it("honours a CLI `user link` in the running bot within seconds", async () => {
    bot = await startBot();
    await bot.waitForStdout(summaryPrinted, "the bot's start-up summary");
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
    const second = await startBot();
    expect(await second.exitCode()).toBe(1);
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

    const restarted = await startBot();
    await restarted.waitForStdout(summaryPrinted, "the restarted bot's summary");
    expect((await command("user", "show", "ann")).stdout).toContain("linked     telegram 111");
    restarted.child.kill("SIGINT");
    expect(await restarted.exitCode()).toBe(0);
    expect(restarted.stdout()).toContain("stopped cleanly");
  });

  it("exits non-zero with one line when Telegram refuses the token", async () => {
    const refused = await startBot({ TELEGRAM_BOT_TOKEN: "123:not-the-token" });
    expect(await refused.exitCode()).toBe(2);
    expect(refused.stderr()).toBe(
      "briefbot: Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized); check the token with @BotFather\n",
    );
  });

  it("exits non-zero with one line when the database cannot be reached", async () => {
    const unreachable = briefbot.run(["start"], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/briefbot" });
    expect(await unreachable.exitCode()).toBe(1);
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
      const busy = await startBot({ PORT: String(port) });
      expect(await busy.exitCode()).toBe(1);
      expect(busy.stderr()).toBe(
        `briefbot: port ${port} is already in use; stop what listens there or set PORT to a free port\n`,
      );
    } finally {
      await new Promise((resolve) => occupied.close(resolve));
    }
  });
});
