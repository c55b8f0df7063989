/**
 * /settings through grammY against the Telegram test server: the view's buttons, a short form changing
 * the morning slot (and the scheduler then delivering at the new local time), the pick list for an
 * ambiguous place with the proposed zone, and one-line refusals.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getUser } from "../../../db/queries/users.ts";
import { briefingRuns } from "../../../db/schema/index.ts";
import { createOpenMeteoGeocoder } from "../../../src/sources/weather/geocoder.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../../servers/open-meteo-server.ts";
import type { BotPost } from "../../servers/telegram-server.ts";
import { tickAt } from "../scheduled-tick.ts";
import { type Harness, MODEL, telegramSuite } from "./harness.ts";

let meteo: OpenMeteoServer;
beforeAll(async () => {
  meteo = await startOpenMeteoServer();
});
afterAll(() => meteo.close());

const buttonsOf = (post: BotPost) => post.replyMarkup?.inline_keyboard.flat() ?? [];

function nthBotMessage(h: Harness, chatId: number, index: number): Promise<BotPost> {
  return h.telegram.waitFor(() => h.telegram.chat(chatId).botMessages()[index]);
}

describeEachDatabase("telegram /settings", (getDb) => {
  const suite = telegramSuite(getDb, {
    geocoder: {
      // The geocoder is built lazily: the Open-Meteo server starts in beforeAll, after this suite is declared.
      search: (query) => createOpenMeteoGeocoder(fetch, meteo.url).search(query),
    },
  });

  it("shows the settings with buttons whose data fits Telegram's 64 bytes, and a press changes the slot", async () => {
    const { h, user, account } = await suite.withUser();
    h.clock.set("2025-06-02T04:00:00Z"); // Monday 05:00 in London
    h.telegram.sendUserMessage(account, "/settings");
    const view = await nthBotMessage(h, account.id, 0);
    expect(view.text).toContain("time zone: Europe/London");
    expect(view.text).toContain("briefings: morning 07:00 · midday 12:30 · afternoon 16:30 · evening off");
    expect(view.text).toContain("next morning briefing: Mon 07:00");
    const buttons = buttonsOf(view);
    expect(buttons.length).toBeGreaterThan(10);
    for (const button of buttons) {
      expect(button.callback_data?.startsWith("s:")).toBe(true);
      expect(Buffer.byteLength(button.callback_data ?? "")).toBeLessThanOrEqual(64);
    }
    const earlier = buttons.find((button) => button.callback_data === "s:morning 06:30");
    expect(earlier?.text).toBe("06:30");
    expect(buttons.find((button) => button.callback_data === "s:morning 07:00")?.text).toBe("✓ 07:00");

    const { queryId } = h.telegram.pressButton(account.id, view.messageId, earlier?.callback_data ?? "");
    const confirmation = await nthBotMessage(h, account.id, 1);
    expect(confirmation.text).toBe(
      "Morning briefing at 06:30 (Europe/London).\nnext morning briefing: Mon 06:30",
    );
    expect(confirmation.replyTo).toBe(view.messageId);
    expect(h.telegram.callbackAnswers.find((answer) => answer.id === queryId)?.text).toBe(
      "Morning briefing at 06:30 (Europe/London).",
    );
    expect((await getUser(getDb(), user.id))?.slots.morning).toBe("06:30");
    // The view is redrawn: its text and ✓ follow the change, its buttons stay for more.
    const redrawn = await h.telegram.waitFor(() => {
      const current = h.telegram.chat(account.id).message(view.messageId);
      return current?.text.includes("briefings: morning 06:30") ? current : undefined;
    });
    const marked = redrawn.reply_markup?.inline_keyboard
      .flat()
      .filter((button) => button.text.startsWith("✓"));
    expect(marked?.map((button) => button.callback_data)).toEqual([
      "s:morning 06:30",
      "s:midday 12:30",
      "s:afternoon 16:30",
      "s:evening off",
    ]);
  });

  it("/settings morning 06:45 moves the slot, and the scheduler delivers the next briefing at 06:45 local", {
    timeout: 60_000,
  }, async () => {
    const db = getDb();
    const { h, user, account } = await suite.withUser();
    h.clock.set("2025-06-02T04:00:00Z"); // Monday 05:00 in London (BST)
    h.telegram.sendUserMessage(account, "/settings morning 06:45");
    const reply = await nthBotMessage(h, account.id, 0);
    expect(reply.text).toBe("Morning briefing at 06:45 (Europe/London).\nnext morning briefing: Mon 06:45");

    h.ollama.setModel(MODEL, { reply: () => ({ content: "Good morning." }) });
    // A minute early nothing is due; at 06:45 BST (05:45 UTC) the morning is claimed and posted to the chat.
    await tickAt(db, h.clock, h.ollama.url, h.app.sender, "2025-06-02T05:44:00Z");
    const mine = () =>
      db
        .select()
        .from(briefingRuns)
        .where(and(eq(briefingRuns.userId, user.id), eq(briefingRuns.slot, "morning")));
    expect(await mine()).toEqual([]);
    await tickAt(db, h.clock, h.ollama.url, h.app.sender, "2025-06-02T05:45:00Z");
    const runs = await mine();
    expect(runs.map((run) => [run.localDate, run.claimedAt.toISOString(), run.state])).toEqual([
      ["2025-06-02", "2025-06-02T05:45:00.000Z", "delivered"],
    ]);
    const briefing = await h.telegram.waitFor(() =>
      h.telegram
        .chat(account.id)
        .botMessages()
        .find((post) => post.text.startsWith("Good morning.")),
    );
    expect(briefing.chatId).toBe(account.id);
  });

  it("offers a pick list for an ambiguous place, then proposes the place's zone, which a press accepts", async () => {
    const { h, user, account } = await suite.withUser();
    h.telegram.sendUserMessage(account, "/settings place Springfield");
    const list = await nthBotMessage(h, account.id, 0);
    expect(list.text.split("\n")[0]).toBe("Which Springfield?");
    const rows = list.replyMarkup?.inline_keyboard ?? [];
    expect(rows.map((row) => row.map((button) => button.text))).toEqual([
      ["Springfield, Missouri, United States"],
      ["Springfield, Massachusetts, United States"],
      ["Springfield, Illinois, United States"],
      ["Springfield, Ohio, United States"],
      ["Springfield, Oregon, United States"],
    ]);

    h.telegram.pressButton(account.id, list.messageId, rows[2]?.[0]?.callback_data ?? "");
    const proposal = await nthBotMessage(h, account.id, 1);
    expect(proposal.text).toContain("Place: Springfield, Illinois, United States.");
    expect(proposal.text).toContain("Its time zone is America/Chicago; your briefings follow Europe/London.");
    expect(buttonsOf(proposal).map((button) => [button.text, button.callback_data])).toEqual([
      ["Use America/Chicago", "s:zone America/Chicago"],
      ["Keep Europe/London", "s:zone Europe/London"],
    ]);
    // The list was answered: its buttons are gone, so a second pick cannot happen by accident.
    await h.telegram.waitFor(
      () =>
        (h.telegram.chat(account.id).message(list.messageId)?.reply_markup?.inline_keyboard.length ?? 0) ===
        0,
    );

    h.telegram.pressButton(account.id, proposal.messageId, "s:zone America/Chicago");
    const accepted = await nthBotMessage(h, account.id, 2);
    expect(accepted.text).toMatch(
      /^Time zone: America\/Chicago; your briefing times are now in America\/Chicago\.\nnext morning briefing: \w{3} 07:00$/,
    );
    const stored = await getUser(getDb(), user.id);
    expect(stored?.timeZone).toBe("America/Chicago");
    expect(stored?.locationName).toBe("Springfield, Illinois, United States");
  });

  it("refuses a bad time or mode in one line and changes nothing", async () => {
    const { h, user, account } = await suite.withUser();
    h.telegram.sendUserMessage(account, "/settings morning 25:00");
    const refusal = await nthBotMessage(h, account.id, 0);
    expect(refusal.text).toBe(
      'Morning needs a time as HH:MM (24-hour) or "off", e.g. /settings morning 06:45',
    );
    h.telegram.sendUserMessage(account, "/settings mode turbo");
    const mode = await nthBotMessage(h, account.id, 1);
    expect(mode.text).toBe("The mode is agentic or legacy, e.g. /settings mode legacy");
    const stored = await getUser(getDb(), user.id);
    expect(stored?.slots.morning).toBe("07:00");
    expect(stored?.briefingMode).toBe("agentic");
  });
});
