/**
 * `/export` sends everything stored about the user as a JSON file (addresses always redacted in chat);
 * `/forget` asks twice, with buttons, before deleting it all. Anything else said meanwhile cancels.
 * Mounted after the access gate, before the other handlers.
 */
import { Composer, InputFile } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import {
  describeCounts,
  errorMessage,
  type ForgetQuestion,
  type Logger,
  type UserDataService,
} from "../../src/core/index.ts";
import { text } from "./format.ts";
import type { BotContext } from "./handlers.ts";
import { sendPiece } from "./send.ts";

/** "f:<token>:y|n": a forget question's answer, far below the 64 bytes of callback data. */
const FORGET_DATA = /^f:([0-9a-z]{1,40}):([yn])$/;

export const FIRST_QUESTION =
  "Forget you? This deletes everything I have stored about you: tasks, notes, projects, events, calendar and feed subscriptions, briefings with their receipts, and our conversations.";
export const SECOND_QUESTION =
  "Are you sure? This deletes everything, at once, and cannot be undone. Afterwards I will not know you: someone would have to link your account again.";
const NOTHING_DELETED = "Nothing was deleted.";

export function createUserDataHandlers(deps: {
  userData: UserDataService;
  logger: Logger;
}): Composer<BotContext> {
  const { userData, logger } = deps;
  const composer = new Composer<BotContext>();

  composer.command("export", async (ctx) => {
    const { chatId, userId } = accountOf(ctx);
    await userData.cancelForget(userId);
    const exported = await userData.exportUser(userId);
    if (!exported) return;
    try {
      await ctx.api.sendDocument(chatId, new InputFile(Buffer.from(exported.bytes), exported.filename), {
        caption:
          "Everything I have stored about you, as JSON. Calendar and feed addresses are shortened: they work like passwords.",
      });
    } catch (error) {
      logger.error({ chatId, userId, error: errorMessage(error) }, "telegram /export failed");
      await sendPiece(
        ctx.api,
        chatId,
        text("Sorry, I could not send the file. Please try again in a minute."),
      );
    }
  });

  composer.command("forget", async (ctx) => {
    const { chatId, userId } = accountOf(ctx);
    await sendPiece(ctx.api, chatId, text(FIRST_QUESTION), {
      keyboard: keyboard(await userData.beginForget(userId)),
    });
  });

  composer.callbackQuery(FORGET_DATA, async (ctx) => {
    const { chatId, userId } = accountOf(ctx);
    const [, token = "", answer] = ctx.match;
    const outcome = await userData.answerForget(userId, token, answer === "y");
    if (outcome.kind === "stale") {
      await ctx.answerCallbackQuery({
        text: `This question is no longer open. ${NOTHING_DELETED} Send /forget to start again.`,
        show_alert: true,
      });
      return;
    }
    await ctx.answerCallbackQuery();
    // The buttons go: each question is answered once.
    const pressed = ctx.callbackQuery.message?.message_id;
    if (pressed !== undefined) {
      await ctx.api
        .editMessageReplyMarkup(chatId, pressed, { reply_markup: { inline_keyboard: [] } })
        .catch(() => undefined);
    }
    if (outcome.kind === "ask-again") {
      await sendPiece(ctx.api, chatId, text(SECOND_QUESTION), { keyboard: keyboard(outcome.question, true) });
    } else if (outcome.kind === "removed") {
      logger.info({ userId, counts: outcome.counts }, "telegram: user forgotten at their request");
      await sendPiece(
        ctx.api,
        chatId,
        text(
          `Done: I deleted everything I had stored about you (${describeCounts(outcome.counts)}). Goodbye!`,
        ),
      );
    } else if (outcome.kind === "expired") {
      await sendPiece(
        ctx.api,
        chatId,
        text(`That question expired. ${NOTHING_DELETED} Send /forget to start again.`),
      );
    } else {
      await sendPiece(ctx.api, chatId, text(`Cancelled. ${NOTHING_DELETED}`));
    }
  });

  // Anything else said while a question is open is not a yes.
  composer.on("message", async (ctx, next) => {
    const { chatId, userId } = accountOf(ctx);
    if (await userData.cancelForget(userId))
      await sendPiece(ctx.api, chatId, text(`Forgetting cancelled. ${NOTHING_DELETED}`));
    await next();
  });

  return composer;
}

function keyboard(question: ForgetQuestion, final = false): InlineKeyboardMarkup {
  return {
    inline_keyboard: [
      [
        {
          text: final ? "🗑 Yes, delete everything" : "Yes, continue",
          callback_data: `f:${question.token}:y`,
        },
        { text: "✖️ Cancel", callback_data: `f:${question.token}:n` },
      ],
    ],
  };
}

function accountOf(ctx: BotContext): { chatId: number; userId: number } {
  const chatId = ctx.chat?.id;
  if (!ctx.account || chatId === undefined) throw new Error("handler reached without a linked account");
  return { chatId, userId: ctx.account.user.id };
}
