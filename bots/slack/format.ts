/**
 * Core results → Block Kit, pure. Every builder keeps Slack's limits (50 blocks per message, 3000 characters
 * per section text) by splitting text and paginating blocks, so no message is ever refused for its size.
 */
import type { types } from "@slack/bolt";
import { DateTime } from "luxon";
import {
  type BriefingMessage,
  type ChangeNotice,
  outsideSurrogatePair,
  type PendingConfirmation,
  type Receipt,
  type ReceiptsView,
  receiptBlock,
  splitText as splitForPlatform,
} from "../../src/core/index.ts";

type KnownBlock = types.KnownBlock;

export const MAX_BLOCKS_PER_MESSAGE = 50;
export const MAX_SECTION_TEXT = 3000;
/** Notification / fallback text; Slack recommends staying under 4,000. */
const MAX_FALLBACK_TEXT = 3000;

export const ACTION_RECEIPTS = "briefing_receipts";
export const ACTION_CONFIRM = "pending_confirm";
export const ACTION_CANCEL = "pending_cancel";
export const ACTION_UNDO = "change_undo";
export const ACTION_RECEIPTS_MORE = "receipts_more";

export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/** Slack's mrkdwn treats these three as control characters; data must never open a link or a mention. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Model prose (light Markdown) → mrkdwn: escaped, `**bold**` → `*bold*`. */
export function proseToMrkdwn(prose: string): string {
  return escapeMrkdwn(prose).replace(/\*\*(.+?)\*\*/g, "*$1*");
}

/**
 * Splits already-escaped mrkdwn into pieces of at most `max` characters (the core's splitter), preferring
 * line breaks, then spaces, in the second half of a piece, and never cutting an `&amp;`-style entity or a
 * surrogate pair in half.
 */
export function splitText(text: string, max: number = MAX_SECTION_TEXT): string[] {
  return splitForPlatform(text, {
    limit: max,
    breaks: ["\n", " "],
    minBreakFraction: 0.5,
    canCutAt: (value, index) => outsideEntity(value, index) && outsideSurrogatePair(value, index),
  });
}

/** Entities are at most five characters (`&amp;`); a cut after an `&` and before its `;` would break one. */
function outsideEntity(text: string, index: number): boolean {
  const entityStart = text.lastIndexOf("&", index - 1);
  return !(entityStart !== -1 && entityStart > index - 5 && text.indexOf(";", entityStart) >= index);
}

/** Text for notifications and clients without Block Kit; Slack reads it as mrkdwn, so data is escaped. */
export function fallbackText(text: string): string {
  const escaped = escapeMrkdwn(text);
  if (escaped.length <= MAX_FALLBACK_TEXT) return escaped;
  return `${escaped.slice(0, MAX_FALLBACK_TEXT - 1).replace(/&[a-z]*$/, "")}…`;
}

function section(mrkdwn: string): KnownBlock {
  return { type: "section", text: { type: "mrkdwn", text: mrkdwn } };
}

function sections(mrkdwn: string): KnownBlock[] {
  return splitText(mrkdwn).map(section);
}

/** Groups blocks into messages of at most `size` (50) blocks each. */
export function paginate(blocks: KnownBlock[], text: string, size = MAX_BLOCKS_PER_MESSAGE): SlackMessage[] {
  const messages: SlackMessage[] = [];
  for (let start = 0; start < blocks.length; start += size) {
    messages.push({ text, blocks: blocks.slice(start, start + size) });
  }
  return messages;
}

/** The thread parent (first) with prose, the status row and a Receipts button; then any overflow replies. */
export function briefingMessages(message: BriefingMessage): SlackMessage[] {
  const prose = sections(proseToMrkdwn(message.prose));
  const tail: KnownBlock[] = [];
  if (message.statusRow.trim().length > 0) {
    tail.push({ type: "context", elements: [{ type: "mrkdwn", text: escapeMrkdwn(message.statusRow) }] });
  }
  tail.push({
    type: "actions",
    block_id: `briefing_${message.runId}`,
    elements: [
      {
        type: "button",
        action_id: ACTION_RECEIPTS,
        value: String(message.runId),
        text: { type: "plain_text", text: "Receipts" },
      },
    ],
  });
  const text = fallbackText([message.prose, message.statusRow].filter(Boolean).join("\n"));
  if (prose.length === 0) prose.push(section("_(empty briefing)_"));
  // The parent always carries the status row and the button; prose that cannot fit continues in the thread.
  const room = MAX_BLOCKS_PER_MESSAGE - tail.length;
  const parent: SlackMessage = { text, blocks: [...prose.slice(0, room), ...tail] };
  return [parent, ...paginate(prose.slice(room), text)];
}

/** An answer or notice as one or more messages. */
export function textMessages(text: string): SlackMessage[] {
  const blocks = sections(proseToMrkdwn(text));
  if (blocks.length === 0) return [{ text: " ", blocks: [section("_(no answer)_")] }];
  return paginate(blocks, fallbackText(text));
}

/** A destructive action waiting for the user, with Confirm and Cancel. */
export function confirmationMessage(pending: PendingConfirmation, timeZone: string): SlackMessage {
  const expires = DateTime.fromJSDate(pending.expiresAt, { zone: timeZone }).toFormat("HH:mm");
  const summary = splitText(escapeMrkdwn(pending.summary), MAX_SECTION_TEXT - 20)[0] ?? "";
  return {
    text: fallbackText(`Confirm? ${pending.summary}`),
    blocks: [
      section(`*Confirm?* ${summary}`),
      { type: "context", elements: [{ type: "mrkdwn", text: `Expires at ${expires}.` }] },
      {
        type: "actions",
        block_id: `pending_${pending.id}`,
        elements: [
          {
            type: "button",
            action_id: ACTION_CONFIRM,
            value: String(pending.id),
            style: "primary",
            text: { type: "plain_text", text: "Confirm" },
          },
          {
            type: "button",
            action_id: ACTION_CANCEL,
            value: String(pending.id),
            style: "danger",
            text: { type: "plain_text", text: "Cancel" },
          },
        ],
      },
    ],
  };
}

/**
 * A run's receipts in full as pages of Block Kit: a heading, then per tool call a line (name, arguments,
 * time, ✓/✗) and every item and field of its result (the core's line renderer) as code, split under the
 * section limit at item boundaries only. Each page leaves room for a More button (`withMoreButton`).
 */
export function receiptsMessages(view: ReceiptsView, timeZone: string, now: Date): SlackMessage[] {
  const { run } = view;
  const heading = `*Receipts* for the ${escapeMrkdwn(run.slot)} briefing of ${escapeMrkdwn(run.localDate)} (run ${run.id})`;
  const blocks: KnownBlock[] = [section(heading)];
  if (run.archived) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: "Archived: kept for reference, no longer used in answers." }],
    });
  }
  if (view.receipts.length === 0) blocks.push(section("_No tool calls were made for this briefing._"));
  view.receipts.forEach((receipt, index) => {
    blocks.push(...receiptBlocks(receipt, index + 1, timeZone, now));
  });
  const text = fallbackText(
    `Receipts for the ${run.slot} briefing of ${run.localDate}: ${view.receipts.length} tool calls`,
  );
  const pages = paginate(blocks, text, MAX_BLOCKS_PER_MESSAGE - 1);
  if (pages.length > 1) {
    pages.forEach((page, index) => {
      page.text = fallbackText(`${page.text} (page ${index + 1} of ${pages.length})`);
    });
  }
  return pages;
}

/**
 * Pages `from` … `from + count - 1` of a run's receipts; the last one shown gets a More button for the next
 * page when there is one (value `<run id>:<page>`), so every item stays reachable however long the day.
 */
export function receiptsSlice(
  pages: SlackMessage[],
  from: number,
  count: number,
  runId: number,
): SlackMessage[] {
  const shown = pages.slice(from, from + count).map((page) => ({ ...page, blocks: [...page.blocks] }));
  const next = from + shown.length;
  const last = shown.at(-1);
  if (last && next < pages.length) {
    last.blocks.push({
      type: "actions",
      block_id: `receipts_more_${runId}_${next}`,
      elements: [
        {
          type: "button",
          action_id: ACTION_RECEIPTS_MORE,
          value: `${runId}:${next}`,
          text: { type: "plain_text", text: `More (page ${next + 1} of ${pages.length})` },
        },
      ],
    });
  }
  return shown;
}

/** An Undo button per change a reply reports (Slack allows 25 per actions block; a reply makes at most 16). */
export function undoBlock(changes: readonly ChangeNotice[]): KnownBlock | undefined {
  const buttons = changes.flatMap((change) =>
    change.undo
      ? [
          {
            type: "button" as const,
            action_id: ACTION_UNDO,
            value: String(change.undo.id),
            text: { type: "plain_text" as const, text: plainButtonText(`↩ Undo: ${change.report}`) },
          },
        ]
      : [],
  );
  return buttons.length > 0
    ? { type: "actions", block_id: "undo", elements: buttons.slice(0, 25) }
    : undefined;
}

/** Button text is plain text of at most 75 characters. */
function plainButtonText(value: string): string {
  return value.length <= 75 ? value : `${value.slice(0, 74)}…`;
}

function receiptBlocks(receipt: Receipt, position: number, timeZone: string, now: Date): KnownBlock[] {
  const at = DateTime.fromJSDate(receipt.at, { zone: timeZone });
  const minutesAgo = Math.max(0, Math.round((now.getTime() - receipt.at.getTime()) / 60_000));
  const args =
    Object.keys(receipt.arguments).length > 0
      ? ` \`${escapeMrkdwn(compactJson(receipt.arguments, 300))}\``
      : "";
  const mark = receipt.error ? "✗" : "✓";
  const title = `${mark} ${position}. *${escapeMrkdwn(receipt.toolName)}*${args} · ${at.toFormat("HH:mm")} (${ago(minutesAgo)})`;
  const fence = "```";
  const room = MAX_SECTION_TEXT - fence.length * 2 - 2;
  const code = packLines(receiptBlock(receipt, timeZone).lines.map(escapeMrkdwn), room).map((piece) =>
    section(`${fence}\n${piece}\n${fence}`),
  );
  return [section(title), ...code];
}

/** Lines joined into sections of at most `max` characters, broken only between lines (or inside one too long). */
function packLines(lines: readonly string[], max: number): string[] {
  const sections: string[] = [];
  let current = "";
  for (const line of lines) {
    for (const part of line.length > max ? splitText(line, max) : [line]) {
      if (current && current.length + 1 + part.length > max) {
        sections.push(current);
        current = "";
      }
      current = current ? `${current}\n${part}` : part;
    }
  }
  if (current) sections.push(current);
  return sections;
}

function ago(minutes: number): string {
  if (minutes < 1) return "just now";
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

function compactJson(value: unknown, max: number): string {
  const json = JSON.stringify(value) ?? "";
  return json.length <= max ? json : `${json.slice(0, max - 1)}…`;
}
