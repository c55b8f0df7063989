/**
 * A receipt as lines people read, in full: one line per item of every list (every event of a 30-event
 * day), one per field, nothing cut. The platforms page these lines in their own shape (Telegram messages
 * split at line boundaries with a "More" button, Slack Block Kit pages, the CLI all at once), so whatever a
 * briefing named can be found in its receipts.
 */
import { DateTime } from "luxon";
import type { Receipt } from "./domain.ts";

export interface ReceiptBlock {
  /** "✓ list_events range=today · 07:00" */
  title: string;
  /** The result, one item or field per line; indented lines belong to the line above. */
  lines: string[];
}

/** The fields that name an item, shown first on its line. */
const NAME_FIELDS = ["title", "name", "summary", "headline"];

export function receiptBlock(receipt: Receipt, timeZone: string): ReceiptBlock {
  const at = DateTime.fromJSDate(receipt.at, { zone: timeZone });
  const time = at.isValid ? at.toFormat("HH:mm") : receipt.at.toISOString().slice(11, 16);
  const args = Object.entries(receipt.arguments ?? {})
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${scalar(value)}`)
    .join(" ");
  return {
    title: `${receipt.error ? "✗" : "✓"} ${receipt.toolName}${args ? ` ${args}` : ""} · ${time}`,
    lines: valueLines(receipt.result, 0),
  };
}

/** Every receipt of a run, each as a title and its lines. */
export function receiptBlocks(receipts: readonly Receipt[], timeZone: string): ReceiptBlock[] {
  return receipts.map((receipt) => receiptBlock(receipt, timeZone));
}

function valueLines(value: unknown, depth: number): string[] {
  const indent = "  ".repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}(none)`];
    return value.map((item) => `${indent}• ${inline(item)}`);
  }
  if (typeof value === "object" && value !== null) {
    const lines: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || item === null || item === "") continue;
      if (Array.isArray(item))
        lines.push(`${indent}${key} (${item.length}):`, ...valueLines(item, depth + 1));
      else if (typeof item === "object") lines.push(`${indent}${key}:`, ...valueLines(item, depth + 1));
      else lines.push(`${indent}${key}: ${scalar(item)}`);
    }
    return lines.length > 0 ? lines : [`${indent}(empty)`];
  }
  return [`${indent}${scalar(value)}`];
}

/** One list item on one line: its name first, then the other fields as "key value", all of them. */
function inline(item: unknown): string {
  if (typeof item !== "object" || item === null) return scalar(item);
  if (Array.isArray(item)) return item.map(scalar).join(", ");
  const entries = Object.entries(item).filter(
    ([, value]) => value !== undefined && value !== null && value !== "",
  );
  entries.sort(([a], [b]) => rank(a) - rank(b));
  return entries
    .map(([key, value]) => (NAME_FIELDS.includes(key) ? scalar(value) : `${key} ${scalar(value)}`))
    .join(" · ");
}

function rank(key: string): number {
  const index = NAME_FIELDS.indexOf(key);
  return index < 0 ? NAME_FIELDS.length : index;
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return "–";
  if (typeof value === "string") return value.replace(/\s+/g, " ").trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}
