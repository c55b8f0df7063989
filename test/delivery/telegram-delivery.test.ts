/**
 * The scheduler and outbox with the real Telegram adapter (grammY) against the Telegram test server:
 * a post records Telegram's message id, a blocked chat ends `failed` with Telegram's reason, and a
 * process that died mid-send is never followed by a second post.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createTelegramBot, type TelegramBot } from "../../bots/telegram/index.ts";
import type { Database } from "../../db/client.ts";
import { INTERRUPTED_SEND_REASON } from "../../db/queries/run-lifecycle.ts";
import { deliveriesOfRun } from "../../db/queries/run-queue.ts";
import { linkIdentity } from "../../db/queries/users.ts";
import { briefingRuns, users } from "../../db/schema/index.ts";
import { createPlatformState } from "../../db/stores/index.ts";
import type { PlatformSender } from "../../src/core/assistant.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { telegramConfigFor } from "../bots/telegram/harness.ts";
import { testCore } from "../core/fixture.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { eventually, modelFor, startModel, startRig } from "../scheduler/rig.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const MORNING_ONLY = { morning: "07:00", midday: null, afternoon: null, evening: null };
let accountIds = 8_100_000 + Math.floor(Math.random() * 100_000);

describeEachDatabase("delivery through the real Telegram adapter", (getDb) => {
  let ollama: OllamaTestServer;
  let telegram: TelegramTestServer;
  const bots: TelegramBot[] = [];
  beforeAll(async () => {
    ollama = await startModel();
    telegram = await startTelegramServer();
  });
  afterAll(async () => {
    await telegram.close();
    await ollama.close();
  });
  beforeEach(async () => {
    await getDb()
      .update(users)
      .set({ slots: { morning: null, midday: null, afternoon: null, evening: null } });
  });

  function telegramSender(db: Database, clock: ReturnType<typeof fixedClock>): PlatformSender {
    const model = modelFor(ollama);
    const bot = createTelegramBot({
      config: telegramConfigFor(telegram),
      platformState: createPlatformState(db),
      assistant: testCore(db, model, { clock }).assistant,
      clock,
      retry: { maxAttempts: 1, maxDelaySeconds: 1 },
    });
    bots.push(bot);
    return bot.sender;
  }

  async function linkedUser(db: Database) {
    accountIds += 1;
    const user = await createTestUser(db, {
      timeZone: "Europe/London",
      slots: MORNING_ONLY,
      createdAt: new Date("2024-01-01T00:00:00Z"),
    });
    telegram.addChat({ id: accountIds, first_name: "Ann" });
    await linkIdentity(db, user.id, {
      platform: "telegram",
      externalUserId: String(accountIds),
      chatId: String(accountIds),
    });
    return { user, chatId: accountIds };
  }

  it("posts the briefing to the chat and stores Telegram's message id", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user, chatId } = await linkedUser(db);
    const rig = await startRig(db, clock, modelFor(ollama), { senders: [telegramSender(db, clock)] });
    await rig.scheduler.tick();
    await rig.scheduler.drain();

    const [run] = await db.select().from(briefingRuns).where(eq(briefingRuns.userId, user.id));
    expect(run?.state).toBe("delivered");
    const posts = telegram.chat(chatId).botMessages();
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.map((post) => post.text).join("\n")).toContain(run?.prose?.slice(0, 20) ?? "(no prose)");
    const [delivery] = await deliveriesOfRun(db, run?.id ?? 0);
    expect(delivery?.platformMessageId).toBe(String(posts[0]?.messageId));
  });

  it("ends a blocked chat failed with Telegram's reason, without retrying", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user, chatId } = await linkedUser(db);
    telegram.blockChat(chatId);
    const before = telegram.callsTo("sendMessage").length;
    const rig = await startRig(db, clock, modelFor(ollama), { senders: [telegramSender(db, clock)] });
    await rig.scheduler.tick();
    await rig.scheduler.drain();

    const [run] = await db.select().from(briefingRuns).where(eq(briefingRuns.userId, user.id));
    expect(run?.state).toBe("failed");
    expect(run?.reason).toMatch(
      /^telegram: telegram sendMessage: 403 Forbidden: bot was blocked by the user/,
    );
    expect(telegram.callsTo("sendMessage").length - before).toBe(1);
  });

  it("does not post twice when the process died after Telegram accepted the message", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user, chatId } = await linkedUser(db);
    const real = telegramSender(db, clock);
    // Process A: Telegram gets the message, then the process dies before recording the answer.
    const dying: PlatformSender = {
      platform: "telegram",
      async deliver(attempt) {
        await real.deliver(attempt);
        return new Promise<never>(() => {});
      },
    };
    const processA = await startRig(db, clock, modelFor(ollama), { senders: [dying] });
    await processA.scheduler.tick();
    await eventually(async () => telegram.chat(chatId).botMessages().length > 0);
    const postedByA = telegram.chat(chatId).botMessages().length;

    await processA.die();
    const processB = await startRig(db, clock, modelFor(ollama), { senders: [telegramSender(db, clock)] });
    await processB.scheduler.recover();
    await processB.scheduler.drain();

    expect(telegram.chat(chatId).botMessages()).toHaveLength(postedByA);
    const [run] = await db.select().from(briefingRuns).where(eq(briefingRuns.userId, user.id));
    expect(run?.state).toBe("failed");
    expect(run?.reason).toBe(`telegram: ${INTERRUPTED_SEND_REASON}`);
  });
});
