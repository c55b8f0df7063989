/**
 * What the bot does with each update, once access is checked: commands, follow-ups, plain chat and
 * button presses. It translates between Telegram and the `Assistant`; the core decides everything else.
 *
 * An answer (and a /brief) records with its update what Telegram accepted, as it does (`progressOf`): the
 * live message once sent, then each message of the answer. A process taking the update over streams into
 * that live message, or — the answer out already — does not answer at all (bots/durable-intake.ts).
 */
import { type Api, Composer, type Context, type Filter } from "grammy";
import {
  type Assistant,
  type ChatReply,
  type Clock,
  errorMessage,
  isSlotName,
  type LinkedAccount,
  type Logger,
  type PendingConfirmation,
  type PlatformState,
  progressLine,
  SLOT_NAMES,
  type SlotName,
  type ThreadRef,
} from "../../src/core/index.ts";
import type { UpdateProgress } from "../durable-intake.ts";
import { italic, join, type Piece, splitText, text } from "./format.ts";
import { LiveMessage, type LiveMessageOptions, startTyping } from "./live.ts";
import { postBriefing, postPieces } from "./post.ts";
import { progressOf } from "./progress.ts";
import { morePagesKeyboard, receiptPages } from "./receipt-pages.ts";
import { confirmationPiece, confirmKeyboard, helpPiece, parseButtonData, undoKeyboard } from "./render.ts";
import { sendPiece } from "./send.ts";
import { directThreadKeyOf, findRunThread, linkToChain, type RunThread } from "./thread-map.ts";

export type BotContext = Context & { account?: LinkedAccount };

export interface HandlerDeps {
  platformState: PlatformState;
  assistant: Assistant;
  clock: Clock;
  logger: Logger;
}

const SORRY = "Sorry, something went wrong on my side. Please try again in a minute.";

export function createHandlers(deps: HandlerDeps): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const { platformState, assistant, clock, logger } = deps;

  /** Links bot messages into a run's reply chain: `thread`'s, or a new one rooted at the first of them. */
  const link = (
    account: LinkedAccount,
    chatId: number,
    runId: number,
    messageIds: number[],
    thread?: RunThread,
  ) =>
    linkToChain(platformState, {
      userId: account.user.id,
      chatId,
      runId,
      messageIds,
      threadKey: thread?.runId === runId ? thread.threadKey : undefined,
      at: clock.now(),
    });
  const threadOf = (account: LinkedAccount, chatId: number, messageId: number | undefined) =>
    messageId === undefined
      ? Promise.resolve(undefined)
      : findRunThread(platformState, { userId: account.user.id, chatId, messageId });

  composer.command(["start", "help"], async (ctx) => {
    const account = requireAccount(ctx);
    await sendPiece(ctx.api, account.chatId, helpPiece(ctx.from?.first_name));
  });

  composer.command("brief", async (ctx) => {
    const { chatId, account } = requireAccount(ctx);
    const requested = ctx.match.trim().toLowerCase();
    if (requested !== "" && !isSlotName(requested)) {
      await sendPiece(
        ctx.api,
        chatId,
        // Echo at most a short prefix: the refusal must fit one message whatever was typed.
        text(
          `"${requested.length > 40 ? `${requested.slice(0, 40)}…` : requested}" is not a briefing slot. Try one of: ${SLOT_NAMES.join(", ")}.`,
        ),
      );
      return;
    }
    const typing = startTyping(ctx.api, chatId, logger);
    const tracked = progressOf(ctx);
    const live = new LiveMessage(ctx.api, chatId, clock, logger, liveOptions(tracked));
    const progress: string[] = [];
    try {
      const outcome = await assistant.brief(account.user.id, {
        ...(requested !== "" ? { slot: requested as SlotName } : {}),
        // "refreshing weather…", what came of it, then each tool result as the core reports it.
        onEvent: (event) => {
          const line = progressLine(event);
          if (line === undefined) return;
          progress.push(line);
          live.update(`⏳ Working on your briefing…\n${progress.join("\n")}`);
        },
      });
      await live.settle();
      typing.stop();
      const ids = await postBriefing(ctx.api, chatId, outcome, {
        replace: live.messageId,
        onPosted: recordPosted(tracked),
      });
      await link(account, chatId, outcome.runId, ids);
    } catch (error) {
      typing.stop();
      await live.settle();
      logger.error({ chatId, userId: account.user.id, error: errorMessage(error) }, "telegram /brief failed");
      await postPieces(ctx.api, chatId, [text(SORRY)], {
        replace: live.messageId,
        onPosted: recordPosted(tracked),
      });
    }
  });

  composer.command("receipts", async (ctx) => {
    const { chatId, account } = requireAccount(ctx);
    const thread = await threadOf(account, chatId, ctx.msg.reply_to_message?.message_id);
    await showReceipts(ctx.api, account, chatId, thread?.runId, ctx.msg.message_id, thread);
  });

  composer.on("message:text", async (ctx) => {
    const { chatId, account } = requireAccount(ctx);
    if (ctx.msg.entities?.some((entity) => entity.type === "bot_command" && entity.offset === 0)) {
      await sendPiece(ctx.api, chatId, text("I don't know that command. Try /help."));
      return;
    }
    const thread = await threadOf(account, chatId, ctx.msg.reply_to_message?.message_id);
    await answer(ctx.api, account, chatId, ctx.msg.message_id, ctx.msg.text, thread, progressOf(ctx));
  });

  composer.on("message", async (ctx) => {
    const { chatId } = requireAccount(ctx);
    await sendPiece(ctx.api, chatId, text("I can only read text messages for now."));
  });

  composer.on("callback_query:data", async (ctx) => {
    const { chatId, account } = requireAccount(ctx);
    const action = parseButtonData(ctx.callbackQuery.data);
    if (action.kind === "receipts") {
      await ctx.answerCallbackQuery();
      const pressed = ctx.callbackQuery.message?.message_id;
      const thread = await threadOf(account, chatId, pressed);
      await showReceipts(ctx.api, account, chatId, action.runId, pressed, thread, action.page);
      return;
    }
    if (action.kind === "undo") {
      await undoChange(ctx, account, action.undoId);
      return;
    }
    if (action.kind === "confirm") {
      await resolveConfirmation(ctx, account, action.pendingId, action.confirmed);
      return;
    }
    await ctx.answerCallbackQuery({ text: "This button no longer works." });
  });

  composer.on("callback_query", (ctx) => ctx.answerCallbackQuery());

  async function showReceipts(
    api: Api,
    account: LinkedAccount,
    chatId: number,
    runId: number | undefined,
    replyTo: number | undefined,
    thread: RunThread | undefined,
    page = 0,
  ): Promise<void> {
    const view = await assistant.receipts(account.user.id, runId);
    if (!view) {
      const message =
        runId === undefined
          ? "There is no briefing yet. Try /brief."
          : "I can't find that briefing any more.";
      await sendPiece(api, chatId, text(message), { replyTo });
      return;
    }
    // Every item of every receipt, a page at a time: "More" under a page sends the next.
    const pages = receiptPages(view, account.user.timeZone);
    const shown = Math.min(page, pages.length - 1);
    const piece = pages[shown] ?? text("No tools were called for this briefing.");
    const ids = await postPieces(api, chatId, [piece], {
      replyTo,
      keyboard: morePagesKeyboard(view.run.id, shown, pages.length),
    });
    await link(account, chatId, view.run.id, ids, thread);
  }

  async function answer(
    api: Api,
    account: LinkedAccount,
    chatId: number,
    messageId: number,
    question: string,
    thread: RunThread | undefined,
    progress: UpdateProgress,
  ): Promise<void> {
    const ref: ThreadRef = thread
      ? { platform: "telegram", threadKey: thread.threadKey, runId: thread.runId }
      : { platform: "telegram", threadKey: directThreadKeyOf(chatId) };
    const typing = startTyping(api, chatId, logger);
    const live = new LiveMessage(api, chatId, clock, logger, {
      replyTo: messageId,
      ...liveOptions(progress),
    });
    const onPosted = recordPosted(progress);
    let streamed = "";
    let reply: ChatReply;
    try {
      reply = await assistant.reply(account.user.id, ref, question, {
        onToken: (fragment) => {
          streamed += fragment;
          live.update(streamed);
        },
      });
    } catch (error) {
      typing.stop();
      await live.settle();
      logger.error({ chatId, userId: account.user.id, error: errorMessage(error) }, "telegram reply failed");
      await postPieces(api, chatId, [text(SORRY)], { replace: live.messageId, replyTo: messageId, onPosted });
      return;
    }
    await live.settle();
    typing.stop();
    const chunks = splitText(reply.text);
    const pieces: Piece[] =
      chunks.length > 0 ? chunks.map(text) : reply.pending.length > 0 ? [] : [text("…")];
    // Each change the reply states gets its Undo, under the reply's last message.
    const ids = await postPieces(api, chatId, pieces, {
      replace: live.messageId,
      replyTo: messageId,
      keyboard: undoKeyboard(reply.changes),
      onPosted,
    });
    if (pieces.length === 0 && live.messageId !== undefined) {
      await api.deleteMessage(chatId, live.messageId).catch(() => undefined);
    }
    ids.push(...(await askToConfirm(api, account, chatId, messageId, reply.pending, onPosted)));
    if (thread) await link(account, chatId, thread.runId, ids, thread);
  }

  /** Each change waiting for a Confirm as its own message with Confirm / Cancel; their message ids. */
  async function askToConfirm(
    api: Api,
    account: LinkedAccount,
    chatId: number,
    replyTo: number,
    pending: readonly PendingConfirmation[],
    onPosted?: (messageIds: number[]) => Promise<void>,
  ): Promise<number[]> {
    const ids: number[] = [];
    for (const entry of pending) {
      ids.push(
        await sendPiece(api, chatId, confirmationPiece(entry, account.user.timeZone), {
          replyTo,
          keyboard: confirmKeyboard(entry.id),
        }),
      );
      await onPosted?.(ids);
    }
    return ids;
  }

  async function resolveConfirmation(
    ctx: Filter<BotContext, "callback_query:data">,
    account: LinkedAccount,
    pendingId: number,
    confirmed: boolean,
  ): Promise<void> {
    const outcome = await assistant.resolveConfirmation(account.user.id, pendingId, confirmed);
    if (outcome.kind === "not-yours" || outcome.kind === "not-found") {
      await ctx.answerCallbackQuery({ text: shorten(outcome.text, 200), show_alert: true });
      return;
    }
    await ctx.answerCallbackQuery({ text: shorten(outcome.text, 200) });
    const message = ctx.callbackQuery.message;
    if (!message) return;
    const original = "text" in message && typeof message.text === "string" ? message.text : "";
    const verdict = OUTCOME_LABELS[outcome.kind];
    const piece = join(
      [...(original ? [text(original)] : []), italic(`${verdict}${outcome.text ? `: ${outcome.text}` : ""}`)],
      "\n\n",
    );
    // Dropping the keyboard is the point: the action can be pressed only once. What it did gets an Undo.
    await postPieces(ctx.api, message.chat.id, [piece], {
      replace: message.message_id,
      keyboard:
        outcome.kind === "done" && outcome.undo
          ? undoKeyboard([{ report: outcome.text, undo: outcome.undo }])
          : undefined,
    });
    // Changed on its server since: the same change against the new version gets fresh buttons.
    if (outcome.kind === "asked-again")
      await askToConfirm(ctx.api, account, message.chat.id, message.message_id, outcome.pending);
  }

  /** Undo under a change: runs once, for its owner; the button goes, the outcome is said in the chat. */
  async function undoChange(
    ctx: Filter<BotContext, "callback_query:data">,
    account: LinkedAccount,
    undoId: number,
  ): Promise<void> {
    const outcome = await assistant.undo(account.user.id, undoId);
    const alert = outcome.kind === "not-yours" || outcome.kind === "not-found";
    await ctx.answerCallbackQuery({
      text: shorten(outcome.text, 200),
      ...(alert ? { show_alert: true } : {}),
    });
    const message = ctx.callbackQuery.message;
    if (alert || !message) return;
    const pressed = ctx.callbackQuery.data;
    const rows = (message.reply_markup?.inline_keyboard ?? [])
      .map((row) => row.filter((button) => !("callback_data" in button) || button.callback_data !== pressed))
      .filter((row) => row.length > 0);
    await ctx.api
      .editMessageReplyMarkup(message.chat.id, message.message_id, {
        reply_markup: { inline_keyboard: rows },
      })
      .catch(() => undefined);
    await sendPiece(ctx.api, message.chat.id, text(outcome.text), { replyTo: message.message_id });
  }

  return composer;
}

/** A live message that shows in place of a taken-over update's earlier one, and records its own. */
function liveOptions(progress: UpdateProgress): LiveMessageOptions {
  const earlier = progress.placeholder === undefined ? undefined : Number(progress.placeholder);
  return {
    ...(earlier !== undefined && Number.isSafeInteger(earlier) ? { messageId: earlier } : {}),
    onSent: (messageId) => progress.showing(String(messageId)),
  };
}

/** Records the answer's messages Telegram accepted (`postPieces`' `onPosted`). */
function recordPosted(progress: UpdateProgress): (messageIds: number[]) => Promise<void> {
  return (messageIds) => progress.posted(messageIds.map(String));
}

const OUTCOME_LABELS: Record<"done" | "cancelled" | "expired" | "already-resolved" | "asked-again", string> =
  {
    done: "✅ Done",
    "asked-again": "↻ Changed meanwhile",
    cancelled: "✖️ Cancelled",
    expired: "⌛ Expired",
    "already-resolved": "Already handled",
  };

function shorten(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** The access gate runs first; a handler without an account means the gate was bypassed, a bug. */
function requireAccount(ctx: BotContext): { chatId: number; account: LinkedAccount & { chatId: number } } {
  const chatId = ctx.chat?.id;
  if (!ctx.account || chatId === undefined) throw new Error("handler reached without a linked account");
  return { chatId, account: { ...ctx.account, chatId } };
}
