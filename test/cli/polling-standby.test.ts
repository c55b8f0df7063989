/**
 * Two real `briefbot start` processes on one PostgreSQL database and one Telegram token, in long polling
 * mode: one polls, the other stands by (its summary and `/healthz` say so); `kill -9` of the poller hands
 * polling to the standby, and every update sent before, during and after the hand-over is answered exactly
 * once. A process started again after that stands by; a clean stop hands over at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { freePort, type RealRun, realBriefbot } from "../helpers/real-briefbot.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const root = mkdtempSync(join(tmpdir(), "briefbot-standby-"));
let database: TestDatabase;
let telegram: TelegramTestServer;
let briefbot: ReturnType<typeof realBriefbot>;
let processes = 0;

beforeAll(async () => {
  database = await createTestDatabase("postgres");
  telegram = await startTelegramServer();
  if (!database.url) throw new Error("test bug: PostgreSQL database without a URL");
  briefbot = realBriefbot(root, { OLLAMA_HOST: "127.0.0.1:9", DATABASE_URL: database.url });
});
afterAll(async () => {
  briefbot?.killAll();
  await telegram?.close();
  await database?.dispose();
  rmSync(root, { recursive: true, force: true });
});

interface Bot {
  run: RealRun;
  port: number;
}

async function startBot(): Promise<Bot> {
  const port = await freePort();
  processes += 1;
  const dataDir = mkdtempSync(join(root, `bot-${processes}-`));
  const run = briefbot.run(["start"], {
    PORT: String(port),
    BRIEFBOT_DATA_DIR: dataDir,
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
  });
  await run.waitForStdout((stdout) => stdout.includes("  syncs      "), "the start-up summary");
  return { run, port };
}

const telegramLine = (bot: Bot) => bot.run.stdout().match(/^ {2}telegram {3}.*$/m)?.[0] ?? "";

async function health(bot: Bot): Promise<{ status: number; telegram: string | undefined }> {
  const response = await fetch(`http://127.0.0.1:${bot.port}/healthz`);
  const body = (await response.json()) as { platforms: { telegram?: { state: string } } };
  return { status: response.status, telegram: body.platforms.telegram?.state };
}

/**
 * Waits until `/healthz` shows Telegram in `state` with a 200 (the scheduler's first tick may come a moment
 * after the summary on a loaded machine; until then every process answers 503). Returns how long it took.
 */
async function healthBecomes(bot: Bot, state: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const now = await health(bot).catch(() => undefined);
    if (now?.telegram === state && now.status === 200) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      throw new Error(`telegram never became ${state} (last: ${JSON.stringify(now)})\n${bot.run.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Each update from its own chat, so "answered once" is one bot message in that chat. */
let nextChat = 5000;
function writeFromNewChat(): { chatId: number; updateId: number } {
  nextChat += 1;
  const user = { id: nextChat, first_name: `User${nextChat}` };
  telegram.addChat(user);
  const { updateId } = telegram.sendUserMessage(user, "/receipts");
  return { chatId: user.id, updateId };
}

async function answered(chats: Array<{ chatId: number; updateId: number }>): Promise<void> {
  for (const { chatId, updateId } of chats) {
    await telegram.waitFor(() => telegram.chat(chatId).botMessages()[0], 90_000);
    await telegram.waitUntilProcessed(updateId, 90_000);
  }
}

describe("two processes polling one Telegram token on one PostgreSQL", { timeout: 400_000 }, () => {
  let first: Bot;
  let second: Bot;
  const sentUpdates: Array<{ chatId: number; updateId: number }> = [];

  it("lets one poll and the other stand by, saying so in its summary and a 200 /healthz", async () => {
    first = await startBot();
    second = await startBot();
    expect(telegramLine(first)).toBe("  telegram   on (long polling)");
    expect(telegramLine(second)).toMatch(
      /^ {2}telegram {3}on \(long polling\) — STANDBY: another process \(bot-[^)]+\) holds this token's connection; this one takes over when that one's lease lapses$/,
    );
    await healthBecomes(first, "polling", 60_000);
    await healthBecomes(second, "standby", 60_000);

    const before = [writeFromNewChat(), writeFromNewChat(), writeFromNewChat()];
    sentUpdates.push(...before);
    await answered(before);
    expect(telegram.pollStats().overlaps).toBe(0);
  });

  it("hands polling to the standby after `kill -9`, losing and doubling no update", async () => {
    first.run.child.kill("SIGKILL");
    await first.run.exited;
    const during = [writeFromNewChat(), writeFromNewChat(), writeFromNewChat()];
    sentUpdates.push(...during);
    // The bound is generous for a loaded machine; the hand-over time itself is printed, not asserted.
    const tookOverMs = await healthBecomes(second, "polling", 120_000);
    console.info(`standby took over polling ${(tookOverMs / 1000).toFixed(1)} s after kill -9`);
    const after = [writeFromNewChat(), writeFromNewChat(), writeFromNewChat()];
    sentUpdates.push(...after);
    await answered([...during, ...after]);

    expect(await health(second)).toEqual({ status: 200, telegram: "polling" });
    // Never two long polls open at once: the standby did not poll while the first process did.
    expect(telegram.pollStats().overlaps).toBe(0);
  });

  it("starts a third process as a standby, and hands over at once when the poller stops cleanly", async () => {
    const third = await startBot();
    expect(telegramLine(third)).toContain("STANDBY");
    await healthBecomes(third, "standby", 60_000);

    second.run.child.kill("SIGINT");
    expect(await second.run.exitCode()).toBe(0);
    // The lease was given up, so the next check (10 s) takes over rather than the lease's lapse (30 s).
    await healthBecomes(third, "polling", 60_000);
    const last = [writeFromNewChat()];
    sentUpdates.push(...last);
    await answered(last);
    third.run.child.kill("SIGINT");
    expect(await third.run.exitCode()).toBe(0);
  });

  it("answered every update exactly once", () => {
    expect(sentUpdates).toHaveLength(10);
    for (const { chatId } of sentUpdates) {
      const replies = telegram.chat(chatId).botMessages();
      expect(replies, `chat ${chatId}`).toHaveLength(1);
      expect(replies[0]?.text).toContain(String(chatId));
    }
    expect(telegram.pollStats().overlaps).toBe(0);
  });
});
