/**
 * Posting a finished answer, optionally in place of the live progress message: the first piece replaces
 * it (or, if it cannot be edited, is sent new and the stale one deleted), the rest follow in order.
 */
import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import type { BriefingMessage } from "../../src/core/index.ts";
import type { Piece } from "./format.ts";
import { briefingPieces, receiptsButtonData } from "./render.ts";
import { editPiece, sendPiece } from "./send.ts";

export interface PostOptions {
  /** A live message to turn into the first piece. */
  replace?: number | undefined;
  replyTo?: number | undefined;
  /** Goes on the last piece. */
  keyboard?: InlineKeyboardMarkup | undefined;
  /** Pieces already posted by an earlier, interrupted attempt: skipped, their ids reused. */
  alreadySent?: number[];
  /** Called (and awaited) after each piece is posted, so a retry can resume (see `alreadySent`). */
  onPosted?: (messageIds: number[]) => void | Promise<void>;
}

export async function postPieces(
  api: Api,
  chatId: number | string,
  pieces: Piece[],
  options: PostOptions = {},
): Promise<number[]> {
  const ids = [...(options.alreadySent ?? [])].slice(0, pieces.length);
  for (let index = ids.length; index < pieces.length; index++) {
    const piece = pieces[index] as Piece;
    const keyboard = index === pieces.length - 1 ? options.keyboard : undefined;
    if (index === 0 && options.replace !== undefined) {
      if (await editPiece(api, chatId, options.replace, piece, keyboard)) {
        ids.push(options.replace);
        await options.onPosted?.(ids);
        continue;
      }
      await api.deleteMessage(chatId, options.replace).catch(() => undefined);
    }
    ids.push(await sendPiece(api, chatId, piece, { replyTo: options.replyTo, keyboard }));
    await options.onPosted?.([...ids]);
  }
  return ids;
}

export function receiptsKeyboard(runId: number): InlineKeyboardMarkup {
  return { inline_keyboard: [[{ text: "🧾 Receipts", callback_data: receiptsButtonData(runId) }]] };
}

/** A briefing: prose, status row and the Receipts button. Returns the message ids, first one first. */
export function postBriefing(
  api: Api,
  chatId: number | string,
  message: Pick<BriefingMessage, "runId" | "prose" | "statusRow">,
  options: Omit<PostOptions, "keyboard"> = {},
): Promise<number[]> {
  return postPieces(api, chatId, briefingPieces(message), {
    ...options,
    keyboard: receiptsKeyboard(message.runId),
  });
}
