/**
 * Core results → Block Kit, pure. Every builder keeps Slack's limits (50 blocks per message, 3000 characters
 * per section text) by splitting text and paginating blocks, so no message is ever refused for its size.
 */
import type { types } from "@slack/bolt";
import { DateTime } from "luxon";
import {
  type BriefingMessage,
  outsideSurrogatePair,
  type PendingConfirmation,
  type Receipt,
  type ReceiptsView,
  splitText as splitForPlatform,
} from "../../src/core/index.ts";

type KnownBlock = types.KnownBlock;

export const MAX_BLOCKS_PER_MESSAGE = 50;
export const MAX_SECTION_TEXT = 3000;
/** Notification / fallback text; Slack recommends staying under 4,000. */
const MAX_FALLBACK_TEXT = 3000;
/** Beyond this a single receipt's result is cut; the CLI shows it whole. */
const MAX_RESULT_CHARS = 8000;

export const ACTION_RECEIPTS = "briefing_receipts";
export const ACTION_CONFIRM = "pending_confirm";
export const ACTION_CANCEL = "pending_cancel";

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

/** Groups blocks into messages of at most 50 blocks each. */
export function paginate(blocks: KnownBlock[], text: string): SlackMessage[] {
  const messages: SlackMessage[] = [];
  for (let start = 0; start < blocks.length; start += MAX_BLOCKS_PER_MESSAGE) {
    messages.push({ text, blocks: blocks.slice(start, start + MAX_BLOCKS_PER_MESSAGE) });
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
 * A run's receipts as pages of Block Kit: a heading, then per tool call a line (name, arguments, time, ✓/✗)
 * and its result as code, split under the section limit.
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
  return paginate(blocks, text);
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
  let result = prettyJson(receipt.result);
  if (result.length > MAX_RESULT_CHARS) {
    result = `${result.slice(0, MAX_RESULT_CHARS)}\n… ${result.length - MAX_RESULT_CHARS} more characters (briefbot receipts --run ${receipt.runId ?? "?"})`;
  }
  const fence = "```";
  const code = splitText(escapeMrkdwn(result), MAX_SECTION_TEXT - fence.length * 2 - 2).map((piece) =>
    section(`${fence}\n${piece}\n${fence}`),
  );
  return [section(title), ...code];
}

function ago(minutes: number): string {
  if (minutes < 1) return "just now";
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

function prettyJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function compactJson(value: unknown, max: number): string {
  const json = JSON.stringify(value) ?? "";
  return json.length <= max ? json : `${json.slice(0, max - 1)}…`;
}
