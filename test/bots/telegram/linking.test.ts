/**
 * A stranger links themselves on Telegram with a one-time code, through the real grammY bot and the
 * Telegram test server: `/start CODE` (the deep link) links and remembers the chat, after which /brief works;
 * a reused or expired code gets the one refusal line, with no data and no model call.
 */
import { expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { createTask } from "../../../db/queries/tasks.ts";
import { findUserByIdentity, findUserByName } from "../../../db/queries/users.ts";
import { createDbPorts } from "../../../db/stores/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { createLinking } from "../../../src/core/linking/linking.ts";
import { INVALID_CODE_TEXT } from "../../../src/core/linking/replies.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import type { TestUser } from "../../servers/telegram-server.ts";
import { type Harness, MODEL, nextTelegramId, telegramSuite } from "./harness.ts";

const HOUR = 3_600_000;
const SECRET_TITLE = "Pay the secret invoice";

function linkingFor(db: Database, options: { selfSignup?: boolean } = {}) {
  const clock = fixedClock("2025-06-02T06:00:00Z");
  const ports = createDbPorts(db);
  return {
    clock,
    linking: createLinking({ invites: ports.invites, platformState: ports.platformState, clock, ...options }),
  };
}

/** A Telegram account nobody linked, whose private chat the test server knows. */
function stranger(h: Harness, username?: string): TestUser {
  const account: TestUser = {
    id: nextTelegramId(),
    first_name: "Stranger",
    ...(username ? { username } : {}),
  };
  h.telegram.addChat(account);
  return account;
}

async function say(h: Harness, account: TestUser, text: string): Promise<string[]> {
  const before = h.telegram.chat(account.id).botMessages().length;
  const sent = h.telegram.sendUserMessage(account, text);
  await h.telegram.waitUntilProcessed(sent.updateId);
  await h.app.idle();
  return h.telegram
    .chat(account.id)
    .botMessages()
    .slice(before)
    .map((post) => post.text);
}

describeEachDatabase("telegram linking by code", (getDb) => {
  const suite = telegramSuite(getDb);

  it("links a stranger with /start CODE, remembers the chat, and then /brief works", async () => {
    const db = getDb();
    const { linking } = linkingFor(db);
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    await createTask(db, { userId: user.id, title: SECRET_TITLE, dueDate: "2025-06-02" });
    const { code } = await linking.invite(user.id);
    const h = await suite.start({ bot: { linking } });
    const ann = stranger(h);

    const [greeting, ...more] = await say(h, ann, `/start ${code}`);
    expect(more).toEqual([]);
    expect(greeting).toContain(`You're linked as ${user.name}.`);
    expect(greeting).toContain("morning 07:00");
    expect(greeting).toContain("/brief");
    const linked = await findUserByIdentity(db, "telegram", String(ann.id));
    expect(linked?.user.id).toBe(user.id);
    expect(linked?.identity.chatId).toBe(String(ann.id));

    h.ollama.setModel(MODEL, {
      reply: ({ request }) =>
        request.messages.some((message) => message.role === "tool")
          ? { content: `One task is due today: "${SECRET_TITLE}".` }
          : { toolCalls: [{ name: "list_tasks", arguments: { filter: "open" } }] },
    });
    h.telegram.sendUserMessage(ann, "/brief");
    const briefing = await h.telegram.waitFor(
      () =>
        h.telegram
          .chat(ann.id)
          .botMessages()
          .find((post) => post.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data?.startsWith("r:")),
      30_000,
    );
    expect(briefing.text).toContain(SECRET_TITLE);

    // The same account sending /link again is told who it is linked to; nothing changes.
    expect(await say(h, ann, `/link ${code}`)).toEqual([
      `This account is already linked to ${user.name}; nothing changed.`,
    ]);
  });

  it("refuses a reused code and an expired one with the same line, no data and no model call", async () => {
    const db = getDb();
    const { clock, linking } = linkingFor(db);
    const user = await createTestUser(db);
    await createTask(db, { userId: user.id, title: SECRET_TITLE });
    const used = await linking.invite(user.id);
    const h = await suite.start({ bot: { linking } });
    await say(h, stranger(h), `/link ${used.code}`);

    const late = await createTestUser(db);
    const expired = await linking.invite(late.id, 2 * HOUR);
    clock.advance(3 * HOUR);

    const eve = stranger(h);
    expect(await say(h, eve, `/start ${used.code}`)).toEqual([INVALID_CODE_TEXT]);
    expect(await say(h, eve, `/link ${expired.code}`)).toEqual([INVALID_CODE_TEXT]);
    expect(await say(h, eve, "/link WRONG-CODE")).toEqual([INVALID_CODE_TEXT]);
    // Still a stranger: what they ask next is refused by the gate, pointing at /link.
    const refusal = await say(h, eve, "/brief");
    expect(refusal).toHaveLength(1);
    expect(refusal[0]).toContain("/link CODE");

    expect(await findUserByIdentity(db, "telegram", String(eve.id))).toBeUndefined();
    const everything = h.telegram
      .chat(eve.id)
      .botMessages()
      .map((post) => post.text)
      .join("\n");
    expect(everything).not.toContain(SECRET_TITLE);
    expect(everything).not.toContain(user.name);
    expect(everything).not.toContain(late.name);
    expect(h.ollama.chatRequests()).toHaveLength(0);
  });

  it("tells a guesser to wait after five wrong codes", async () => {
    const db = getDb();
    const { linking } = linkingFor(db);
    const h = await suite.start({ bot: { linking } });
    const guesser = stranger(h);
    for (let i = 0; i < 5; i += 1) await say(h, guesser, `/link AAAA-AAA${i}`);
    expect(await say(h, guesser, "/link AAAA-AAAZ")).toEqual([
      "Too many codes tried. Please wait 60 minutes, then try again.",
    ]);
  });

  it("self-signup: off, a bare /start is refused; on, it creates a UTC user named after the username", async () => {
    const db = getDb();
    const off = await suite.start({ bot: { linking: linkingFor(db).linking } });
    const newcomer = stranger(off, "newcomer_tg");
    const refused = await say(off, newcomer, "/start");
    expect(refused[0]).toContain("/link CODE");
    expect(await findUserByIdentity(db, "telegram", String(newcomer.id))).toBeUndefined();

    const on = await suite.start({ bot: { linking: linkingFor(db, { selfSignup: true }).linking } });
    const again = stranger(on, "newcomer_tg");
    const [welcome] = await say(on, again, "/start");
    expect(welcome).toContain("You're linked as newcomer_tg.");
    expect(welcome).toContain("/settings place <city>");
    const created = await findUserByName(db, "newcomer_tg");
    expect(created?.timeZone).toBe("UTC");
    expect((await findUserByIdentity(db, "telegram", String(again.id)))?.user.id).toBe(created?.id);
    // Linked now: a bare /start is the usual help.
    expect((await say(on, again, "/start"))[0]).toContain("/receipts");
  });
});
