/**
 * Posting pieces to Telegram without losing them: HTML first, plain text when Telegram cannot parse the
 * HTML, replies that survive a deleted parent, and Telegram errors translated for the delivery outbox.
 */
import { type Api, GrammyError } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { DeliveryError, errorMessage } from "../../src/core/index.ts";
import type { Piece } from "./format.ts";

export interface SendOptions {
  /** Reply to this message (kept in its chain); sent anyway if it is gone. */
  replyTo?: number | undefined;
  keyboard?: InlineKeyboardMarkup | undefined;
}

export function isParseError(error: unknown): boolean {
  return (
    error instanceof GrammyError &&
    error.error_code === 400 &&
    /can't parse entities/i.test(error.description)
  );
}

function isNotModified(error: unknown): boolean {
  return (
    error instanceof GrammyError &&
    error.error_code === 400 &&
    /message is not modified/i.test(error.description)
  );
}

/** Sends one piece as HTML, falling back to plain text; returns the message id. */
export async function sendPiece(
  api: Api,
  chatId: number | string,
  piece: Piece,
  options: SendOptions = {},
): Promise<number> {
  const common = {
    link_preview_options: { is_disabled: true },
    ...(options.replyTo !== undefined
      ? { reply_parameters: { message_id: options.replyTo, allow_sending_without_reply: true } }
      : {}),
    ...(options.keyboard ? { reply_markup: options.keyboard } : {}),
  };
  try {
    const message = await api.sendMessage(chatId, piece.html, { ...common, parse_mode: "HTML" });
    return message.message_id;
  } catch (error) {
    if (!isParseError(error)) throw error;
    const message = await api.sendMessage(chatId, piece.plain, common);
    return message.message_id;
  }
}

/** Replaces a message's text (HTML, falling back to plain); false when the message can no longer be edited. */
export async function editPiece(
  api: Api,
  chatId: number | string,
  messageId: number,
  piece: Piece,
  keyboard?: InlineKeyboardMarkup,
): Promise<boolean> {
  const common = {
    link_preview_options: { is_disabled: true },
    ...(keyboard ? { reply_markup: keyboard } : {}),
  };
  try {
    await api.editMessageText(chatId, messageId, piece.html, { ...common, parse_mode: "HTML" });
    return true;
  } catch (error) {
    if (isNotModified(error)) return true;
    if (isParseError(error)) {
      try {
        await api.editMessageText(chatId, messageId, piece.plain, common);
        return true;
      } catch (plainError) {
        if (isNotModified(plainError)) return true;
        if (plainError instanceof GrammyError && plainError.error_code === 400) return false;
        throw plainError;
      }
    }
    if (error instanceof GrammyError && error.error_code === 400) return false;
    throw error;
  }
}

/**
 * Telegram's answer as the outbox needs it: blocked users and vanished chats are permanent (never retried),
 * rate limits carry their wait, server errors are transient. Network failures are not answers: the sender
 * passes them on with their cause, so the outbox can tell whether the request reached Telegram.
 */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof GrammyError) {
    const message = `telegram ${error.method}: ${error.error_code} ${error.description}`;
    if (error.error_code === 429) {
      const seconds = error.parameters.retry_after ?? 1;
      return new DeliveryError(message, false, seconds * 1000, { cause: error });
    }
    if (error.error_code === 403) return new DeliveryError(message, true, undefined, { cause: error });
    if (error.error_code === 400) {
      // "chat not found" and the like; any 400 fails the same way again, so retrying cannot help.
      return new DeliveryError(message, true, undefined, { cause: error });
    }
    return new DeliveryError(message, false, undefined, { cause: error });
  }
  return new DeliveryError(`telegram delivery failed: ${errorMessage(error)}`, false, undefined, {
    cause: error,
  });
}
