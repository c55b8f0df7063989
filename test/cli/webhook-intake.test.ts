/**
 * A question that arrives by webhook — a Telegram update posted to `/telegram/webhook`, a Slack event posted
 * to `/slack/events` — is answered exactly once though the process answering it is killed with `kill -9`
 * after the platform got its 200 (Telegram and Slack never send it again) and before the answer was sent:
 * the model holds every question until the kill. On the embedded database the next start answers it; on
 * PostgreSQL with two replicas behind one address the survivor does, once the dead one's lease lapses, with
 * no restart. A delivery made twice (Telegram posting an update again, Slack's `X-Slack-Retry-Num` retry) is
 * answered 200 and handled once. Answers are counted at the Telegram and Slack test servers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "../helpers/database.ts";
import { freePort, type RunningBot, realBriefbot } from "../helpers/real-briefbot.ts";
import {
  createGate,
  type OllamaTestServer,
  type RecordedChatRequest,
  startOllamaServer,
} from "../servers/ollama-server.ts";
import { startRoundRobinProxy } from "../servers/round-robin-proxy.ts";
import { type SlackServer, startSlackServer } from "../servers/slack-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const ANSWER = "Happy to help with that.";
const SIGNING_SECRET = "intake-signing-secret";
const WEBHOOK_SECRET = "intake-webhook-secret";
const PUBLIC_WEBHOOK_URL = "https://briefbot.example/telegram/webhook";

/** The question a model request is about: the `Q<n>` of its last user message. */
function questionIn(request: RecordedChatRequest): string | undefined {
  const last = request.messages.filter((message) => message.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content.match(/\bQ\d+\b/)?.[0] : undefined;
}

/** Polls `probe` (no server call wakes a wait when only the model's records change). */
async function until(probe: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The servers both suites talk to, and the model that holds questions until told to answer. */
interface Rig {
  telegram: TelegramTestServer;
  slack: SlackServer;
  ollama: OllamaTestServer;
  /**
   * Until released the model answers no question: each stays in flight in the process asking (a killed
   * one's is dropped with its connection; a living one's is answered on release).
   */
  release(): void;
  askedAbout(question: string): number;
  telegramAnswers(chatId: number): number;
  slackAnswers(slackId: string): number;
  close(): Promise<void>;
}

async function startRig(webhookOrigin: string): Promise<Rig> {
  const gate = createGate();
  let held = true;
  const telegram = await startTelegramServer({ webhookOrigin });
  const slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
  const ollama = await startOllamaServer({
    // Questions held in two processes at once, each holding a slot.
    parallel: 8,
    models: {
      "qwen2.5:7b": {
        reply: ({ request }) => {
          if (questionIn(request) === undefined) return { content: "Hello." };
          // Held until the process asking goes away (the server then drops the request).
          if (held) return { waitFor: gate.promise, content: ANSWER };
          // Nothing a grounding check could find unbacked.
          return { content: ANSWER };
        },
      },
    },
  });
  return {
    telegram,
    slack,
    ollama,
    release() {
      held = false;
      gate.open();
    },
    askedAbout: (question) =>
      ollama.chatRequests().filter((request) => questionIn(request) === question).length,
    telegramAnswers: (chatId) =>
      telegram
        .chat(chatId)
        .botMessages()
        .filter((post) => post.text === ANSWER).length,
    slackAnswers: (slackId) =>
      slack.posts.filter((post) => post.channel === slack.dmChannelOf(slackId) && post.text === ANSWER)
        .length,
    async close() {
      await ollama.close();
      await telegram.close();
      await slack.close();
    },
  };
}

const platformEnv = (rig: Rig): Record<string, string> => ({
  OLLAMA_HOST: rig.ollama.url,
  TELEGRAM_BOT_TOKEN: rig.telegram.token,
  TELEGRAM_API_ROOT: rig.telegram.url,
  TELEGRAM_WEBHOOK_URL: PUBLIC_WEBHOOK_URL,
  TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
  SLACK_BOT_TOKEN: rig.slack.botToken,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  SLACK_API_URL: rig.slack.apiUrl,
});

const summaryPrinted = (stdout: string) => stdout.includes("  syncs      ");

let nextQuestion = 0;
/** A linked Telegram account asks about a fresh `Q<n>`; the test server posts it to the webhook. */
function askOnTelegram(rig: Rig, chatId: number): { question: string; updateId: number } {
  nextQuestion += 1;
  const question = `Q${nextQuestion}`;
  const { updateId } = rig.telegram.sendUserMessage(chatId, `What about ${question}?`);
  return { question, updateId };
}

/** A DM event from a linked Slack account about a fresh `Q<n>`. */
function slackQuestion(slackId: string): {
  question: string;
  event: Record<string, unknown>;
  eventId: string;
} {
  nextQuestion += 1;
  const question = `Q${nextQuestion}`;
  return {
    question,
    eventId: `EvQ${nextQuestion}x${Date.now()}`,
    event: {
      type: "message",
      channel: `D${slackId}`,
      channel_type: "im",
      user: slackId,
      text: `What about ${question}?`,
      ts: `${Math.floor(Date.now() / 1000)}.${String(nextQuestion).padStart(6, "0")}`,
    },
  };
}

/** Telegram posting one update to the bot (as it does again when it did not see a 2xx). */
async function postUpdate(port: number, update: unknown): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/telegram/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": WEBHOOK_SECRET },
    body: JSON.stringify(update),
  });
  await response.text();
  return response.status;
}

describe("webhook intake on the embedded database: kill -9 mid-answer, start again", {
  timeout: 400_000,
}, () => {
  const root = mkdtempSync(join(tmpdir(), "briefbot-intake-"));
  const dataDir = join(root, "data");
  let rig: Rig;
  let port: number;
  let briefbot: ReturnType<typeof realBriefbot>;
  let bot: RunningBot;
  const chatId = 7101;
  const slackId = "U0INTAKE1";

  const start = async (): Promise<RunningBot> => {
    const run = briefbot.run(["start"], { PORT: String(port) });
    await run.waitForStdout(summaryPrinted, "the start-up summary");
    return { run, port };
  };

  beforeAll(async () => {
    port = await freePort();
    rig = await startRig(`http://127.0.0.1:${port}`);
    rig.slack.setAppUrl(`http://127.0.0.1:${port}/slack/events`);
    rig.telegram.addChat({ id: chatId, first_name: "Ann" });
    rig.slack.addUser({ id: slackId, name: "ann" });
    briefbot = realBriefbot(dataDir, platformEnv(rig));
    for (const args of [
      ["user", "add", "ann", "--tz", "Europe/London"],
      ["user", "link", "ann", "--telegram", String(chatId)],
      ["user", "link", "ann", "--slack", slackId, "--team", rig.slack.teamId],
    ]) {
      const done = await briefbot.command(...args);
      expect(done.code, `${args.join(" ")}\n${done.stderr}`).toBe(0);
    }
  });
  afterAll(async () => {
    briefbot?.killAll();
    await rig?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("answers once, after the next start, what the killed process had acknowledged", async () => {
    bot = await start();
    const onTelegram = askOnTelegram(rig, chatId);
    // Telegram had its 200: it will not post this update again.
    await rig.telegram.waitUntilProcessed(onTelegram.updateId, 60_000);
    // Slack had its ack (its 200): it will not send this event again.
    const onSlack = slackQuestion(slackId);
    expect((await rig.slack.sendEvent(onSlack.event, { eventId: onSlack.eventId })).status).toBe(200);
    await until(() => rig.askedAbout(onTelegram.question) === 1, 60_000, "the model was asked");
    expect(rig.telegramAnswers(chatId)).toBe(0);
    expect(rig.slackAnswers(slackId)).toBe(0);

    bot.run.child.kill("SIGKILL");
    await bot.run.exited;
    rig.release();
    bot = await start();

    await rig.telegram.waitFor(() => rig.telegramAnswers(chatId) === 1, 90_000);
    await rig.slack.waitForEdit((post) => post.channel === `D${slackId}` && post.text === ANSWER, 90_000);
    expect(rig.telegramAnswers(chatId)).toBe(1);
    expect(rig.slackAnswers(slackId)).toBe(1);
    // Asked by the process that died, then once more by the one that took over.
    expect(rig.askedAbout(onTelegram.question)).toBe(2);
    expect(rig.askedAbout(onSlack.question)).toBeGreaterThanOrEqual(1);
  });

  it("handles an update Telegram posts twice, and an event Slack retries, once", async () => {
    nextQuestion += 1;
    const question = `Q${nextQuestion}`;
    const before = rig.telegramAnswers(chatId);
    const { updateId, message } = rig.telegram.sendUserMessage(chatId, `And ${question}?`);
    // The test server posts it too: the bot sees the same update three times, two of them at once.
    const update = { update_id: updateId, message };
    expect(await Promise.all([postUpdate(port, update), postUpdate(port, update)])).toEqual([200, 200]);
    await rig.telegram.waitFor(() => rig.telegramAnswers(chatId) >= before + 1, 60_000);
    expect(await postUpdate(port, update)).toBe(200);

    const onSlack = slackQuestion(slackId);
    const slackBefore = rig.slackAnswers(slackId);
    const [first, retry] = await Promise.all([
      rig.slack.sendEvent(onSlack.event, { eventId: onSlack.eventId }),
      rig.slack.sendEvent(onSlack.event, {
        eventId: onSlack.eventId,
        retryNum: 1,
        retryReason: "http_timeout",
      }),
    ]);
    expect([first.status, retry.status]).toEqual([200, 200]);
    await until(() => rig.slackAnswers(slackId) >= slackBefore + 1, 60_000, "Slack's event was answered");

    // A later question in the same chats comes after any second handling would have (one chat in order).
    const later = askOnTelegram(rig, chatId);
    await until(() => rig.askedAbout(later.question) === 1, 60_000, "the later question reached the model");
    await rig.telegram.waitFor(() => rig.telegramAnswers(chatId) >= before + 2, 60_000);
    const laterSlack = slackQuestion(slackId);
    await rig.slack.sendEvent(laterSlack.event, { eventId: laterSlack.eventId });
    await until(() => rig.slackAnswers(slackId) >= slackBefore + 2, 60_000, "the later Slack question");

    expect(rig.askedAbout(question)).toBe(1);
    expect(rig.telegramAnswers(chatId)).toBe(before + 2);
    expect(rig.askedAbout(onSlack.question)).toBe(1);
    expect(rig.slackAnswers(slackId)).toBe(slackBefore + 2);
    bot.run.child.kill("SIGINT");
    expect(await bot.run.exitCode()).toBe(0);
  });
});

describe("webhook intake on PostgreSQL: two replicas behind one address, one killed", {
  timeout: 400_000,
}, () => {
  const root = mkdtempSync(join(tmpdir(), "briefbot-intake-pg-"));
  let database: TestDatabase;
  let rig: Rig;
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>;
  let briefbot: ReturnType<typeof realBriefbot>;
  const replicas: RunningBot[] = [];
  const chatId = 7201;
  const slackId = "U0INTAKE2";

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    const ports = [await freePort(), await freePort()];
    proxy = await startRoundRobinProxy(ports);
    rig = await startRig(proxy.url);
    rig.slack.setAppUrl(`${proxy.url}/slack/events`);
    rig.telegram.addChat({ id: chatId, first_name: "Bea" });
    rig.slack.addUser({ id: slackId, name: "bea" });
    const db = database.open.db;
    const user = await createTestUser(db);
    await linkIdentity(db, user.id, { platform: "telegram", externalUserId: String(chatId) });
    await linkIdentity(db, user.id, { platform: "slack", externalUserId: slackId });
    if (!database.url) throw new Error("test bug: PostgreSQL database without a URL");
    briefbot = realBriefbot(root, { ...platformEnv(rig), DATABASE_URL: database.url });
    const runs = ports.map((port) =>
      briefbot.run(["start"], { PORT: String(port), BRIEFBOT_DATA_DIR: join(root, `replica-${port}`) }),
    );
    await Promise.all(runs.map((run) => run.waitForStdout(summaryPrinted, "the start-up summary")));
    replicas.push(...runs.map((run, index) => ({ run, port: ports[index] as number })));
  });
  afterAll(async () => {
    briefbot?.killAll();
    await proxy?.close();
    await rig?.close();
    await database?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  /** The replica the proxy handed the last request to (the count that grew since `before`). */
  const servedSince = (before: Map<number, number>): RunningBot => {
    const port = [...proxy.servedBy].find(([upstream, count]) => count > (before.get(upstream) ?? 0))?.[0];
    const replica = replicas.find((candidate) => candidate.port === port);
    if (!replica) throw new Error("no replica took the request");
    return replica;
  };

  it("lets the surviving replica answer, once, what the killed one had acknowledged", async () => {
    let before = new Map(proxy.servedBy);
    const onTelegram = askOnTelegram(rig, chatId);
    await rig.telegram.waitUntilProcessed(onTelegram.updateId, 60_000);
    const victim = servedSince(before);
    // Round robin takes turns: Slack's events go out until one reaches the replica that took Telegram's.
    const slackAsked: Array<{ question: string; replica: RunningBot }> = [];
    while (!slackAsked.some(({ replica }) => replica === victim)) {
      expect(slackAsked.length).toBeLessThan(2);
      before = new Map(proxy.servedBy);
      const onSlack = slackQuestion(slackId);
      expect((await rig.slack.sendEvent(onSlack.event, { eventId: onSlack.eventId })).status).toBe(200);
      slackAsked.push({ question: onSlack.question, replica: servedSince(before) });
    }
    await until(() => rig.askedAbout(onTelegram.question) === 1, 60_000, "the model was asked");
    expect(rig.telegramAnswers(chatId)).toBe(0);
    expect(rig.slackAnswers(slackId)).toBe(0);

    victim.run.child.kill("SIGKILL");
    await victim.run.exited;
    rig.release();
    const survivor = replicas.find((replica) => replica !== victim);

    // The dead replica's lease lapses (20 s) and the survivor's next check (15 s) takes its updates over.
    await rig.telegram.waitFor(() => rig.telegramAnswers(chatId) === 1, 120_000);
    await until(
      () => rig.slackAnswers(slackId) === slackAsked.length,
      120_000,
      "every Slack question was answered",
    );
    expect(rig.telegramAnswers(chatId)).toBe(1);
    expect(rig.slackAnswers(slackId)).toBe(slackAsked.length);
    // The killed replica asked the model about Telegram's question; the survivor asked once more.
    expect(rig.askedAbout(onTelegram.question)).toBe(2);
    expect(survivor?.run.child.exitCode).toBeNull();
    expect(survivor?.run.child.signalCode).toBeNull();
  });
});
