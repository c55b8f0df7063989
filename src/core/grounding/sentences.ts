/** Where one sentence sits in the prose, so removing it can keep the rest of the layout. */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

// A period after these is not the end of a sentence ("Dr. Patel", "e.g. the standup").
const ABBREVIATIONS = new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "st",
  "vs",
  "e.g",
  "i.e",
  "approx",
  "no",
  "etc",
  "cf",
  "mt",
]);

const CLOSERS = `"'”’)]`;
const OPENERS = `"'“‘([`;

/** Splits prose into trimmed sentences; lines (bullets, paragraphs) always end a sentence. */
export function splitSentences(prose: string): string[] {
  return sentenceSpans(prose).map((span) => span.text);
}

export function sentenceSpans(prose: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let start = 0;
  const push = (end: number): void => {
    const raw = prose.slice(start, end);
    const leading = raw.length - raw.trimStart().length;
    const text = raw.trim();
    if (text.length > 0) spans.push({ text, start: start + leading, end: start + leading + text.length });
  };
  let index = 0;
  while (index < prose.length) {
    const char = prose.charAt(index);
    if (char === "\n") {
      push(index);
      start = index + 1;
      index += 1;
      continue;
    }
    if (".!?…".includes(char)) {
      let end = index + 1;
      while (end < prose.length && ".!?…".includes(prose.charAt(end))) end += 1;
      while (end < prose.length && CLOSERS.includes(prose.charAt(end))) end += 1;
      if (isBoundary(prose, index, end)) {
        push(end);
        start = end;
      }
      index = end;
      continue;
    }
    index += 1;
  }
  push(prose.length);
  return spans;
}

function isBoundary(prose: string, punctuation: number, after: number): boolean {
  if (after >= prose.length) return true;
  if (!/[ \t\r\n]/.test(prose.charAt(after))) return false;
  let next = after;
  while (next < prose.length && /[ \t\r]/.test(prose.charAt(next))) next += 1;
  if (next >= prose.length || prose.charAt(next) === "\n") return true;
  if (prose.charAt(punctuation) !== ".") return true;
  const word = /([\p{L}.]+)$/u.exec(prose.slice(Math.max(0, punctuation - 12), punctuation))?.[1] ?? "";
  if (ABBREVIATIONS.has(word.toLowerCase())) return false;
  // A lone initial ("J. Smith") is a name, not a sentence end.
  if (/^\p{Lu}$/u.test(word)) return false;
  const following = prose.charAt(next);
  return /[\p{Lu}\p{N}]/u.test(following) || OPENERS.includes(following) || !/\p{L}/u.test(following);
}
