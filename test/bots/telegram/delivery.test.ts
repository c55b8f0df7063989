import { eq } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import { findRunThread } from "../../../bots/telegram/thread-map.ts";
import type { Database } from "../../../db/client.ts";
import { deliveries } from "../../../db/schema/index.ts";
import { createDbPorts, createPlatformState } from "../../../db/stores/index.ts";
import { type BriefingMessage, DeliveryError } from "../../../src/core/assistant.ts";
import type { DeliveryOutcome } from "../../../src/delivery/hooks.ts";
import { createOutbox, type OutboxOptions } from "../../../src/delivery/outbox.ts";
import {
  createTelegramTransports,
  type PlatformTransports,
} from "../../../src/delivery/platform-transports.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { generatedManualRun, HELPER_OWNER } from "../../helpers/runs.ts";
import { deliverNow, type Harness, linkedUser, telegramSuite } from "./harness.ts";

async function until(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tick = 0; tick < 2000; tick += 1) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The outbox as the app builds it, over the test's database and the bot's sender. */
function outboxFor(db: Database, h: Harness, options: Partial<OutboxOptions> = {}) {
  return createOutbox({
    ports: createDbPorts(db),
    clock: h.clock,
    owner: HELPER_OWNER,
    senders: [h.app.sender],
    ...options,
  });
}

/** A generated run of `prose` and the message the outbox will post for it. */
async function briefingFor(db: Database, userId: number, prose: string): Promise<BriefingMessage> {
  const run = await generatedManualRun(db, { userId }, prose, new Date("2025-06-02T06:00:00Z"));
  return {
    runId: run.id,
    userId,
    slot: "morning",
    localDate: "2025-06-02",
    prose,
    checks: [{ label: "looked at tasks", ok: true }],
    statusRow: "✓ looked at tasks",
    mode: "agentic",
  };
}

/** ~5,000 characters in paragraphs. */
function longProse(): string {
  const paragraphs: string[] = [];
  for (let index = 0; paragraphs.join("\n\n").length < 5000; index++) {
    paragraphs.push(`Paragraph ${index}: ${"lorem ipsum dolor sit amet ".repeat(8).trim()}.`);
  }
  return paragraphs.join("\n\n").slice(0, 5000).trim();
}

const normalize = (value: string) => value.replace(/\s+/g, " ").trim();

describeEachDatabase("telegram delivery", (getDb) => {
  const suite = telegramSuite(getDb, { start: false });

  /** A linked user with a stored run of `prose` to deliver, and the bot's sender not started. */
  async function setUp(prose: string) {
    const setup = await suite.withUser();
    return { ...setup, message: await briefingFor(setup.db, setup.user.id, prose) };
  }

  it("delivers a 5,000-character briefing whole in two messages, mapped to its run for replies", async () => {
    const { db, h, user, account, identity, message } = await setUp(longProse());
    const receipt = await deliverNow(h, identity, message);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(2);
    expect(receipt).toEqual({ platformMessageId: String(posts[0]?.messageId), target: String(account.id) });
    const received = normalize(posts.map((post) => post.text).join("\n\n"));
    expect(received).toBe(normalize(`${message.prose}\n\n${message.statusRow}`));
    expect(posts[1]?.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data).toBe(`r:${message.runId}`);
    for (const post of posts) {
      expect(
        await findRunThread(createPlatformState(db), {
          userId: user.id,
          chatId: account.id,
          messageId: post.messageId,
        }),
      ).toEqual({
        runId: message.runId,
        threadKey: `telegram:${account.id}:${posts[0]?.messageId}`,
      });
    }
  });

  it("delivers HTML-hostile text intact", async () => {
    const { h, account, identity, message } = await setUp("Due today: <b>, a & b, and x < y > z.");
    await deliverNow(h, identity, message);
    const [post] = h.telegram.chat(account.id).botMessages();
    expect(post?.parseMode).toBe("HTML");
    expect(post?.text).toBe("Due today: <b>, a & b, and x < y > z.\n\n✓ looked at tasks");
  });

  it("resends as plain text when Telegram cannot parse the entities", async () => {
    const { h, account, identity, message } = await setUp("Nothing lost <here>.");
    h.telegram.failNext({
      method: "sendMessage",
      status: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 3',
    });
    await deliverNow(h, identity, message);
    const [post] = h.telegram.chat(account.id).botMessages();
    expect(post?.parseMode).toBeUndefined();
    expect(post?.text).toBe("Nothing lost <here>.\n\n✓ looked at tasks");
  });

  it("hands a 429 back with its wait, and the outbox's retry posts only what is missing", async () => {
    const { h, account, identity, message } = await setUp(longProse());
    h.telegram.setRateLimits({ perChat: { max: 1, windowMs: 1000 }, retryAfterSeconds: 1 });
    const row: { progress?: unknown } = {};
    // No retry below the outbox: the sender reports the 429 at once, the first part saved as posted.
    const limited = await deliverNow(h, identity, message, row).catch((caught: unknown) => caught);
    expect(limited).toMatchObject({ name: "DeliveryError", permanent: false, retryAfterMs: 1000 });
    expect(h.telegram.callsTo("sendMessage").filter((call) => call.status === 429)).toHaveLength(1);
    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await deliverNow(h, identity, message, row);
    expect(h.telegram.callsBeforeRetryAfter()).toEqual([]);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(2);
    expect(normalize(posts.map((post) => post.text).join("\n\n"))).toBe(
      normalize(`${message.prose}\n\n${message.statusRow}`),
    );
  });

  it("reports a blocked user as a permanent failure, tried once", async () => {
    const { h, account, identity, message } = await setUp("Hello.");
    h.telegram.blockChat(account.id);
    const error = await deliverNow(h, identity, message).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ permanent: true });
    expect((error as Error).message).toContain("blocked by the user");
    expect(h.telegram.callsTo("sendMessage")).toHaveLength(1);
  });

  it("is recorded as failed on the outbox when the user blocked the bot, not retried", async () => {
    const { db, h, account, message } = await setUp("Good morning.");
    h.telegram.blockChat(account.id);
    const worker = outboxFor(db, h);
    expect(await worker.enqueue(message.runId)).toBe("delivering");
    await worker.drain();
    await worker.runDue();
    const [row] = await db.select().from(deliveries).where(eq(deliveries.runId, message.runId));
    expect(row?.state).toBe("failed");
    expect(row?.lastError).toContain("blocked by the user");
    expect(h.telegram.callsTo("sendMessage")).toHaveLength(1);
  });

  it("reports a 5xx as transient and resumes without duplicating on the retry", async () => {
    const { h, account, identity, message } = await setUp(longProse());
    // The first part goes out, the second hits a 502; what was posted is saved as the outbox saves it.
    h.telegram.failNext({ method: "sendMessage", status: 502, after: 1 });
    const row: { progress?: unknown } = {};
    const failed = await deliverNow(h, identity, message, row).catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(DeliveryError);
    expect(failed).toMatchObject({ permanent: false });
    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(1);
    expect(row.progress).toEqual({ messageIds: [h.telegram.chat(account.id).botMessages()[0]?.messageId] });
    const receipt = await deliverNow(h, identity, message, row);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(2);
    expect(receipt?.platformMessageId).toBe(String(posts[0]?.messageId));
    expect(normalize(posts.map((post) => post.text).join("\n\n"))).toBe(
      normalize(`${message.prose}\n\n${message.statusRow}`),
    );
  });

  it("reports an unknown chat as permanent", async () => {
    const { h, identity, message } = await setUp("Hello.");
    const error = await deliverNow(h, { ...identity, chatId: "424242" }, message).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ name: "DeliveryError", permanent: true });
  });

  it("posts nothing when the outbox's claim goes to another process", async () => {
    const { h, account, identity, message } = await setUp("Hello.");
    const receipt = await h.app.sender.deliver({
      recipient: identity,
      message,
      begin: async () => false,
      progress: undefined,
      saveProgress: async () => {},
    });
    expect(receipt).toBeUndefined();
    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(0);
  });
});

describeEachDatabase("telegram delivery: send outcomes and flood limits", (getDb) => {
  let transports: PlatformTransports | undefined;
  afterEach(() => {
    transports?.close();
    transports = undefined;
  });
  const suite = telegramSuite(getDb);

  /** The bot as the app wires it: both API clients through the token's flood gate and send transports. */
  async function startGated(): Promise<{ h: Harness; gate: PlatformTransports["gate"] }> {
    transports = createTelegramTransports();
    const h = await suite.start({
      start: false,
      bot: { transports, retry: { maxAttempts: 3, maxDelaySeconds: 5 } },
    });
    return { h, gate: transports.gate };
  }

  /** A linked user whose chat the server knows, with a generated run of `prose`. */
  async function generated(h: Harness, prose = "Good morning. Nothing on the calendar today.") {
    const db = getDb();
    const linked = await linkedUser(db);
    h.telegram.addChat(linked.account);
    const message = await briefingFor(db, linked.user.id, prose);
    return { ...linked, message };
  }

  function workerWithOutcomes(h: Harness) {
    const outcomes: DeliveryOutcome[] = [];
    const worker = outboxFor(getDb(), h, {
      retry: { baseBackoffMs: 1000 },
      observer: { deliveryAttempt: (_platform, _seconds, outcome) => outcomes.push(outcome) },
    });
    return { worker, outcomes };
  }

  it("retries a send whose connection was reset before the request was written, and delivers it once", async () => {
    const db = getDb();
    const { h } = await startGated();
    const { account, message } = await generated(h);
    const { worker, outcomes } = workerWithOutcomes(h);
    h.telegram.failNext({ method: "sendMessage", network: "reset-before-body" });

    expect(await worker.enqueue(message.runId)).toBe("delivering");
    // The first retry of a request that never left goes at once; the worker wakes itself for it.
    await until(() => outcomes.length === 2, "the retry");
    await worker.drain();

    const sends = h.telegram.callsTo("sendMessage");
    expect(sends.map((call) => [call.network ?? "answered", call.status])).toEqual([
      ["reset-before-body", 0],
      ["answered", 200],
    ]);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(1);
    const [row] = await db.select().from(deliveries).where(eq(deliveries.runId, message.runId));
    expect(row).toMatchObject({ state: "sent", attempts: 2, platformMessageId: String(posts[0]?.messageId) });
    expect(outcomes).toEqual(["not_sent", "sent"]);
  });

  it("does not re-send a send whose answer was lost after Telegram carried it out, and records it", async () => {
    const db = getDb();
    const { h } = await startGated();
    const { account, message } = await generated(h);
    const { worker, outcomes } = workerWithOutcomes(h);
    h.telegram.failNext({ method: "sendMessage", network: "drop-response" });

    await worker.enqueue(message.runId);
    await worker.drain();
    h.clock.advance(30 * 60_000);
    await worker.runDue();

    expect(h.telegram.callsTo("sendMessage").map((call) => call.network)).toEqual(["drop-response"]);
    // Telegram has the message; the bot never learned its id, and did not post it again.
    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(1);
    const [row] = await db.select().from(deliveries).where(eq(deliveries.runId, message.runId));
    expect(row?.state).toBe("failed");
    expect(row?.lastError).toMatch(
      /^send outcome unknown \(telegram network error: .*answer was lost.*\); not re-sent to avoid a duplicate$/,
    );
    expect(outcomes).toEqual(["unknown"]);
  });

  it("sends nothing to any chat before a global 429's retry_after has elapsed", async () => {
    const { h, gate } = await startGated();
    const users = [await generated(h), await generated(h), await generated(h)];
    const [first, ...others] = users;
    if (!first) throw new Error("no users");
    h.telegram.failNext({
      method: "sendMessage",
      chatId: first.account.id,
      status: 429,
      retryAfter: 1,
      scope: "global",
    });

    // The first send meets the 429 and hands it to the outbox; everything else waits for the gate.
    const firstRow: { progress?: unknown } = {};
    const limitedFirst = await deliverNow(h, first.identity, first.message, firstRow).catch(
      (caught: unknown) => caught,
    );
    expect(limitedFirst).toMatchObject({ name: "DeliveryError", retryAfterMs: 1000 });
    expect(await gate.pausedFor("global")).toBeGreaterThan(0);
    await Promise.all([
      // The outbox's retry of the first, once the retry_after it was told has passed.
      new Promise((resolve) => setTimeout(resolve, 1000)).then(() =>
        deliverNow(h, first.identity, first.message, firstRow),
      ),
      ...others.map(({ identity, message }) => deliverNow(h, identity, message)),
      // A chat reply goes through the bot's own client: the same token, the same gate.
      h.app.bot.api.sendMessage(first.account.id, "An answer to a question, meanwhile."),
    ]);

    const sends = h.telegram.callsTo("sendMessage");
    const limited = sends.find((call) => call.status === 429);
    expect(limited).toMatchObject({ retryAfter: 1, limitScope: "global" });
    const openAt = (limited?.answeredAt ?? 0) + 1000;
    const after = sends.filter((call) => call.receivedAt > (limited?.answeredAt ?? 0));
    expect(after).toHaveLength(4);
    for (const call of after) expect(call.receivedAt).toBeGreaterThanOrEqual(openAt);
    expect(h.telegram.callsBeforeRetryAfter()).toEqual([]);
    for (const { account } of users) {
      expect(h.telegram.chat(account.id).botMessages()).toHaveLength(account === first.account ? 2 : 1);
    }
    expect(gate.stats().pausesByScope.global).toBe(1);
  });

  it("paces a two-message briefing to the chat's limit instead of earning a 429, other chats unhindered", async () => {
    const { h, gate } = await startGated();
    const busy = await generated(h, longProse());
    const other = await generated(h);
    h.telegram.setRateLimits({ global: { max: 30, windowMs: 1000 }, perChat: { max: 1, windowMs: 1000 } });
    const firstPiece = deliverNow(h, busy.identity, busy.message);
    await until(() => h.telegram.chat(busy.account.id).botMessages().length === 1, "the first piece");
    await Promise.all([firstPiece, deliverNow(h, other.identity, other.message)]);

    const sends = h.telegram.callsTo("sendMessage");
    expect(sends.every((call) => call.status === 200)).toBe(true);
    const toBusy = sends.filter((call) => Number(call.params.chat_id) === busy.account.id);
    const toOther = sends.filter((call) => Number(call.params.chat_id) === other.account.id);
    expect(toBusy).toHaveLength(2);
    expect((toBusy[1]?.receivedAt ?? 0) - (toBusy[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(toOther[0]?.receivedAt).toBeLessThan(toBusy[1]?.receivedAt ?? 0);
    // Paced, never paused: no 429 was earned.
    expect(gate.stats()).toMatchObject({ pausesByScope: {}, heldRequests: 0 });
    expect(gate.stats().pacedRequests).toBeGreaterThanOrEqual(1);
  });

  it("spaces the outbox's posts to one chat with the transports' pacer, claiming each send only at its turn", async () => {
    const { h } = await startGated();
    const { identity, message } = await generated(h);
    const claimedAt: number[] = [];
    const begin = async () => {
      claimedAt.push(performance.now());
      return true;
    };
    const attempt = { recipient: identity, begin, progress: undefined, saveProgress: async () => {} };
    await h.app.sender.deliver({ ...attempt, message });
    await h.app.sender.deliver({ ...attempt, message: { ...message, prose: "Again." } });
    expect(claimedAt).toHaveLength(2);
    // The gate holds one chat to one post per 1.25 s (TELEGRAM_PACE), and the turn comes before the claim.
    expect((claimedAt[1] ?? 0) - (claimedAt[0] ?? 0)).toBeGreaterThanOrEqual(1200);
  });
});
