import type { Mask } from "./mask.ts";
import type { CountedList, Evidence, FoundClaim } from "./types.ts";
import { isStopword, NUMBER_WORD_PATTERN, numberWordValue } from "./words.ts";

// A number standing on its own: not part of "Q2", "3rd", "BA123" or "16.1.2".
const NUMBER = String.raw`(?<![\p{L}\p{N}.,:/])((?:(?<=^|[\s(])[-−])?\d{1,3}(?:,\d{3})+|(?:(?<=^|[\s(])[-−])?\d+(?:\.\d+)?)(?![\p{L}\p{N}]|[.,:]\d)`;
const NUM = String.raw`(?<![\p{L}\p{N}.,:/])((?:(?<=^|[\s(])[-−])?\d+(?:\.\d+)?)`;
const UNIT = String.raw`(?:\s*[°º]\s*[CF]?|\s*degrees?(?:\s+(?:C|F|Celsius|Fahrenheit|centigrade)\b)?|C\b)`;

const WEATHER =
  /\b(?:weather|forecast|cloudy|clouds?|sunny|sunshine|rain|rainy|raining|showers?|drizzle|snow|snowy|windy|breezy|fog|foggy|misty|overcast|temperatures?|temps?|warm|warmer|cool|cooler|cold|colder|mild|chilly|hot|highs|lows|degrees?|storms?|stormy|thunder|frost|frosty|icy|humid|freezing)\b|°|\b(?:high|low)\s+of\b/iu;

const COUNT_NOUNS: Record<string, CountedList["family"]> = {
  task: "tasks",
  todo: "tasks",
  "to-do": "tasks",
  deadline: "tasks",
  errand: "tasks",
  reminder: "tasks",
  event: "events",
  meeting: "events",
  appointment: "events",
  call: "events",
  headline: "headlines",
  story: "headlines",
  stories: "headlines",
  article: "headlines",
  project: "projects",
  note: "notes",
};
// Vague nouns ("two things to keep in mind") are rhetoric, not counts of a list, so they are not claims.
const COUNT_NOUN_PATTERN = `(tasks|todos|to-dos|deadlines|errands|reminders|events|meetings|appointments|calls|headlines|stories|articles|projects|notes)`;

const SUBTASK_COUNT = new RegExp(
  String.raw`(?:\b(${NUMBER_WORD_PATTERN})\b|${NUM}(?![\p{L}\p{N}]|[.,:]\d))\s+(?:[\p{L}'’-]+\s+){0,2}?sub-?tasks\b`,
  "giu",
);

/** Words that name which list a count is of. */
const SCOPE_WORDS = new Set(["overdue", "due", "high", "priority", "today", "tomorrow", "completed", "done"]);
const TRAILING_SCOPE =
  /^\s+(?:(?:are|is|were|still)\s+)*(overdue|due|high[- ]priority|open|done|completed)\b/iu;
/** "…and three are due today": a count whose noun the sentence gave before it. */
const ELLIPTIC_COUNT = new RegExp(
  String.raw`\b(?:and|but|while|with)\s+(${NUMBER_WORD_PATTERN}|\d{1,3})\s+(?:(?:are|is|were)\s+)(overdue|due|high[- ]priority|done|completed)\b`,
  "giu",
);

const DURATION =
  /^\s*(?:-\s*)?(?:minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|seconds?|secs?|nights?)\b/iu;

/**
 * Temperature, percentage, count and other number claims of one sentence.
 * Temperatures and plain numbers are backed by any receipt number within 0.5 (so 16.1 backs "16");
 * counts by the length of a matching list ("two overdue tasks" by an overdue list of two).
 */
export function findNumberClaims(sentence: string, mask: Mask): FoundClaim[] {
  const claims: FoundClaim[] = [];
  const weather = WEATHER.test(sentence);
  const showing = SHOWING.test(sentence);
  const add = (claim: FoundClaim): void => {
    if (mask.take(claim.start, claim.end)) claims.push(claim);
  };

  const range = new RegExp(
    String.raw`(?:\bbetween\s+)?${NUM}(?:${UNIT})?\s*(?:to|-|–|—|and)\s*${NUM}(${UNIT})?`,
    "giu",
  );
  for (const match of sentence.matchAll(range)) {
    if (!weather && match[3] === undefined) continue;
    const start = match.index ?? 0;
    const first = sentence.indexOf(match[1] ?? "", start);
    const secondText = (match[2] ?? "") + (match[3] ?? "");
    const second = sentence.indexOf(secondText, first + (match[1] ?? "").length);
    if (!mask.isFree(start, start + match[0].length)) continue;
    add(temperature(match[1] ?? "", first));
    add(temperature(secondText, second));
  }

  const cued = new RegExp(
    String.raw`\b(?:(?:highs?|lows?|max(?:imum)?|min(?:imum)?)\s+(?:of\s+)?|(?:peak(?:ing|s)?|top(?:ping|s)?\s+out|reach(?:ing|es)?|climb(?:ing|s)?|rising|falling|feels?\s+like|temperatures?|temps?|currently|right\s+now)\s+(?:at\s+|to\s+|of\s+)?)(?:(?:around|about|near|roughly|just|only)\s+)?${NUM}(?:${UNIT})?`,
    "giu",
  );
  for (const match of sentence.matchAll(cued)) {
    if (!weather) continue;
    add(temperature(match[0], match.index ?? 0, match[1] ?? ""));
  }

  for (const match of sentence.matchAll(new RegExp(`${NUM}${UNIT}`, "giu"))) {
    add(temperature(match[0], match.index ?? 0, match[1] ?? ""));
  }

  for (const match of sentence.matchAll(
    new RegExp(String.raw`${NUM}\s*(?:%|percent\b|per\s+cent\b)`, "giu"),
  )) {
    const value = parseNumber(match[1] ?? "");
    if (value === null) continue;
    const start = match.index ?? 0;
    add({
      kind: "number",
      text: match[0],
      normalized: `${formatNumber(value)}%`,
      start,
      end: start + match[0].length,
      isBacked: (evidence) => evidence.numbers.some((n) => near(n, value) || near(n * 100, value)),
    });
  }

  // "the move has three subtasks": the count of one parent's subtasks, never of a whole list.
  for (const match of sentence.matchAll(SUBTASK_COUNT)) {
    const value = match[1] !== undefined ? numberWordValue(match[1]) : parseNumber(match[2] ?? "");
    if (value === null || value <= 1 || !Number.isInteger(value)) continue;
    const start = match.index ?? 0;
    add({
      kind: "number",
      text: match[0],
      normalized: String(value),
      start,
      end: start + match[0].length,
      isBacked: (evidence) => evidence.subtaskCounts.includes(value),
    });
  }

  const counts = new RegExp(
    String.raw`(?:\b(${NUMBER_WORD_PATTERN})\b|${NUM}(?![\p{L}\p{N}]|[.,:]\d))\s+((?:[\p{L}'’-]+\s+){0,2}?)${COUNT_NOUN_PATTERN}\b`,
    "giu",
  );
  for (const match of sentence.matchAll(counts)) {
    const value = match[1] !== undefined ? numberWordValue(match[1]) : parseNumber(match[2] ?? "");
    if (value === null || value <= 1 || !Number.isInteger(value) || isYear(value)) continue;
    const start = match.index ?? 0;
    const noun = (match[4] ?? "").toLowerCase();
    // What the count is of: the words before its noun ("two overdue tasks") and the state said right after
    // it ("two tasks are overdue", "three tasks due today").
    const after = TRAILING_SCOPE.exec(sentence.slice(start + match[0].length))?.[1] ?? "";
    const qualifiers = `${match[3] ?? ""} ${after}`
      .toLowerCase()
      .split(/[\s-]+/)
      .filter((word) => word.length > 0 && !isStopword(word));
    add({
      kind: "number",
      text: match[0],
      normalized: String(value),
      start,
      end: start + match[0].length,
      isBacked: (evidence) => countBacked(evidence, value, singular(noun), qualifiers),
    });
  }

  if (/\b(?:tasks?|to-?dos?|deadlines?)\b/iu.test(sentence)) {
    for (const match of sentence.matchAll(ELLIPTIC_COUNT)) {
      const raw = match[1] ?? "";
      const value = /^\d+$/u.test(raw) ? Number(raw) : numberWordValue(raw);
      if (value === null || value <= 1) continue;
      const start = (match.index ?? 0) + match[0].indexOf(raw);
      const scope = (match[2] ?? "").toLowerCase().split(/[\s-]+/);
      add({
        kind: "number",
        text: match[0].slice(match[0].indexOf(raw)),
        normalized: String(value),
        start,
        end: (match.index ?? 0) + match[0].length,
        isBacked: (evidence) => countBacked(evidence, value, "task", scope),
      });
    }
  }

  for (const match of sentence.matchAll(new RegExp(NUMBER, "gu"))) {
    const text = match[1] ?? "";
    const value = parseNumber(text);
    const start = match.index ?? 0;
    if (value === null || Math.abs(value) <= 1 || (Number.isInteger(value) && isYear(value))) continue;
    if (DURATION.test(sentence.slice(start + match[0].length))) continue;
    if (weather) {
      add(temperature(text, start));
      continue;
    }
    add({
      kind: "number",
      text,
      normalized: formatNumber(value),
      start,
      end: start + text.length,
      isBacked: (evidence) =>
        evidence.numbers.some((n) => near(n, value)) ||
        evidence.lists.some((list) => list.length === value) ||
        evidence.namedCounts.includes(value) ||
        (showing && shownOfShortened(evidence, value)),
    });
  }
  return claims.sort((a, b) => a.start - b.start);
}

function temperature(text: string, start: number, numberText?: string): FoundClaim {
  const value = parseNumber(numberText ?? /[-−]?\d+(?:\.\d+)?/u.exec(text)?.[0] ?? "") ?? Number.NaN;
  return {
    kind: "temperature",
    text: text.trim(),
    normalized: formatNumber(value),
    start,
    end: start + text.length,
    // The sign is forgiven: "8 - 16" reads the same as "8 to 16", and a wrong sign is a rarer lie than a wrong number.
    isBacked: (evidence) =>
      evidence.numbers.some((n) => near(n, value) || near(Math.abs(n), Math.abs(value))),
  };
}

function countBacked(evidence: Evidence, value: number, noun: string, qualifiers: string[]): boolean {
  const family = COUNT_NOUNS[noun] ?? null;
  // "three tasks are due today" counts the due list, not whichever list happens to hold three.
  const scoped = evidence.lists.filter(
    (list) =>
      (family === null || list.family === family) &&
      qualifiers.some((word) => SCOPE_WORDS.has(word) && list.context.has(word)),
  );
  if (scoped.length > 0) return scoped.some((list) => list.length === value);
  if (
    evidence.familyCounts.some(
      (count) =>
        count.value === value && (family === null || count.family === null || count.family === family),
    )
  )
    return true;
  let lists = family === null ? evidence.lists : evidence.lists.filter((list) => list.family === family);
  if (lists.length === 0) lists = evidence.lists;
  const qualified = lists.filter((list) => qualifiers.some((word) => list.context.has(word)));
  if (qualified.length > 0) lists = qualified;
  // Headlines are picked from a feed ("three headlines worth a look"), so any count up to the feed's size is true.
  if (family === "headlines")
    return lists.some((list) => list.family === "headlines" && value <= list.length);
  return lists.some((list) => list.length === value);
}

/**
 * "61 tasks, 15 of them listed here": where the sentence speaks of what is shown, a shortened list's shown
 * part is a true count too (but "15 tasks are due" is still the whole list's count).
 */
const SHOWING = /\b(?:list(?:ed|ing)|show(?:n|s|ing)?|here|above|below|of\s+them|displayed|visible)\b/iu;

function shownOfShortened(evidence: Evidence, value: number): boolean {
  return evidence.facts.lists.some((list) => list.shown < list.count && list.shown === value);
}

function singular(noun: string): string {
  return noun === "stories" ? noun : noun.replace(/s$/, "");
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= 0.5 + 1e-9;
}

function isYear(value: number): boolean {
  return value >= 1900 && value <= 2100;
}

function parseNumber(text: string): number | null {
  const value = Number(text.replace(/−/g, "-").replace(/,/g, ""));
  return Number.isFinite(value) ? value : null;
}

function formatNumber(value: number): string {
  return String(value);
}
