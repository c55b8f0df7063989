import { expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { createTask, getTask } from "../../../db/queries/tasks.ts";
import { findUserByIdentity, updateUser } from "../../../db/queries/users.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { COMMAND_MENU } from "../../../src/core/command-menu.ts";
import { createSourceRefresher } from "../../../src/sources/refresh-sources.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { todoistAccountService, todoistTaskOf } from "../../helpers/todoist-account.ts";
import { startOpenMeteoServer } from "../../servers/open-meteo-server.ts";
import type { BotPost, TestUser } from "../../servers/telegram-server.ts";
import { startTodoistServer } from "../../servers/todoist-server.ts";
import {
  expectPerChatOrder,
  type Harness,
  linkedUser,
  MODEL,
  nextTelegramId,
  telegramSuite,
} from "./harness.ts";

const HOSTILE_TITLES = ["<b>", "a & b"];

async function seedHostileTasks(db: Database, userId: number) {
  for (const title of HOSTILE_TITLES) {
    await createTask(db, { userId, title, dueDate: "2025-06-02", priority: "high" });
  }
}

const BRIEFING_PROSE = `Good morning. Two tasks are due today: "<b>" and "a & b".`;

/** The model lists tasks first, then writes the prose (also when the runner asks it to finish with more data). */
function scriptBriefing(h: Harness) {
  h.ollama.setModel(MODEL, {
    reply: ({ request }) =>
      request.messages.some((message) => message.role === "tool")
        ? { content: BRIEFING_PROSE }
        : { toolCalls: [{ name: "list_tasks", arguments: { filter: "open" } }] },
  });
}

/** Sends /brief and waits for the message carrying the Receipts button. */
async function brief(h: Harness, chatId: number): Promise<BotPost> {
  h.telegram.sendUserMessage(chatId, "/brief");
  return h.telegram.waitFor(
    () =>
      h.telegram
        .chat(chatId)
        .botMessages()
        .find((post) => post.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data?.startsWith("r:")),
    30_000,
  );
}

/** Sends a chat message that makes the model call a destructive tool; returns the Confirm / Cancel post. */
async function askForConfirmation(h: Harness, account: TestUser, text: string): Promise<BotPost> {
  h.telegram.sendUserMessage(account, text);
  return h.telegram.waitFor(() =>
    h.telegram
      .chat(account.id)
      .botMessages()
      .find((post) => post.replyMarkup?.inline_keyboard[0]?.length === 2),
  );
}

describeEachDatabase("telegram bot", (getDb) => {
  const suite = telegramSuite(getDb);
  it("gives a linked user's /brief a briefing with the status row and Receipts button, titles intact", async () => {
    const { db, h, user, account } = await suite.withUser();
    await seedHostileTasks(db, user.id);
    scriptBriefing(h);
    const post = await brief(h, account.id);
    expect(post.parseMode).toBe("HTML");
    expect(post.text).toContain('"<b>" and "a & b"');
    expect(post.text).toMatch(/✓ [^\n]+$/);
    // While it worked, the live message showed each tool result as the core reported it.
    const progress = h.telegram
      .callsTo("sendMessage")
      .map((call) => String(call.params.text))
      .find((text) => text.startsWith("⏳"));
    expect(progress).toBe("⏳ Working on your briefing…\n✓ list_tasks");
    expect(post.replyMarkup?.inline_keyboard[0]?.[0]).toMatchObject({
      text: expect.stringContaining("Receipts"),
    });
    expect(
      h.telegram.chatActions.some((action) => action.chatId === account.id && action.action === "typing"),
    ).toBe(true);
    const linked = await findUserByIdentity(db, "telegram", String(account.id));
    expect(linked?.identity.chatId).toBe(String(account.id));
  });

  it("shows 'refreshing weather…' in the live message while a stale forecast is fetched before the briefing", async () => {
    const db = getDb();
    const meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
    try {
      const { h, user, account } = await suite.withUser({
        refresh: createSourceRefresher({
          db,
          fetch,
          clock: fixedClock("2025-06-02T06:00:00Z"),
          forecastUrl: meteo.url,
          maxAgeMinutes: { calendar: 15, feeds: 30, weather: 30 },
        }),
      });
      await updateUser(db, user.id, { latitude: 38.72, longitude: -9.13, locationName: "Lisbon, Portugal" });
      h.ollama.setModel(MODEL, { reply: () => ({ content: "Partly cloudy in Lisbon, 12 to 21 degrees." }) });
      const post = await brief(h, account.id);
      const progress = h.telegram
        .callsTo("sendMessage")
        .map((call) => String(call.params.text))
        .find((text) => text.startsWith("⏳"));
      expect(progress).toBe("⏳ Working on your briefing…\nrefreshing weather…");
      expect(meteo.forecastRequests()).toHaveLength(1);
      // The model was handed the fetched forecast, so the grounded briefing keeps the temperatures.
      expect(post.text).toContain("Partly cloudy in Lisbon, 12 to 21 degrees.");
      expect(post.text).toContain("✓ pulled weather");
    } finally {
      await meteo.close();
    }
  });

  it("answers /brief with an unknown slot in one short message, whatever was typed, without the model", async () => {
    const { h, account } = await suite.withUser();
    h.telegram.sendUserMessage(account.id, `/brief ${"x".repeat(4090)}`);
    const post = await h.telegram.waitFor(() => h.telegram.chat(account.id).botMessages()[0], 30_000);
    expect(post.text).toBe(
      `"${"x".repeat(40)}…" is not a briefing slot. Try one of: morning, midday, afternoon, evening.`,
    );
    expect(h.ollama.chatRequests()).toHaveLength(0);
  });

  it("shows receipts when the button is pressed, as a reply, HTML-escaped", async () => {
    const { db, h, user, account } = await suite.withUser();
    await seedHostileTasks(db, user.id);
    scriptBriefing(h);
    const post = await brief(h, account.id);
    const data = post.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "";
    const { queryId } = h.telegram.pressButton(account.id, post.messageId, data);
    const receipts = await h.telegram.waitFor(() =>
      h.telegram
        .chat(account.id)
        .botMessages()
        .find((entry) => entry.text.includes("Receipts ·")),
    );
    expect(receipts.replyTo).toBe(post.messageId);
    expect(receipts.text).toContain("list_tasks");
    for (const title of HOSTILE_TITLES) expect(receipts.text).toContain(title);
    expect(receipts.rawText).toContain("&lt;b&gt;");
    expect(h.telegram.callbackAnswers.some((answer) => answer.id === queryId)).toBe(true);
  });

  it("answers a reply to the briefing in its chain, from that run's receipts", async () => {
    const { db, h, user, account } = await suite.withUser();
    await seedHostileTasks(db, user.id);
    scriptBriefing(h);
    const post = await brief(h, account.id);
    const before = h.ollama.chatRequests().length;
    h.ollama.script(MODEL, { content: 'The high-priority one is "a & b", due today.' });
    const { message } = h.telegram.sendUserMessage(account.id, "which one is high priority?", {
      replyTo: post.messageId,
    });
    // Streamed: the live message becomes the answer once it is complete.
    const answer = await h.telegram.waitFor(() =>
      h.telegram
        .chat(account.id)
        .botMessages()
        .find((entry) => entry.replyTo === message.message_id && entry.parseMode === "HTML"),
    );
    expect(answer.text).toBe('The high-priority one is "a & b", due today.');
    expect(
      h.telegram
        .chat(account.id)
        .botMessages()
        .filter((entry) => entry.replyTo === message.message_id),
    ).toHaveLength(1);
    const request = h.ollama.chatRequests()[before];
    const toolMessages = request?.messages.filter((entry) => entry.role === "tool") ?? [];
    expect(JSON.stringify(toolMessages)).toContain("a & b");

    // A reply to the answer stays in the same briefing's chain.
    h.ollama.script(MODEL, { content: "It is due today." });
    const second = h.telegram.sendUserMessage(account.id, "when?", { replyTo: answer.messageId });
    await h.telegram.waitFor(() =>
      h.telegram
        .chat(account.id)
        .botMessages()
        .find((entry) => entry.replyTo === second.message.message_id && entry.parseMode === "HTML"),
    );
    const followUp = h.ollama.chatRequests().at(-1);
    expect(JSON.stringify(followUp?.messages.filter((entry) => entry.role === "tool"))).toContain("a & b");
    expect(JSON.stringify(followUp?.messages)).toContain("which one is high priority?");
  });

  it("shows /receipts of the latest briefing", async () => {
    const { db, h, user, account } = await suite.withUser();
    await seedHostileTasks(db, user.id);
    scriptBriefing(h);
    await brief(h, account.id);
    const { message } = h.telegram.sendUserMessage(account.id, "/receipts");
    const receipts = await h.telegram.waitFor(() =>
      h.telegram
        .chat(account.id)
        .botMessages()
        .find((entry) => entry.replyTo === message.message_id),
    );
    expect(receipts.text).toContain("list_tasks");
    expect(receipts.text).toContain("a & b");
  });

  it("refuses a stranger once, shows their id, and never calls the model", async () => {
    const h = await suite.start();
    const strangerId = nextTelegramId();
    h.telegram.sendUserMessage(strangerId, "/brief");
    const second = h.telegram.sendUserMessage(strangerId, "what are my tasks?");
    await h.telegram.waitUntilProcessed(second.updateId);
    await h.app.idle();
    const posts = h.telegram.chat(strangerId).botMessages();
    expect(posts).toHaveLength(1);
    expect(posts[0]?.text).toContain(`briefbot user link <name> --telegram ${strangerId}`);
    expect(h.ollama.chatRequests()).toHaveLength(0);
    expect(h.telegram.chatActions).toHaveLength(0);
  });

  it("explains itself on /start and registers its commands", async () => {
    const { h, account } = await suite.withUser();
    h.telegram.sendUserMessage(account, "/start");
    const help = await h.telegram.waitFor(() => h.telegram.chat(account.id).botMessages()[0]);
    expect(help.text).toContain("/brief");
    expect(help.text).toContain("/receipts");
    // The menu is the core's catalog, every command with its description, in order.
    expect(h.telegram.commands).toEqual(
      COMMAND_MENU.map((entry) => ({ command: entry.command, description: entry.description })),
    );
    expect(h.telegram.commands.map((entry) => (entry as { command: string }).command)).toEqual([
      "brief",
      "receipts",
      "settings",
      "link",
      "export",
      "forget",
      "help",
    ]);
    for (const entry of COMMAND_MENU) expect(help.text).toContain(`/${entry.command}`);
  });

  it("holds a destructive call for Confirm, lets only its owner press it, then runs it", async () => {
    const { db, h, user, account } = await suite.withUser();
    const other = await linkedUser(db, "Bob");
    const task = await createTask(db, { userId: user.id, title: "Renew <passport>" });
    h.ollama.script(MODEL, [
      { toolCalls: [{ name: "delete_task", arguments: { id: task.id } }] },
      { content: "I'll delete it once you confirm." },
    ]);
    const confirmation = await askForConfirmation(h, account, "delete the passport task");
    expect(confirmation.text).toContain("Renew <passport>");
    const [confirm, cancel] = confirmation.replyMarkup?.inline_keyboard[0] ?? [];
    expect(confirm?.callback_data).toMatch(/^c:\d+:y$/);
    expect(cancel?.callback_data).toMatch(/^c:\d+:n$/);
    expect(await getTask(db, user.id, task.id)).toBeDefined();

    // Someone else (linked or not) pressing it gets an alert and changes nothing.
    const byOther = h.telegram.pressButton(
      account.id,
      confirmation.messageId,
      confirm?.callback_data ?? "",
      other.account,
    );
    const otherAnswer = await h.telegram.waitFor(() =>
      h.telegram.callbackAnswers.find((answer) => answer.id === byOther.queryId),
    );
    expect(otherAnswer.showAlert).toBe(true);
    const stranger = h.telegram.pressButton(
      account.id,
      confirmation.messageId,
      confirm?.callback_data ?? "",
      {
        id: nextTelegramId(),
        first_name: "Eve",
      },
    );
    const strangerAnswer = await h.telegram.waitFor(() =>
      h.telegram.callbackAnswers.find((answer) => answer.id === stranger.queryId),
    );
    expect(strangerAnswer.showAlert).toBe(true);
    expect(await getTask(db, user.id, task.id)).toBeDefined();

    const mine = h.telegram.pressButton(account.id, confirmation.messageId, confirm?.callback_data ?? "");
    await h.telegram.waitFor(() => h.telegram.callbackAnswers.find((answer) => answer.id === mine.queryId));
    const edited = await h.telegram.waitFor(() => {
      const post = h.telegram
        .chat(account.id)
        .botMessages()
        .find((entry) => entry.messageId === confirmation.messageId);
      return post && post.edits > 0 ? post : undefined;
    });
    expect(edited.text).toContain("Done");
    expect(edited.replyMarkup).toBeUndefined();
    expect(await getTask(db, user.id, task.id)).toBeUndefined();
  });

  it("asks again with fresh Confirm / Cancel when the task changed on its Todoist after the prompt", async () => {
    const todoist = await startTodoistServer();
    try {
      const accounts = todoistAccountService(getDb(), fixedClock("2025-06-02T06:00:00Z"));
      const { db, h, user, account } = await suite.withUser({ accounts });
      const { remoteId, task } = await todoistTaskOf(db, accounts, todoist, user, "Call the vet", h.clock);
      h.ollama.script(MODEL, [
        { toolCalls: [{ name: "delete_task", arguments: { id: task.id } }] },
        { content: "Confirm to delete it." },
      ]);
      const confirmation = await askForConfirmation(h, account, "delete the vet task");
      todoist.editTask(remoteId, { content: "Call the vet about the cat" });
      const pressed = confirmation.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "";
      h.telegram.pressButton(account.id, confirmation.messageId, pressed);

      const again = await h.telegram.waitFor(() =>
        h.telegram
          .chat(account.id)
          .botMessages()
          .find(
            (post) =>
              post.messageId !== confirmation.messageId && post.replyMarkup?.inline_keyboard[0]?.length === 2,
          ),
      );
      expect(again.text).toContain(`Delete task ${task.id} "Call the vet about the cat"?`);
      const [confirm, cancel] = again.replyMarkup?.inline_keyboard[0] ?? [];
      expect(confirm?.callback_data).toMatch(/^c:\d+:y$/);
      expect(cancel?.callback_data).toMatch(/^c:\d+:n$/);
      expect(confirm?.callback_data).not.toBe(pressed);
      // The pressed prompt loses its buttons and says what changed; nothing was deleted.
      const edited = h.telegram
        .chat(account.id)
        .botMessages()
        .find((post) => post.messageId === confirmation.messageId);
      expect(edited?.text).toContain('title "Call the vet" → "Call the vet about the cat"');
      expect(edited?.replyMarkup).toBeUndefined();
      expect(todoist.task(remoteId)?.is_deleted).toBe(false);

      h.telegram.pressButton(account.id, again.messageId, confirm?.callback_data ?? "");
      await h.telegram.waitFor(() => todoist.task(remoteId)?.is_deleted === true);
    } finally {
      await todoist.close();
    }
  });

  it("says so when a confirmation has expired", async () => {
    const { db, h, user, account } = await suite.withUser();
    const task = await createTask(db, { userId: user.id, title: "Old thing" });
    h.ollama.script(MODEL, [
      { toolCalls: [{ name: "delete_task", arguments: { id: task.id } }] },
      { content: "Confirm to delete it." },
    ]);
    const confirmation = await askForConfirmation(h, account, "delete the old thing");
    h.clock.advance(11 * 60_000);
    const data = confirmation.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "";
    h.telegram.pressButton(account.id, confirmation.messageId, data);
    const edited = await h.telegram.waitFor(() => {
      const post = h.telegram
        .chat(account.id)
        .botMessages()
        .find((entry) => entry.messageId === confirmation.messageId);
      return post && post.edits > 0 ? post : undefined;
    });
    expect(edited.text).toMatch(/expired/i);
    expect(await getTask(db, user.id, task.id)).toBeDefined();
  });

  it("handles one chat's messages in order while other chats are answered meanwhile", async () => {
    const { db, h, account } = await suite.withUser();
    await expectPerChatOrder(db, h, account);
  });

  it("keeps working after an update fails", async () => {
    const { h, account } = await suite.withUser();
    h.telegram.failNext({
      method: "sendMessage",
      status: 400,
      description: "Bad Request: message text is empty",
    });
    const failed = h.telegram.sendUserMessage(account, "/help");
    await h.telegram.waitUntilProcessed(failed.updateId);
    await h.app.idle();
    expect(h.telegram.callsTo("sendMessage")[0]?.status).toBe(400);
    h.telegram.sendUserMessage(account, "/help");
    const help = await h.telegram.waitFor(() => h.telegram.chat(account.id).botMessages()[0]);
    expect(help.text).toContain("/receipts");
  });

  it("retries a 5xx with backoff instead of losing the answer", async () => {
    const { h, account } = await suite.withUser();
    h.telegram.failNext({ method: "sendMessage", status: 502, description: "Bad Gateway" });
    h.telegram.sendUserMessage(account, "/help");
    const help = await h.telegram.waitFor(() => h.telegram.chat(account.id).botMessages()[0], 20_000);
    expect(help.text).toContain("/receipts");
    expect(h.telegram.callsTo("sendMessage").map((call) => call.status)).toEqual([502, 200]);
  });
});
