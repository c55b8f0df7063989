/**
 * `/export` and `/forget` through the real grammY bot against the Telegram test server: the file arrives as
 * a multipart sendDocument and is read back from the bytes the server received.
 */
import { expect, it } from "vitest";
import { FIRST_QUESTION, SECOND_QUESTION } from "../../../bots/telegram/user-data.ts";
import { getUser } from "../../../db/queries/users.ts";
import { createUserData } from "../../../db/stores/index.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { expectOwnRedactedExport, seedUserData } from "../../helpers/seed-user-data.ts";
import type { BotPost, TestUser } from "../../servers/telegram-server.ts";
import { type Harness, telegramSuite } from "./harness.ts";

/** The bot's message in `chatId` whose text starts with `start`, once it is there. */
function messageStarting(h: Harness, chatId: number, start: string, after = 0): Promise<BotPost> {
  return h.telegram.waitFor(() =>
    h.telegram
      .chat(chatId)
      .botMessages()
      .find((post) => post.messageId > after && post.text.startsWith(start)),
  );
}

/** The callback data of the question's Yes (or Cancel) button. */
function button(post: BotPost, yes: boolean): string {
  const data = post.replyMarkup?.inline_keyboard[0]?.[yes ? 0 : 1]?.callback_data;
  if (!data) throw new Error(`no ${yes ? "yes" : "cancel"} button under "${post.text}"`);
  return data;
}

async function askForget(h: Harness, account: TestUser): Promise<BotPost> {
  const { message_id } = h.telegram.sendUserMessage(account, "/forget").message;
  return messageStarting(h, account.id, FIRST_QUESTION.slice(0, 20), message_id);
}

describeEachDatabase("telegram /export and /forget", (getDb) => {
  const suite = telegramSuite(getDb);

  it("/export sends a JSON document with the user's tasks and receipts and nothing of another user's", async () => {
    const { db, h, user, account } = await suite.withUser();
    const ann = await seedUserData(db, { user });
    const bob = await seedUserData(db);
    h.telegram.sendUserMessage(account, "/export");
    const file = await h.telegram.waitFor(() =>
      h.telegram.documents.find((doc) => doc.chatId === account.id),
    );
    expect(file.filename).toMatch(/^briefbot-[\w.@-]+-2025-06-02\.json$/);
    // Chat exports always redact subscription addresses.
    expectOwnRedactedExport(file.bytes.toString("utf8"), ann, bob);
    expect(file.caption).toContain("as JSON");
  });

  it("/forget asks twice, then deletes everything; the account is a stranger afterwards", async () => {
    const { db, h, user, account } = await suite.withUser();
    await seedUserData(db, { user });
    const bob = await seedUserData(db);
    const first = await askForget(h, account);
    h.telegram.pressButton(account.id, first.messageId, button(first, true));
    const second = await messageStarting(h, account.id, SECOND_QUESTION.slice(0, 20));
    expect(await getUser(db, user.id)).toBeDefined();
    h.telegram.pressButton(account.id, second.messageId, button(second, true));
    const done = await messageStarting(h, account.id, "Done: I deleted everything");
    expect(done.text).toContain("tasks: 1");
    expect(await getUser(db, user.id)).toBeUndefined();
    expect(await createUserData(db).read(user.id)).toBeUndefined();
    expect((await createUserData(db).read(bob.user.id))?.tasks).toHaveLength(1);
    // Both questions lost their buttons once answered.
    expect(h.telegram.chat(account.id).message(first.messageId)?.reply_markup?.inline_keyboard ?? []).toEqual(
      [],
    );
    h.telegram.sendUserMessage(account, "hello again");
    await messageStarting(h, account.id, "Hello! I'm a private assistant", done.messageId);
  });

  it("Cancel on the second question, another message, a stale button or a late answer delete nothing", async () => {
    const { db, h, user, account } = await suite.withUser();
    await seedUserData(db, { user });
    // Cancel at the second question.
    const first = await askForget(h, account);
    h.telegram.pressButton(account.id, first.messageId, button(first, true));
    const second = await messageStarting(h, account.id, SECOND_QUESTION.slice(0, 20));
    h.telegram.pressButton(account.id, second.messageId, button(second, false));
    await messageStarting(h, account.id, "Cancelled. Nothing was deleted.");
    // Something else said while the question is open cancels it.
    const again = await askForget(h, account);
    const againYes = button(again, true);
    h.telegram.sendUserMessage(account, "/help");
    await messageStarting(h, account.id, "Forgetting cancelled.", again.messageId);
    // Its Yes, still under the question, answers nothing now.
    const { queryId } = h.telegram.pressButton(account.id, again.messageId, againYes);
    const stale = await h.telegram.waitFor(() => h.telegram.callbackAnswers.find((a) => a.id === queryId));
    expect(stale).toMatchObject({ showAlert: true });
    expect(stale.text).toContain("no longer open");
    // A question answered after it expired.
    const late = await askForget(h, account);
    h.clock.advance(6 * 60_000);
    h.telegram.pressButton(account.id, late.messageId, button(late, true));
    await messageStarting(h, account.id, "That question expired.", late.messageId);
    expect((await createUserData(db).read(user.id))?.tasks).toHaveLength(1);
    expect(
      h.telegram.sent.some(
        (post) => post.text.startsWith(SECOND_QUESTION.slice(0, 20)) && post.messageId > again.messageId,
      ),
    ).toBe(false);
  });
});
