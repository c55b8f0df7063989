/**
 * A run's receipts in full, as Telegram messages: every item of every receipt (the core's line renderer),
 * packed into pages under the message limit and split only at item boundaries. One page is sent at a time,
 * with a "More" button for the next, so a busy day cannot flood the chat and nothing is left out.
 */
import type { InlineKeyboardMarkup } from "grammy/types";
import { type ReceiptsView, receiptBlocks } from "../../src/core/index.ts";
import { bold, italic, join, MESSAGE_LIMIT, type Piece, splitText, text } from "./format.ts";

/** Room kept on every page for its header line ("🧾 Receipts · morning briefing, 2025-06-02 · 12/12"). */
const HEADER_ROOM = 160;

/** One line of a page: a receipt's title (a paragraph of its own) or one of its items. */
interface Line {
  piece: Piece;
  title: boolean;
}

export function receiptPages(view: ReceiptsView, timeZone: string, limit = MESSAGE_LIMIT): Piece[] {
  const room = limit - HEADER_ROOM;
  const lines: Line[] = [];
  const blocks = receiptBlocks(view.receipts, timeZone);
  if (blocks.length === 0)
    lines.push({ piece: text("No tools were called for this briefing."), title: false });
  for (const block of blocks) {
    lines.push({ piece: bold(block.title), title: true });
    for (const line of block.lines) {
      // A single item longer than a page is the only thing ever split, at spaces.
      for (const chunk of line.length > room ? splitText(line, room) : [line]) {
        lines.push({ piece: text(chunk), title: false });
      }
    }
  }
  const pages: Line[][] = [];
  let page: Line[] = [];
  let used = 0;
  for (const line of lines) {
    const length = line.piece.plain.length + (page.length === 0 ? 0 : line.title ? 2 : 1);
    if (page.length > 0 && used + length > room) {
      pages.push(page);
      page = [];
      used = 0;
    }
    used += page.length === 0 ? line.piece.plain.length : length;
    page.push(line);
  }
  if (page.length > 0) pages.push(page);
  const when = `${view.run.slot} briefing, ${view.run.localDate}`;
  return pages.map((entries, index) => {
    const header = join([
      bold(`🧾 Receipts · ${when}`),
      ...(view.run.archived ? [italic(" (archived)")] : []),
      ...(pages.length > 1 ? [text(` · ${index + 1}/${pages.length}`)] : []),
    ]);
    const body = join(
      entries.flatMap((entry, position) =>
        position === 0 ? [entry.piece] : [text(entry.title ? "\n\n" : "\n"), entry.piece],
      ),
    );
    return join([header, body], "\n\n");
  });
}

/** Callback data for page `page` (0-based) of a run's receipts; page 0 keeps the old "r:<run>" form. */
export function receiptsPageData(runId: number, page: number): string {
  return page === 0 ? `r:${runId}` : `r:${runId}:${page}`;
}

/** The "More" button under a page that is not the last. */
export function morePagesKeyboard(
  runId: number,
  page: number,
  pages: number,
): InlineKeyboardMarkup | undefined {
  if (page + 1 >= pages) return undefined;
  return {
    inline_keyboard: [
      [{ text: `More ▸ (${page + 2}/${pages})`, callback_data: receiptsPageData(runId, page + 1) }],
    ],
  };
}
