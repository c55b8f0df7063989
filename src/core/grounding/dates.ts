import { DateTime } from "luxon";
import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import { monthNumber, weekdayNumber } from "./words.ts";

const MONTH = `(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`;
const WEEKDAY = `(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)`;
const ORDINAL = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
const LEADING_WEEKDAY = String.raw`(?:${WEEKDAY},?\s+(?:the\s+)?)?`;
// "the 3rd" is a date only where a date can end; "the 3rd item on your list" is an ordinal.
const DATE_END = String.raw`(?=\s*(?:$|[.,;:!?)\-–—]|(?:at|and|or|but|so|when|then|which|too|is|was|will|in)\b))`;

interface DateContext {
  today: DateTime;
}

/** One date written in the prose and the calendar days it can mean; the first is the normalized one. */
export interface DateMention {
  start: number;
  end: number;
  text: string;
  candidates: string[];
}

const FINDERS: { pattern: RegExp; read: (match: RegExpExecArray, context: DateContext) => string[] }[] = [
  {
    pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/gu,
    read: (match) => validDates([[Number(match[1]), Number(match[2]), Number(match[3])]]),
  },
  {
    // "Friday, December 4", "Dec 4th", "December 4, 2026"
    pattern: new RegExp(
      String.raw`\b${LEADING_WEEKDAY}${MONTH}\.?\s+(?:the\s+)?${ORDINAL}\b(?![:.]?\d)(?:,?\s+(\d{4})\b)?`,
      "gu",
    ),
    read: (match, context) => monthDay(context, match[2], match[3], match[4]),
  },
  {
    // "4 December", "the 4th of Dec", "Friday 4 Dec 2026"
    pattern: new RegExp(
      String.raw`\b${LEADING_WEEKDAY}${ORDINAL}\s+(?:of\s+)?${MONTH}\b(?:\.(?=\s*\d{4}))?(?:,?\s+(\d{4})\b)?`,
      "gu",
    ),
    read: (match, context) => monthDay(context, match[3], match[2], match[4]),
  },
  {
    // "the 3rd", "due by 28th"
    pattern: new RegExp(
      String.raw`(?:(?<=\b(?:on|by|until|till|before|after|since)\s+)(?:the\s+)?|\bthe\s+)(\d{1,2})(?:st|nd|rd|th)\b${DATE_END}`,
      "giu",
    ),
    read: (match, context) => dayOfMonth(context, Number(match[1])),
  },
  {
    pattern: new RegExp(String.raw`\b(?:(last|next|this|coming)\s+)?${WEEKDAY}\b(?!s)`, "gu"),
    read: (match, context) => weekday(context, match[1]?.toLowerCase(), match[2] ?? ""),
  },
  {
    pattern: /\b(?:the\s+day\s+after\s+)?tomorrow\b/giu,
    read: (match, context) => [isoDate(context.today.plus({ days: match[0].length > 8 ? 2 : 1 }))],
  },
];

/** Every date the sentence writes, with the days each can mean (the first is the likeliest). */
export function readDates(sentence: string, localDate: string): DateMention[] {
  return findDates(sentence, { today: DateTime.fromISO(localDate, { zone: "UTC" }) });
}

function findDates(sentence: string, context: DateContext): DateMention[] {
  const found: DateMention[] = [];
  for (const { pattern, read } of FINDERS) {
    for (const match of sentence.matchAll(pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (found.some((other) => other.start < end && start < other.end)) continue;
      const candidates = read(match as RegExpExecArray, context);
      if (candidates.length > 0) found.push({ start, end, text: match[0], candidates });
    }
  }
  return found;
}

/**
 * Date claims of one sentence. A date is backed when a receipt holds one of the days it can mean, when
 * it is today or tomorrow (the briefing's own frame), or when its words appear in a receipt ("Friday report").
 */
export function findDateClaims(sentence: string, mask: Mask, localDate: string): FoundClaim[] {
  const today = DateTime.fromISO(localDate, { zone: "UTC" });
  const frame = new Set([localDate, isoDate(today.plus({ days: 1 }))]);
  const claims: FoundClaim[] = [];
  for (const mention of findDates(sentence, { today })) {
    if (!mask.take(mention.start, mention.end)) continue;
    const { candidates, text } = mention;
    claims.push({
      kind: "date",
      text,
      normalized: candidates[0] ?? "",
      start: mention.start,
      end: mention.end,
      isBacked: (evidence: Evidence) =>
        candidates.some((date) => frame.has(date) || evidence.dates.has(date)) ||
        evidence.mentions(
          text.replace(/^(?:the|on|by|until|till|before|after|since|last|next|this|coming)\s+/i, ""),
        ),
    });
  }
  return claims.sort((a, b) => a.start - b.start);
}

function monthDay(
  context: DateContext,
  monthWord: string | undefined,
  dayText: string | undefined,
  yearText: string | undefined,
): string[] {
  const month = monthNumber(monthWord ?? "");
  const day = Number(dayText);
  if (month === null) return [];
  if (yearText !== undefined) return validDates([[Number(yearText), month, day]]);
  const year = context.today.year;
  const dates = validDates([year - 1, year, year + 1].map((y): [number, number, number] => [y, month, day]));
  return byDistance(context, dates);
}

function dayOfMonth(context: DateContext, day: number): string[] {
  const { today } = context;
  const months = [today.minus({ months: 1 }), today, today.plus({ months: 1 })];
  const dates = validDates(months.map((m): [number, number, number] => [m.year, m.month, day]));
  // Without a month, "the 3rd" means the next 3rd; earlier ones stay acceptable ("overdue since the 28th").
  const upcoming = dates.filter((date) => date >= isoDate(today));
  return [...upcoming, ...dates.filter((date) => date < isoDate(today)).reverse()];
}

function weekday(context: DateContext, modifier: string | undefined, name: string): string[] {
  const target = weekdayNumber(name);
  if (target === null) return [];
  const { today } = context;
  const ahead = (target - today.weekday + 7) % 7;
  const offsets =
    modifier === "last"
      ? [ahead === 0 ? -7 : ahead - 7]
      : modifier === "next"
        ? [ahead === 0 ? 7 : ahead, ahead + 7]
        : [ahead, ahead === 0 ? -7 : ahead - 7];
  return offsets.map((days) => isoDate(today.plus({ days })));
}

function byDistance(context: DateContext, dates: string[]): string[] {
  const distance = (date: string): number =>
    Math.abs(DateTime.fromISO(date, { zone: "UTC" }).diff(context.today, "days").days);
  return [...dates].sort((a, b) => distance(a) - distance(b));
}

function validDates(parts: [number, number, number][]): string[] {
  return parts
    .map(([year, month, day]) => DateTime.fromObject({ year, month, day }, { zone: "UTC" }))
    .filter((date) => date.isValid)
    .map(isoDate);
}

function isoDate(date: DateTime): string {
  return date.toISODate() ?? "";
}
