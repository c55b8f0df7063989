/**
 * /settings on Telegram: the command (alone: the settings with buttons; with arguments: one change) and the
 * presses of its buttons. The core's `Settings` decides everything; this file renders its replies, and a
 * button carries "s:" plus the same arguments a person would type (the core keeps them within 64 bytes).
 */
import { Composer } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { errorMessage, type Logger, type Settings, type SettingsReply } from "../../src/core/index.ts";
import { text } from "./format.ts";
import type { BotContext } from "./handlers.ts";
import { editPiece, sendPiece } from "./send.ts";

const PREFIX = "s:";
const SORRY = "Sorry, I could not change your settings just now. Please try again in a minute.";

export function createSettingsHandlers(deps: { settings: Settings; logger: Logger }): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command("settings", async (ctx) => {
    const account = ctx.account;
    const chatId = ctx.chat.id;
    if (!account) return;
    const reply = await deps.settings.handle(account.user.id, ctx.match).catch((error: unknown) => {
      deps.logger.error({ userId: account.user.id, error: errorMessage(error) }, "telegram /settings failed");
      return undefined;
    });
    await sendPiece(ctx.api, chatId, text(reply?.text ?? SORRY), { keyboard: reply && keyboardOf(reply) });
  });

  composer.callbackQuery(SETTINGS_DATA, async (ctx) => {
    const account = ctx.account;
    const message = ctx.callbackQuery.message;
    if (!account || !message) {
      await ctx.answerCallbackQuery();
      return;
    }
    const args = ctx.callbackQuery.data.slice(PREFIX.length);
    let reply: SettingsReply;
    try {
      reply = await deps.settings.handle(account.user.id, args);
    } catch (error) {
      deps.logger.error(
        { userId: account.user.id, error: errorMessage(error) },
        "telegram settings button failed",
      );
      await ctx.answerCallbackQuery({ text: SORRY, show_alert: true });
      return;
    }
    await ctx.answerCallbackQuery({ text: shorten(reply.text.split("\n")[0] ?? "", 200) });
    // A pick list or a zone proposal is answered once; the settings view is redrawn (✓ on the new values)
    // and keeps its buttons for more changes.
    if (/^(pick|zone) /.test(args) && reply.kind !== "error") {
      await ctx.api
        .editMessageReplyMarkup(message.chat.id, message.message_id, {
          reply_markup: { inline_keyboard: [] },
        })
        .catch(() => undefined);
    } else if (reply.kind === "changed") {
      const view = await deps.settings.view(account.user.id);
      await editPiece(ctx.api, message.chat.id, message.message_id, text(view.text), keyboardOf(view)).catch(
        (error: unknown) =>
          deps.logger.warn({ error: errorMessage(error) }, "telegram settings view not redrawn"),
      );
    }
    await sendPiece(ctx.api, message.chat.id, text(reply.text), {
      replyTo: message.message_id,
      keyboard: keyboardOf(reply),
    });
  });

  return composer;
}

/** Only our own presses (Telegram caps the data at 64 bytes); anything else goes on to the other handlers. */
const SETTINGS_DATA = /^s:[^\n]{0,62}$/;

function keyboardOf(reply: SettingsReply): InlineKeyboardMarkup | undefined {
  if (reply.choices.length === 0) return undefined;
  return {
    inline_keyboard: reply.choices.map((row) =>
      row.map((choice) => ({ text: shorten(choice.label, 64), callback_data: `${PREFIX}${choice.args}` })),
    ),
  };
}

function shorten(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}
