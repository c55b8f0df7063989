/**
 * Telegram HTML rendering. Every outgoing message is built as a `Piece`: the HTML to send and the same text
 * without markup, so a message Telegram refuses to parse can be resent as plain text instead of lost.
 * Data never reaches the HTML unescaped: pieces are only made by the helpers below.
 */
import { splitText as splitForPlatform } from "../../src/core/index.ts";

/** Telegram's limit on a message's text after entity parsing. */
export const MESSAGE_LIMIT = 4096;

export interface Piece {
  html: string;
  plain: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export const text = (value: string): Piece => ({ html: escapeHtml(value), plain: value });
export const bold = (value: string): Piece => ({ html: `<b>${escapeHtml(value)}</b>`, plain: value });
export const italic = (value: string): Piece => ({ html: `<i>${escapeHtml(value)}</i>`, plain: value });
export const code = (value: string): Piece => ({ html: `<code>${escapeHtml(value)}</code>`, plain: value });
export const pre = (value: string): Piece => ({ html: `<pre>${escapeHtml(value)}</pre>`, plain: value });

export function join(pieces: Piece[], separator = ""): Piece {
  return {
    html: pieces.map((piece) => piece.html).join(escapeHtml(separator)),
    plain: pieces.map((piece) => piece.plain).join(separator),
  };
}

/** Length as Telegram counts it, erring long: UTF-16 units are never fewer than characters. */
export function telegramLength(value: string): number {
  return value.length;
}

/**
 * Splits text into chunks of at most `limit` UTF-16 units (the core's splitter), preferring paragraph
 * breaks, then line breaks, then spaces, and only then a hard cut (never inside a surrogate pair); chunks
 * carry no whitespace at their ends.
 */
export function splitText(value: string, limit = MESSAGE_LIMIT): string[] {
  return splitForPlatform(value.trim(), { limit, measure: telegramLength })
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk !== "");
}

/** Cuts a data string to `max` characters with an ellipsis, before escaping. */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  return `${value.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}
