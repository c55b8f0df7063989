/**
 * Updates a stopped process left unhandled, taken over by the next poller with what that process had
 * recorded as posted: an answer already out is not given a second time, and a live message left showing is
 * where the new answer goes.
 */
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { Api } from "grammy";
import type { Update } from "grammy/types";
import { expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { inboundUpdates } from "../../../db/schema/index.ts";
import { createInboundUpdates, createLeases } from "../../../db/stores/index.ts";
import type { InboundProgress, Logger } from "../../../src/core/index.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { requestText } from "../../helpers/scripted-model.ts";
import type { TestUser } from "../../servers/telegram-server.ts";
import { type Harness, linkedUser, MODEL, telegramSuite } from "./harness.ts";

const AT = new Date("2025-06-02T06:00:00Z");

describeEachDatabase("telegram: an update taken over from a stopped process", (getDb) => {
  const suite = telegramSuite(getDb);

  /** A polling bot keeping its updates in `db` under a source of this test's own; its info lines. */
  async function startDurable(db: Database) {
    const owner = `poller-${randomBytes(4).toString("hex")}`;
    const source = `telegram:test-${randomBytes(4).toString("hex")}`;
    await createLeases(db).acquire(`process:${owner}`, owner, 3_600_000, AT);
    const updates = createInboundUpdates(db);
    const infos: string[] = [];
    const logger: Logger = {
      info: (_details, message) => infos.push(message),
      warn: () => {},
      error: () => {},
    };
    const h = await suite.start({
      start: false,
      bot: { logger, durable: { updates, source, owner, everyOtherOwner: false, clock: { now: () => AT } } },
    });
    return { h, updates, source, infos };
  }

  /**
   * What a process that stopped mid-answer leaves: the question stored under its claim (Telegram still
   * holds it too, unconfirmed), a message it posted in the chat, and `progress` naming that message.
   */
  async function leftBehind(
    durable: Awaited<ReturnType<typeof startDurable>>,
    account: TestUser,
    question: string,
    shown: string,
    progress: (messageId: string) => InboundProgress,
  ) {
    const { h, updates, source } = durable;
    const gone = `gone-${randomBytes(4).toString("hex")}`;
    const { updateId, message } = h.telegram.sendUserMessage(account, question);
    const update = { update_id: updateId, message } as unknown as Update;
    await updates.store(source, [{ updateId: String(updateId), payload: update }], gone, AT);
    const posted = await new Api(h.telegram.token, { apiRoot: h.telegram.url }).sendMessage(
      account.id,
      shown,
    );
    expect(
      await updates.recordProgress(source, String(updateId), gone, progress(String(posted.message_id))),
    ).toBe(true);
    return { updateId, messageId: posted.message_id };
  }

  const botTexts = (h: Harness, account: TestUser) =>
    h.telegram
      .chat(account.id)
      .botMessages()
      .map((post) => post.text);

  it("does not answer again a question whose answer the stopped process had posted", async () => {
    const db = getDb();
    const { account } = await linkedUser(db);
    const durable = await startDurable(db);
    const { h } = durable;
    h.telegram.addChat(account);
    await leftBehind(durable, account, "What is on today?", "Nothing on your calendar today.", (id) => ({
      placeholder: id,
      posted: [id],
    }));

    h.ollama.script(MODEL, { content: "You are welcome." });
    await h.app.start();
    const next = h.telegram.sendUserMessage(account, "Thanks!");
    await h.telegram.waitUntilProcessed(next.updateId, 15_000);
    await h.app.idle();

    expect(botTexts(h, account)).toEqual(["Nothing on your calendar today.", "You are welcome."]);
    expect(h.ollama.chatRequests(MODEL).map((request) => requestText(request))).toEqual([
      expect.stringContaining("Thanks!"),
    ]);
    expect(durable.infos.filter((line) => line.includes("answered before the process stopped"))).toHaveLength(
      1,
    );
    // What this process recorded for its own answer, as Telegram accepted it. Had it stopped before marking the update handled, the next holder would not answer again.
    const answer = h.telegram
      .chat(account.id)
      .botMessages()
      .find((post) => post.text === "You are welcome.");
    const [row] = await db
      .select({ progress: inboundUpdates.progress })
      .from(inboundUpdates)
      .where(
        and(eq(inboundUpdates.source, durable.source), eq(inboundUpdates.updateId, String(next.updateId))),
      );
    expect(row?.progress).toMatchObject({ posted: [String(answer?.messageId)] });
    // Marked handled: no one takes it over again.
    expect(
      await durable.updates.reclaimOrphans(durable.source, { owner: "next", at: AT, everyOtherOwner: true }),
    ).toEqual([]);
  });

  it("answers a question the stopped process was still streaming into the live message it left", async () => {
    const db = getDb();
    const { account } = await linkedUser(db);
    const durable = await startDurable(db);
    const { h } = durable;
    h.telegram.addChat(account);
    const { messageId } = await leftBehind(durable, account, "What is on today?", "Nothing on", (id) => ({
      placeholder: id,
      posted: [],
    }));

    h.ollama.script(MODEL, { content: "Nothing on your calendar today." });
    await h.app.start();
    await h.telegram.waitFor(() => botTexts(h, account).includes("Nothing on your calendar today."));
    await h.app.idle();

    const posts = h.telegram.chat(account.id).botMessages();
    expect(posts.map((post) => [post.messageId, post.text])).toEqual([
      [messageId, "Nothing on your calendar today."],
    ]);
    expect(h.ollama.chatRequests(MODEL)).toHaveLength(1);
  });
});
