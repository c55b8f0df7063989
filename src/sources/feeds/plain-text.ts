import { convert } from "html-to-text";

/** Feed HTML bigger than this is cut before conversion: a summary never needs more, and hostile items stay cheap. */
const MAX_HTML_INPUT = 100_000;

export const MAX_TITLE_LENGTH = 300;
export const MAX_SUMMARY_LENGTH = 400;

const CONVERT_OPTIONS = {
  wordwrap: false as const,
  limits: { maxInputLength: MAX_HTML_INPUT, maxDepth: 64, ellipsis: "…" },
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "script", format: "skip" },
    { selector: "style", format: "skip" },
    { selector: "noscript", format: "skip" },
    { selector: "iframe", format: "skip" },
    { selector: "object", format: "skip" },
    { selector: "svg", format: "skip" },
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
    { selector: "h3", options: { uppercase: false } },
    { selector: "h4", options: { uppercase: false } },
    { selector: "h5", options: { uppercase: false } },
    { selector: "h6", options: { uppercase: false } },
    { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false } },
    { selector: "ul", options: { itemPrefix: "• " } },
  ],
};

/** HTML (or text that may contain markup) → one line of plain text with collapsed whitespace. */
export function htmlToPlainText(html: string): string {
  if (!html) return "";
  // Plain text without markup or entities needs no parser; this also keeps "a < b" intact.
  if (!/[<&]/.test(html)) return collapseWhitespace(html);
  let text: string;
  try {
    text = convert(html.slice(0, MAX_HTML_INPUT), CONVERT_OPTIONS);
  } catch {
    text = html.replace(/<[^>]*>/g, " ");
  }
  return collapseWhitespace(text);
}

export function collapseWhitespace(text: string): string {
  // Control characters other than whitespace have no business in a title and can confuse terminals.
  return text
    .replace(/(?![\t\n\v\f\r])\p{Cc}/gu, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Cuts at a word boundary and marks the cut, so a summary never ends mid-word. */
export function truncateText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const slice = text.slice(0, maxLength - 1);
  const lastSpace = slice.lastIndexOf(" ");
  const cut = lastSpace > maxLength * 0.6 ? slice.slice(0, lastSpace) : slice;
  return `${cut.replace(/[\s.,;:!?-]+$/, "")}…`;
}
