import { eq } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import { findRunThread } from "../../../bots/telegram/thread-map.ts";
import type { Database } from "../../../db/client.ts";
import { createRun } from "../../../db/queries/runs.ts";
import { linkIdentity } from "../../../db/queries/users.ts";
import { deliveries } from "../../../db/schema/index.ts";
import { type BriefingMessage, DeliveryError } from "../../../src/core/assistant.ts";
import { createDeliveryWorker } from "../../../src/delivery/worker.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { markGenerated } from "../../helpers/runs.ts";
import { type Harness, linkedUser, nextTelegramId, startHarness } from "./harness.ts";

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function briefingFor(db: Database, userId: number, prose: string): Promise<BriefingMessage> {
  const run = await createRun(db, {
    userId,
    slot: "morning",
    localDate: "2025-06-02",
    trigger: "manual",
    at: new Date("2025-06-02T06:00:00Z"),
  });
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
  it("delivers a 5,000-character briefing whole in two messages, mapped to its run for replies", async () => {
    const db = getDb();
    const { user, account } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat(account);
    const message = await briefingFor(db, user.id, longProse());
    const receipt = await h.app.sender.deliver(String(account.id), message);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(2);
    expect(receipt.platformMessageId).toBe(String(posts[0]?.messageId));
    const received = normalize(posts.map((post) => post.text).join("\n\n"));
    expect(received).toBe(normalize(`${message.prose}\n\n${message.statusRow}`));
    expect(posts[1]?.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data).toBe(`r:${message.runId}`);
    for (const post of posts) {
      expect(
        await findRunThread(db, { userId: user.id, chatId: account.id, messageId: post.messageId }),
      ).toEqual({
        runId: message.runId,
        threadKey: `telegram:${account.id}:${posts[0]?.messageId}`,
      });
    }
  });

  it("delivers HTML-hostile text intact", async () => {
    const db = getDb();
    const { user, account } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat(account);
    const message = await briefingFor(db, user.id, "Due today: <b>, a & b, and x < y > z.");
    await h.app.sender.deliver(String(account.id), message);
    const [post] = h.telegram.chat(account.id).botMessages();
    expect(post?.parseMode).toBe("HTML");
    expect(post?.text).toBe("Due today: <b>, a & b, and x < y > z.\n\n✓ looked at tasks");
  });

  it("resends as plain text when Telegram cannot parse the entities", async () => {
    const db = getDb();
    const { user, account } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat(account);
    h.telegram.failNext({
      method: "sendMessage",
      status: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 3',
    });
    const message = await briefingFor(db, user.id, "Nothing lost <here>.");
    await h.app.sender.deliver(String(account.id), message);
    const [post] = h.telegram.chat(account.id).botMessages();
    expect(post?.parseMode).toBeUndefined();
    expect(post?.text).toBe("Nothing lost <here>.\n\n✓ looked at tasks");
  });

  it("waits out a 429 and loses nothing", async () => {
    const db = getDb();
    const { user, account } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat(account);
    h.telegram.setRateLimits({ perChat: { max: 1, windowMs: 1000 }, retryAfterSeconds: 1 });
    const message = await briefingFor(db, user.id, longProse());
    await h.app.sender.deliver(String(account.id), message);
    expect(h.telegram.callsTo("sendMessage").some((call) => call.status === 429)).toBe(true);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(2);
    expect(normalize(posts.map((post) => post.text).join("\n\n"))).toBe(
      normalize(`${message.prose}\n\n${message.statusRow}`),
    );
  });

  it("reports a blocked user as a permanent failure, tried once", async () => {
    const db = getDb();
    const { user, account } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat(account);
    h.telegram.blockChat(account.id);
    const message = await briefingFor(db, user.id, "Hello.");
    const error = await h.app.sender.deliver(String(account.id), message).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ permanent: true });
    expect((error as Error).message).toContain("blocked by the user");
    expect(h.telegram.callsTo("sendMessage")).toHaveLength(1);
  });

  it("is recorded as failed on the outbox when the user blocked the bot, not retried", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const chatId = nextTelegramId();
    await linkIdentity(db, user.id, {
      platform: "telegram",
      externalUserId: String(chatId),
      chatId: String(chatId),
    });
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat({ id: chatId, first_name: "Blocked" });
    h.telegram.blockChat(chatId);
    const message = await briefingFor(db, user.id, "Good morning.");
    await markGenerated(db, message.runId, message.prose, h.clock.now());
    const worker = createDeliveryWorker({ db, clock: h.clock, senders: [h.app.sender] });
    expect(await worker.enqueueRun(message.runId)).toBe("delivering");
    await worker.drain();
    await worker.runDue();
    const [row] = await db.select().from(deliveries).where(eq(deliveries.runId, message.runId));
    expect(row?.state).toBe("failed");
    expect(row?.lastError).toContain("blocked by the user");
    expect(h.telegram.callsTo("sendMessage")).toHaveLength(1);
  });

  it("reports a 5xx as transient and resumes without duplicating on the retry", async () => {
    const db = getDb();
    const { user, account } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const h = harness;
    h.telegram.addChat(account);
    const message = await briefingFor(db, user.id, longProse());
    // The first part goes out, the second hits a 502.
    h.telegram.failNext({ method: "sendMessage", status: 502, after: 1 });
    const failed = await h.app.sender.deliver(String(account.id), message).catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(DeliveryError);
    expect(failed).toMatchObject({ permanent: false });
    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(1);
    const receipt = await h.app.sender.deliver(String(account.id), message);
    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts).toHaveLength(2);
    expect(receipt.platformMessageId).toBe(String(posts[0]?.messageId));
    expect(normalize(posts.map((post) => post.text).join("\n\n"))).toBe(
      normalize(`${message.prose}\n\n${message.statusRow}`),
    );
  });

  it("reports an unknown chat as permanent", async () => {
    const db = getDb();
    const { user } = await linkedUser(db);
    harness = await startHarness(db, { start: false });
    const message = await briefingFor(db, user.id, "Hello.");
    const error = await harness.app.sender.deliver("424242", message).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "DeliveryError", permanent: true });
  });
});
