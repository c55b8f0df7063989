import { mentionedItems, nearestItems } from "./binding.ts";
import type { ItemFact } from "./facts.ts";
import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import { CLOCK_WORD_PATTERN, clockHour } from "./words.ts";

/** A clock time written in text; `readings` are the "HH:MM" values it may mean, the first one normalized. */
export interface TimeMention {
  start: number;
  end: number;
  text: string;
  readings: string[];
  /** A bare hour that only its range makes a time ("from 2 to 3"): in a weather sentence it is a temperature. */
  bare?: boolean;
}

/** Minutes as a clock is read aloud: "five past", "twenty-five to", "half past", "quarter to". */
const MINUTE_WORDS: Record<string, number> = {
  five: 5,
  ten: 10,
  quarter: 15,
  "a quarter": 15,
  twenty: 20,
  "twenty-five": 25,
  "twenty five": 25,
  half: 30,
};
const MINUTE_WORD_PATTERN = Object.keys(MINUTE_WORDS)
  .sort((a, b) => b.length - a.length)
  .map((word) => word.replace(/\s/gu, "\\s+"))
  .join("|");

function minuteValue(text: string): number | null {
  const lower = text.toLowerCase().replace(/\s+/gu, " ");
  const value = MINUTE_WORDS[lower] ?? (/^\d{1,2}$/u.test(lower) ? Number(lower) : undefined);
  return value !== undefined && value > 0 && value < 60 ? value : null;
}

const MERIDIEM = String.raw`(?:\s*([ap])(?:\.m\.|\.?\s?m\b))`;
const CUE = `(?:at|from|until|till|til|by|before|after|around|about|between|to|and|or|starts?|ends?)`;

const PATTERNS: { pattern: RegExp; read: (match: RegExpExecArray) => string[] | null; bare?: boolean }[] = [
  {
    // "10:30", "10:30 AM", "2:30 pm", "09:30:00"
    pattern: new RegExp(String.raw`(?<![\d:.])(\d{1,2}):([0-5]\d)(?::[0-5]\d)?(?![\d:])${MERIDIEM}?`, "giu"),
    read: (match) => readings(Number(match[1]), Number(match[2]), match[3]),
  },
  {
    // "10.30am", and "at 10.30" — a bare "16.1" is a number, so a dot needs am/pm or a cue word.
    pattern: new RegExp(
      String.raw`(?<![\d.])(?:(?<=\b${CUE}\s+)(\d{1,2})\.([0-5]\d)(?![\d.]\d)${MERIDIEM}?|(\d{1,2})\.([0-5]\d)${MERIDIEM})`,
      "giu",
    ),
    read: (match) =>
      match[1] !== undefined
        ? readings(Number(match[1]), Number(match[2]), match[3])
        : readings(Number(match[4]), Number(match[5]), match[6]),
  },
  {
    // "10am", "2 pm", "7 a.m."
    pattern: new RegExp(String.raw`(?<![\d:.])(\d{1,2})${MERIDIEM}`, "giu"),
    read: (match) => readings(Number(match[1]), 0, match[2]),
  },
  {
    // "at noon", "by midday", "12 noon" — but not "the midday check-in", which names a briefing slot.
    pattern:
      /(?:(?<=\b(?:at|by|until|till|before|after|around|about|from|to|past|since|and)\s+(?:around\s+|about\s+)?)|\b12\s+)(noon|midday|midnight)\b(?!\s*-?\s*(?:check|briefing|update|slot|summary|report|digest))/giu,
    read: (match) => (match[1]?.toLowerCase() === "midnight" ? ["00:00"] : ["12:00"]),
  },
  {
    // "half past ten", "quarter to three", "ten past nine", "twenty-five to four", "5 past 6"
    pattern: new RegExp(
      String.raw`\b(${MINUTE_WORD_PATTERN}|\d{1,2})(?:\s+minutes?)?\s+(past|to|after|before)\s+(${CLOCK_WORD_PATTERN})\b(?!\s*(?:°|degrees?|%|minutes?|hours?|days?|weeks?|people|tasks?|events?|meetings?|items?))`,
      "giu",
    ),
    read: (match) => {
      const hour = clockHour(match[3] ?? "");
      const minutes = minuteValue(match[1] ?? "");
      if (hour === null || minutes === null) return null;
      // "from ten to twelve", "5 to 6" are ranges of hours; only quarter and half "to" are always minutes.
      const before = (match.input ?? "").slice(0, match.index ?? 0);
      const ambiguous = !/^(?:a\s+)?(?:quarter|half)$/iu.test(match[1] ?? "");
      if (
        /to|before/iu.test(match[2] ?? "") &&
        ambiguous &&
        (/^\d/u.test(match[1] ?? "") ||
          /\b(?:from|between|runs?|running|open|opens|lasts?|is)\s+$/iu.test(before))
      )
        return null;
      return /past|after/iu.test(match[2] ?? "")
        ? readings(hour, minutes, undefined)
        : readings(hour === 1 ? 12 : hour - 1, 60 - minutes, undefined);
    },
  },
  {
    // "ten o'clock"
    pattern: new RegExp(String.raw`\b(${CLOCK_WORD_PATTERN})\s+o['’]clock\b`, "giu"),
    read: (match) => {
      const hour = clockHour(match[1] ?? "");
      return hour === null ? null : readings(hour, 0, undefined);
    },
  },
  {
    // "from 11 to noon", "11–12:30", "between 2 and 3pm": bare hours that a range makes times.
    pattern: new RegExp(
      String.raw`(?<![\d:.])\b(?:(?<=\b(?:from|between|runs|run|running|is|at)\s+))(\d{1,2}|${CLOCK_WORD_PATTERN})(?=\s*(?:-|–|—|to|until|till|and)\s*(?:\d{1,2}(?::[0-5]\d)?(?:\s*[ap]\.?m\.?)?|noon|midday|${CLOCK_WORD_PATTERN})\b(?![:.]?\d)(?!\s*(?:°|º|degrees?|%|percent|C\b|F\b)))`,
      "giu",
    ),
    read: (match) => {
      const hour = clockHour(match[1] ?? "") ?? (Number(match[1]) <= 23 ? Number(match[1]) : null);
      return hour === null ? null : readings(hour, 0, undefined);
    },
    bare: true,
  },
  {
    // the other end of such a range: "from 2 to 3", "from nine to eleven"
    pattern: new RegExp(
      String.raw`(?<=\b(?:from|between|runs|run|running|is|at)\s+(?:\d{1,2}(?::[0-5]\d)?|${CLOCK_WORD_PATTERN})\s*(?:-|–|—|to|until|till|and)\s*)(\d{1,2}|${CLOCK_WORD_PATTERN})\b(?![:.]\d|\s*(?:°|º|degrees?|%|percent|[ap]\.?m\b|C\b|F\b))`,
      "giu",
    ),
    read: (match) => {
      const hour = clockHour(match[1] ?? "") ?? (Number(match[1]) <= 23 ? Number(match[1]) : null);
      return hour === null ? null : readings(hour, 0, undefined);
    },
    bare: true,
  },
  {
    // "at eleven", "until two", "by ten": an hour in words after a time word.
    pattern: new RegExp(
      String.raw`(?<=\b(?:at|until|till|by|before|after|from|to|around|about)\s+)(${CLOCK_WORD_PATTERN.replace("|\\d{1,2}", "")})(?:[\s-]+(thirty|fifteen|forty-five))?\b(?!\s+(?:of|minutes?|hours?|days?|weeks?|people|tasks?|events?|meetings?|items?|more|others?|things?|point|stage|go|end|side|another|way|place|time|of\s+them))`,
      "giu",
    ),
    read: (match) => {
      const hour = clockHour(match[1] ?? "");
      const minutes = { thirty: 30, fifteen: 15, "forty-five": 45 }[(match[2] ?? "").toLowerCase()] ?? 0;
      return hour === null ? null : readings(hour, minutes, undefined);
    },
  },
  {
    // "half ten" (British for 10:30)
    pattern: new RegExp(String.raw`\bhalf\s+(${CLOCK_WORD_PATTERN})\b(?!\s+(?:hours?|days?|an?))`, "giu"),
    read: (match) => {
      const hour = clockHour(match[1] ?? "");
      return hour === null ? null : readings(hour, 30, undefined);
    },
  },
  {
    // "noon", "midnight" wherever they stand, but not "the midday check-in", which names a briefing slot.
    pattern: /\b(noon|midnight)\b(?!\s*-?\s*(?:check|briefing|update|slot|summary|report|digest))/giu,
    read: (match) => (match[1]?.toLowerCase() === "midnight" ? ["00:00", "23:59"] : ["12:00"]),
  },
];

/** All clock times in a text, earliest first, never two over the same characters. */
export function findTimes(text: string): TimeMention[] {
  const found: TimeMention[] = [];
  for (const { pattern, read, bare } of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const values = read(match as RegExpExecArray);
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (values === null || found.some((other) => other.start < end && start < other.end)) continue;
      found.push({ start, end, text: match[0].trim(), readings: values, ...(bare ? { bare } : {}) });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** With am/pm a time means one thing; without, "2:30" may be 02:30 or 14:30 and "12:15" 12:15 or 00:15. */
function readings(hour: number, minute: number, meridiem: string | undefined): string[] | null {
  if (minute > 59) return null;
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return null;
    const hour24 = (hour % 12) + (meridiem.toLowerCase() === "p" ? 12 : 0);
    return [clock(hour24, minute)];
  }
  if (hour > 23) return null;
  if (hour >= 1 && hour <= 12) return [clock(hour, minute), clock((hour + 12) % 24, minute)];
  return [clock(hour, minute)];
}

function clock(hour: number, minute: number): string {
  return `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
}

const EVENT_NOUNS =
  /\b(?:meeting|call|appointment|standup|stand-up|huddle|sync|lunch|dinner|breakfast|coffee|interview|session|class|event|demo|review|catch-up|catchup|1:1|one-on-one)s?\b/i;

/**
 * Time claims of one sentence. A bare "at 10" only counts beside an event noun ("a call at 10"),
 * because "peaking at 16" is a temperature.
 */
export function findTimeClaims(sentence: string, mask: Mask, evidence?: Evidence): FoundClaim[] {
  const claims: FoundClaim[] = [];
  const weather = WEATHER_HINT.test(sentence);
  const mentions = evidence ? mentionedItems(sentence, evidence.facts) : [];
  const add = (mention: TimeMention): void => {
    if (mention.bare && weather && !EVENT_NOUNS.test(sentence)) return;
    if (!mask.take(mention.start, mention.end)) return;
    const accepted = mention.readings;
    // "The standup starts at half past ten": a time said of a named item must be one of that item's.
    const before = sentence.slice(Math.max(0, mention.start - 40), mention.start);
    const end = sentence.slice(0, mention.start);
    // "X is at 3" names its start; an end needs its own words ("until", "wraps up", "is over by").
    // "Moved to 3pm" names the new start, and only it.
    const movedTo = MOVED_TO.test(end);
    const which: Which =
      movedTo ||
      /\b(?:starts?|starting|begins?|beginning|kicks?\s+off|from|(?:is|are|['’]s)\s+(?:still\s+|now\s+)?at)\s+(?:at\s+)?$/iu.test(
        end,
      )
        ? "start"
        : /\b(?:ends?|ending|finish(?:es)?|finishing|wraps?\s+up|wrapping\s+up|until|till|over|done|out|runs\s+until)\s+(?:at\s+|by\s+)?$/iu.test(
              end,
            )
          ? "end"
          : "any";
    // A moved event's old time is its time only where the sentence speaks of the move ("moved from 11").
    const moved =
      !movedTo &&
      /\b(?:from|was|were|originally|previously|had\s+been|moved|rescheduled|earlier|used\s+to|instead\s+of|rather\s+than)\b/iu.test(
        before,
      );
    const timesOf = (item: ItemFact) => itemTimes(item, which, moved);
    const timed = (item: ItemFact) => itemTimes(item, "any", true).length > 0;
    // "the farmers market from 9 and dinner at 7": a time right after an item (a cue word between) is its.
    const adjacent = mentions.filter(
      (found) =>
        found.end <= mention.start &&
        timed(found.item) &&
        ADJACENT_CUE.test(sentence.slice(found.end, mention.start)),
    );
    const bound =
      adjacent.length > 0 ? adjacent : nearestItems(mentions, sentence, mention.start, mention.end, timed);
    // "From four until the gym": a time at one end of a range whose other end is an item is not that item's.
    const rangeToItem = /^\s*(?:until|till|to|and)\s+(?:the|your)\b/iu.test(sentence.slice(mention.end));
    const own = rangeToItem ? [] : bound.flatMap((found) => timesOf(found.item));
    claims.push({
      kind: "time",
      text: mention.text,
      normalized: accepted[0] ?? "",
      start: mention.start,
      end: mention.end,
      isBacked: (found: Evidence) =>
        own.length > 0
          ? accepted.some((reading) => own.includes(reading))
          : accepted.some((reading) => found.times.has(reading)),
      ...(own.length > 0
        ? {
            reason: () => `"${bound[0]?.item.title ?? ""}" is at ${[...new Set(own)].join(", ")}`,
            backedBy: bound.find((found) => timesOf(found.item).some((time) => accepted.includes(time)))?.item
              .receiptId,
          }
        : {}),
    });
  };
  for (const mention of findTimes(sentence)) add(mention);
  // With its unit written elsewhere ("16 degrees at 3"), a bare "at 3" in a weather sentence is an hour.
  const unitWritten = /°|\bdegrees?\b/iu.test(sentence);
  const eventful = EVENT_NOUNS.test(sentence);
  for (const match of sentence.matchAll(BARE_HOUR)) {
    const hourText = match[1] ?? "";
    const values = readings(Number(hourText), 0, undefined);
    if (values === null || Number(hourText) === 0) continue;
    const start = (match.index ?? 0) + match[0].length - hourText.length;
    if (weather && !unitWritten) continue;
    if (eventful && !weather) add({ start, end: start + hourText.length, text: hourText, readings: values });
    // Otherwise "by 10" is an hour nobody claimed an event for: not a number to check.
    else mask.take(start, start + hourText.length);
  }
  return claims;
}

const MOVED_TO =
  /\b(?:moved|pushed(?:\s+back|\s+out)?|rescheduled|shifted|changed|bumped|brought\s+forward|postponed|delayed)\s+(?:back\s+)?(?:from\s+[^,;]{1,24}?\s+)?(?:to|till|until|for)\s+(?:at\s+)?$/iu;
/** What may stand between an item and its time: "the market from 9", "the standup at 9:30", "lunch, 12:30". */
const ADJACENT_CUE = /^(?:['’]s)?\s*(?:,\s*)?(?:(?:is\s+|starts\s+|begins\s+|runs\s+)?(?:at|from)\s+)?$/iu;

/** "at 10", "wraps up by 10.": an hour after a time word, where the sentence ends or moves on. */
const BARE_HOUR =
  /\b(?:at|by|until|till|before|after|from|around)\s+(\d{1,2})(?=\s*(?:$|[.,;:!?)—–-](?!\d)|(?:today|tomorrow|tonight|this|and|or|with|then|so|but|sharp|latest|at|in|on|for)\b))/giu;

// "peaking at 16" is a temperature: leave bare hours of weather sentences to the number finder.
const WEATHER_HINT = /°|\bdegrees?\b|\b(?:highs?|lows?|peak\w*|temperatures?|temps?|forecast|weather)\b/iu;

/** Which of an item's times a sentence speaks of: "starts at" its start, "ends at" its end, else either. */
type Which = "start" | "end" | "any";

/** The clock times an item holds: its start and end, a moved event's old start, a task's due time. */
function itemTimes(item: ItemFact, which: Which, moved: boolean): string[] {
  const old = moved ? item.movedFrom?.slice(11, 16) : undefined;
  const times =
    which === "start"
      ? [item.start, old]
      : which === "end"
        ? [item.end ?? item.start, old]
        : [item.start, item.end, old];
  return times.filter((time): time is string => !!time && /^\d{2}:\d{2}$/.test(time));
}
