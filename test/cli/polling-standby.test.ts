/**
 * Two real `briefbot start` processes on one PostgreSQL database and one Telegram token, in long polling
 * mode: one polls, the other stands by (its summary and `/healthz` say so); `kill -9` of the poller hands
 * polling to the standby, and every update sent before, during and after the hand-over is answered exactly
 * once — also the questions the poller had fetched (and Telegram had been told it got) and was still
 * answering when it was killed: the scripted model holds every question until the kill. A process started
 * again after that stands by; a clean stop hands over at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "../helpers/database.ts";
import {
  freePort,
  healthBecomes,
  platformHealth,
  type RunningBot,
  realBriefbot,
} from "../helpers/real-briefbot.ts";
import {
  type OllamaTestServer,
  type RecordedChatRequest,
  startOllamaServer,
} from "../servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const root = mkdtempSync(join(tmpdir(), "briefbot-standby-"));
let database: TestDatabase;
let telegram: TelegramTestServer;
let ollama: OllamaTestServer;
/** Until the kill, the model answers no question: each stays in flight in the process answering it. */
let holdQuestions = true;
const ANSWER = "Happy to help with that.";
let briefbot: ReturnType<typeof realBriefbot>;
let processes = 0;
const started: RunningBot[] = [];

beforeAll(async () => {
  database = await createTestDatabase("postgres");
  telegram = await startTelegramServer();
  ollama = await startOllamaServer({
    models: {
      "qwen2.5:7b": {
        reply: ({ request }) => {
          const question = questionIn(request);
          if (question === undefined) return { content: "Hello." };
          // Held until the process asking goes away (the server then drops the request).
          if (holdQuestions) return { waitFor: new Promise(() => {}) };
          // Nothing a grounding check could find unbacked (a name would be replaced by the digest).
          return { content: ANSWER };
        },
      },
    },
  });
  if (!database.url) throw new Error("test bug: PostgreSQL database without a URL");
  briefbot = realBriefbot(root, { OLLAMA_HOST: ollama.url, DATABASE_URL: database.url });
});
afterAll(async () => {
  briefbot?.killAll();
  await ollama?.close();
  await telegram?.close();
  await database?.dispose();
  rmSync(root, { recursive: true, force: true });
});

async function startBot(): Promise<RunningBot> {
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
  started.push({ run, port });
  return { run, port };
}

/** Each process's log lines (warnings and errors), to tell a doubled answer's cause when one fails. */
const processLogs = () =>
  started
    .map(({ run }, index) => {
      const lines = run
        .stdout()
        .split("\n")
        .filter((line) => line.startsWith("{"));
      return `process ${index + 1}:\n${lines.join("\n")}${run.stderr()}`;
    })
    .join("\n");
const textsIn = (chatId: number) =>
  telegram
    .chat(chatId)
    .botMessages()
    .map((post) => post.text);

const telegramLine = (bot: RunningBot) => bot.run.stdout().match(/^ {2}telegram {3}.*$/m)?.[0] ?? "";

/** Each update from its own chat, so "answered once" is one bot message in that chat. */
let nextChat = 5000;
function writeFromNewChat(): { chatId: number; updateId: number } {
  nextChat += 1;
  const user = { id: nextChat, first_name: `User${nextChat}` };
  telegram.addChat(user);
  const { updateId } = telegram.sendUserMessage(user, "/receipts");
  return { chatId: user.id, updateId };
}

/** Polls `probe` (the Ollama server's records change without a Telegram call to wake `waitFor`). */
async function until(probe: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The question a model request is about: the `Q<n>` of its last user message. */
function questionIn(request: RecordedChatRequest): string | undefined {
  const last = request.messages.filter((message) => message.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content.match(/\bQ\d+\b/)?.[0] : undefined;
}

/** A linked user asks the model something, from their own chat: "answered once" is one model answer there. */
let nextQuestion = 0;
async function askFromNewChat(): Promise<{ chatId: number; updateId: number; question: string }> {
  nextChat += 1;
  nextQuestion += 1;
  const account = { id: nextChat, first_name: `Asker${nextChat}` };
  const db = database.open.db;
  const user = await createTestUser(db);
  await linkIdentity(db, user.id, { platform: "telegram", externalUserId: String(account.id) });
  telegram.addChat(account);
  const question = `Q${nextQuestion}`;
  const { updateId } = telegram.sendUserMessage(account, `What about ${question}?`);
  return { chatId: account.id, updateId, question };
}

const answersIn = (chatId: number) =>
  telegram
    .chat(chatId)
    .botMessages()
    .filter((post) => post.text === ANSWER);

async function answered(chats: Array<{ chatId: number; updateId: number }>): Promise<void> {
  for (const { chatId, updateId } of chats) {
    await telegram.waitFor(() => telegram.chat(chatId).botMessages()[0], 90_000);
    await telegram.waitUntilProcessed(updateId, 90_000);
  }
}

describe("two processes polling one Telegram token on one PostgreSQL", { timeout: 400_000 }, () => {
  let first: RunningBot;
  let second: RunningBot;
  const sentUpdates: Array<{ chatId: number; updateId: number }> = [];
  const questions: Array<{ chatId: number; updateId: number; question: string }> = [];

  it("lets one poll and the other stand by, saying so in its summary and a 200 /healthz", async () => {
    first = await startBot();
    second = await startBot();
    expect(telegramLine(first)).toBe("  telegram   on (long polling)");
    expect(telegramLine(second)).toMatch(
      /^ {2}telegram {3}on \(long polling\) — STANDBY: another process \(bot-[^)]+\) holds this token's connection; this one takes over when that one's lease lapses$/,
    );
    await healthBecomes(first, "telegram", "polling", 60_000);
    await healthBecomes(second, "telegram", "standby", 60_000);

    const before = [writeFromNewChat(), writeFromNewChat(), writeFromNewChat()];
    sentUpdates.push(...before);
    await answered(before);
    expect(telegram.pollStats().overlaps).toBe(0);
  });

  it("hands polling to the standby after `kill -9`, losing and doubling no update", async () => {
    // A question, and a burst behind it: all fetched, confirmed to Telegram, and unanswered when the poller
    // dies (the model holds the first, the rest wait for the model or their turn).
    const inFlight = [await askFromNewChat()];
    await until(
      () => ollama.chatRequests().some((request) => questionIn(request) === inFlight[0]?.question),
      60_000,
      `the model asked about ${inFlight[0]?.question}`,
    );
    for (let index = 0; index < 5; index += 1) inFlight.push(await askFromNewChat());
    for (const { updateId } of inFlight) await telegram.waitUntilProcessed(updateId, 60_000);
    for (const { chatId } of inFlight) expect(telegram.chat(chatId).botMessages()).toHaveLength(0);
    questions.push(...inFlight);

    first.run.child.kill("SIGKILL");
    await first.run.exited;
    holdQuestions = false;
    const during = [writeFromNewChat(), writeFromNewChat(), writeFromNewChat()];
    sentUpdates.push(...during);
    const asked = [await askFromNewChat(), await askFromNewChat(), await askFromNewChat()];
    questions.push(...asked);
    // The bound is generous for a loaded machine; the hand-over time itself is printed, not asserted.
    const tookOverMs = await healthBecomes(second, "telegram", "polling", 120_000);
    console.info(`standby took over polling ${(tookOverMs / 1000).toFixed(1)} s after kill -9`);
    const after = [writeFromNewChat(), writeFromNewChat(), writeFromNewChat()];
    sentUpdates.push(...after);
    await answered([...during, ...after]);
    for (const { chatId } of questions)
      await telegram.waitFor(() => telegram.chat(chatId).botMessages()[0], 120_000);

    expect(await platformHealth(second, "telegram")).toEqual({ status: 200, state: "polling" });
    // Never two long polls open at once: the standby did not poll while the first process did.
    expect(telegram.pollStats().overlaps).toBe(0);
  });

  it("starts a third process as a standby, and hands over at once when the poller stops cleanly", async () => {
    const third = await startBot();
    expect(telegramLine(third)).toContain("STANDBY");
    await healthBecomes(third, "telegram", "standby", 60_000);

    second.run.child.kill("SIGINT");
    expect(await second.run.exitCode()).toBe(0);
    // The lease was given up, so the next check (10 s) takes over rather than the lease's lapse (30 s).
    await healthBecomes(third, "telegram", "polling", 60_000);
    const last = [writeFromNewChat()];
    sentUpdates.push(...last);
    await answered(last);
    third.run.child.kill("SIGINT");
    expect(await third.run.exitCode()).toBe(0);
  });

  it("answered every update exactly once", () => {
    expect(sentUpdates).toHaveLength(10);
    for (const { chatId } of sentUpdates) {
      const replies = textsIn(chatId);
      expect(replies, `chat ${chatId}\n${processLogs()}`).toHaveLength(1);
      expect(replies[0]).toContain(String(chatId));
    }
    expect(questions).toHaveLength(9);
    for (const { chatId, question } of questions) {
      expect(textsIn(chatId), `${question} in chat ${chatId}\n${processLogs()}`).toHaveLength(1);
      expect(answersIn(chatId), `${question} in chat ${chatId}: the model's answer`).toHaveLength(1);
      expect(ollama.chatRequests().some((request) => questionIn(request) === question)).toBe(true);
    }
    // The held question was asked twice: by the process that died asking, then by the one that took over.
    const held = questions[0]?.question;
    expect(ollama.chatRequests().filter((request) => questionIn(request) === held).length).toBe(2);
    expect(telegram.pollStats().overlaps).toBe(0);
  });
});
