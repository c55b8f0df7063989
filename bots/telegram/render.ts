/**
 * What the Telegram bot says, as pieces: briefings with their status row, receipts, confirmations and the
 * fixed texts. Pure functions; the data they show is escaped by `format.ts`.
 */
import { DateTime } from "luxon";
import type { BriefingMessage, PendingConfirmation, Receipt, ReceiptsView } from "../../src/core/index.ts";
import {
  bold,
  code,
  italic,
  join,
  MESSAGE_LIMIT,
  type Piece,
  packPieces,
  pre,
  splitText,
  text,
  truncate,
} from "./format.ts";

/** Callback data stays far below Telegram's 64 bytes: "r:<run id>", "c:<pending id>:y|n". */
export const receiptsButtonData = (runId: number) => `r:${runId}`;
export const confirmButtonData = (pendingId: number, confirmed: boolean) =>
  `c:${pendingId}:${confirmed ? "y" : "n"}`;

export type ButtonAction =
  | { kind: "receipts"; runId: number }
  | { kind: "confirm"; pendingId: number; confirmed: boolean }
  | { kind: "unknown" };

export function parseButtonData(data: string): ButtonAction {
  const receipts = /^r:(\d{1,12})$/.exec(data);
  if (receipts?.[1]) return { kind: "receipts", runId: Number(receipts[1]) };
  const confirm = /^c:(\d{1,12}):([yn])$/.exec(data);
  if (confirm?.[1]) return { kind: "confirm", pendingId: Number(confirm[1]), confirmed: confirm[2] === "y" };
  return { kind: "unknown" };
}

/**
 * A briefing as messages: the prose split at paragraph boundaries, the status row under the last part
 * (or alone when it does not fit). The Receipts button goes on the last message.
 */
export function briefingPieces(
  message: Pick<BriefingMessage, "prose" | "statusRow">,
  limit = MESSAGE_LIMIT,
): Piece[] {
  const chunks = splitText(message.prose, limit);
  const status = message.statusRow.trim();
  if (status === "") return chunks.length > 0 ? chunks.map(text) : [text("(empty briefing)")];
  const statusPiece = italic(status);
  const last = chunks.at(-1);
  if (last !== undefined && last.length + 2 + status.length <= limit) {
    return [...chunks.slice(0, -1).map(text), join([text(last), statusPiece], "\n\n")];
  }
  return [...chunks.map(text), statusPiece];
}

/** Per tool, how much of its result to show: receipts stay compact; the full data is in the database. */
const RECEIPT_BODY_CHARS = 900;
const LIST_ITEMS = 8;

export function receiptsPieces(view: ReceiptsView, timeZone: string, limit = MESSAGE_LIMIT): Piece[] {
  const when = `${view.run.slot} briefing, ${view.run.localDate}`;
  const header = join([bold(`🧾 Receipts · ${when}`), ...(view.run.archived ? [italic(" (archived)")] : [])]);
  if (view.receipts.length === 0) {
    return [join([header, text("No tools were called for this briefing.")], "\n")];
  }
  const blocks = view.receipts.map((receipt) => receiptPiece(receipt, timeZone));
  return packPieces([join([header, blocks[0] ?? text("")], "\n\n"), ...blocks.slice(1)], limit);
}

export function receiptPiece(receipt: Receipt, timeZone: string): Piece {
  const at = DateTime.fromJSDate(receipt.at, { zone: timeZone });
  const time = at.isValid ? at.toFormat("HH:mm") : receipt.at.toISOString().slice(11, 16);
  const args = compactArguments(receipt.arguments);
  const title = join([
    text(receipt.error ? "✗ " : "✓ "),
    bold(receipt.toolName),
    ...(args ? [text(" "), code(args)] : []),
    text(` · ${time}`),
  ]);
  const body = truncate(renderValue(receipt.result, 0), RECEIPT_BODY_CHARS);
  return body.trim() === "" ? title : join([title, pre(body)], "\n");
}

function compactArguments(args: Record<string, unknown>): string {
  const entries = Object.entries(args ?? {}).filter(([, value]) => value !== undefined && value !== null);
  if (entries.length === 0) return "";
  return truncate(entries.map(([key, value]) => `${key}=${scalar(value, 40)}`).join(" "), 120);
}

function scalar(value: unknown, max: number): string {
  if (value === null || value === undefined) return "–";
  if (typeof value === "string") return truncate(value.replace(/\s+/g, " "), max);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return truncate(JSON.stringify(value) ?? "", max);
}

/** A compact, readable rendering: lists as bullets, objects as `key: value`, nesting shown by indentation. */
export function renderValue(value: unknown, depth: number): string {
  const indent = "  ".repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    const shown = value.slice(0, LIST_ITEMS).map((item) => `${indent}• ${inline(item)}`);
    if (value.length > LIST_ITEMS) shown.push(`${indent}… and ${value.length - LIST_ITEMS} more`);
    return shown.join("\n");
  }
  if (typeof value === "object" && value !== null) {
    const lines: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || item === null || item === "") continue;
      if (Array.isArray(item) || (typeof item === "object" && depth < 1)) {
        const count = Array.isArray(item) ? ` (${item.length})` : "";
        lines.push(`${indent}${key}${count}:`, renderValue(item, depth + 1));
      } else lines.push(`${indent}${key}: ${inline(item)}`);
    }
    return lines.length > 0 ? lines.join("\n") : `${indent}(empty)`;
  }
  return `${indent}${scalar(value, 300)}`;
}

/** One line for a list item: an object's values joined by " · " (its title-like fields first). */
function inline(item: unknown): string {
  if (typeof item !== "object" || item === null) return scalar(item, 160);
  if (Array.isArray(item)) return truncate(item.map((entry) => scalar(entry, 40)).join(", "), 160);
  const entries = Object.entries(item).filter(
    ([, value]) => value !== undefined && value !== null && value !== "",
  );
  const preferred = ["title", "name", "summary", "headline"];
  entries.sort(([a], [b]) => (preferred.includes(a) ? 0 : 1) - (preferred.includes(b) ? 0 : 1));
  return truncate(
    entries
      .map(([key, value]) => (preferred.includes(key) ? scalar(value, 80) : `${key} ${scalar(value, 40)}`))
      .join(" · "),
    200,
  );
}

export function confirmationPiece(pending: PendingConfirmation, timeZone: string): Piece {
  const expires = DateTime.fromJSDate(pending.expiresAt, { zone: timeZone });
  return join(
    [
      join([text("⚠️ "), bold(pending.summary)]),
      italic(`Confirm or cancel${expires.isValid ? ` before ${expires.toFormat("HH:mm")}` : ""}.`),
    ],
    "\n",
  );
}

export const COMMANDS = [
  { command: "brief", description: "A briefing now (optionally: /brief morning|midday|afternoon|evening)" },
  { command: "receipts", description: "What the tools returned for the latest (or replied-to) briefing" },
  { command: "help", description: "What I do and how to use me" },
] as const;

export function helpPiece(name: string | undefined): Piece {
  return join(
    [
      bold(`Hi${name ? ` ${name}` : ""}! I'm briefbot.`),
      text(
        "I send you short briefings from your calendar, tasks, feeds and the weather, and every fact in them comes from a tool I actually called.",
      ),
      join(
        [
          bold("Commands"),
          join([code("/brief"), text(" – a briefing now; add a slot like "), code("/brief midday")]),
          join([
            code("/receipts"),
            text(" – what the tools returned (reply to a briefing to pick that one)"),
          ]),
          join([code("/help"), text(" – this message")]),
        ],
        "\n",
      ),
      text(
        "Reply to a briefing to ask about it. Any other message is a normal chat: you can ask me to add a task or a note, for example.",
      ),
    ],
    "\n\n",
  );
}

export function refusalPiece(telegramUserId: number): Piece {
  return join(
    [
      text(
        "Hello! I'm a private assistant and only talk to people my owner has linked, so I can't help you yet.",
      ),
      join([
        text("If you should have access, ask the owner to run: "),
        code(`briefbot user link <name> --telegram ${telegramUserId}`),
      ]),
      text(`Your Telegram id is ${telegramUserId}.`),
    ],
    "\n\n",
  );
}
