/**
 * A scripted model writes natural prose — honest sentences and one lie of every kind the gate stops
 * (test/core/grounding/corpus/natural-day.ts) — through the real Telegram adapter: the briefing and a chat
 * answer reach the user with every honest sentence and no lie in any version of any message. (The harness's
 * fixed clock keeps the live message from editing before it settles, so the streaming guard itself is tested
 * in test/core/chat/grounded-stream.test.ts.)
 */
import { afterEach, expect, it } from "vitest";
import { linkIdentity } from "../../../db/queries/users.ts";
import { LONDON } from "../../core/fixture.ts";
import {
  HONEST_SENTENCES,
  LIES,
  naturalDraft,
  plain,
  seedNaturalDay,
} from "../../core/grounding/corpus/natural-day.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import type { BotPost, TestUser } from "../../servers/telegram-server.ts";
import { type Harness, MODEL, nextTelegramId, startHarness } from "./harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const posts = (h: Harness, account: TestUser) => h.telegram.chat(account.id).botMessages();

function expectNoLieEverShown(all: readonly BotPost[]): void {
  const shown = all.flatMap((post) => post.history).map(plain);
  for (const [kind, lie] of Object.entries(LIES)) {
    expect(
      shown.some((text) => text.includes(plain(lie))),
      kind,
    ).toBe(false);
  }
}

describeEachDatabase(
  "telegram: natural prose reaches the user only as far as the receipts back it",
  (getDb) => {
    it("delivers the honest sentences of a briefing and a chat answer, and no lie of any kind", async () => {
      const db = getDb();
      const user = await createTestUser(db, LONDON);
      const account: TestUser = { id: nextTelegramId(), first_name: "Ann" };
      await linkIdentity(db, user.id, { platform: "telegram", externalUserId: String(account.id) });
      await seedNaturalDay(db, user);
      harness = await startHarness(db);
      const h = harness;
      const draft = naturalDraft();

      h.ollama.script(MODEL, [{ content: draft }, { content: draft }]);
      h.telegram.sendUserMessage(account.id, "/brief morning");
      const briefing = await h.telegram.waitFor(
        () =>
          posts(h, account).find((post) =>
            post.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data?.startsWith("r:"),
          ),
        30_000,
      );
      for (const sentence of HONEST_SENTENCES) expect(plain(briefing.text)).toContain(plain(sentence));

      h.ollama.script(MODEL, [{ content: draft }, { content: draft }]);
      const { message } = h.telegram.sendUserMessage(account.id, "what's on today?");
      const answer = await h.telegram.waitFor(() =>
        posts(h, account).find((post) => post.replyTo === message.message_id && post.parseMode === "HTML"),
      );
      for (const sentence of HONEST_SENTENCES) expect(plain(answer.text)).toContain(plain(sentence));
      expectNoLieEverShown(posts(h, account));
    });
  },
);
