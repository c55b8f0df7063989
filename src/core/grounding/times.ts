import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import { CLOCK_WORD_PATTERN, clockHour } from "./words.ts";

/** A clock time written in text; `readings` are the "HH:MM" values it may mean, the first one normalized. */
export interface TimeMention {
  start: number;
  end: number;
  text: string;
  readings: string[];
}

const MERIDIEM = String.raw`(?:\s*([ap])(?:\.m\.|\.?\s?m\b))`;
const CUE = `(?:at|from|until|till|til|by|before|after|around|about|between|to|and|or|starts?|ends?)`;

const PATTERNS: { pattern: RegExp; read: (match: RegExpExecArray) => string[] | null }[] = [
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
    // "half past ten", "quarter to three"
    pattern: new RegExp(String.raw`\b(half|quarter)\s+(past|to)\s+(${CLOCK_WORD_PATTERN})\b`, "giu"),
    read: (match) => {
      const hour = clockHour(match[3] ?? "");
      if (hour === null) return null;
      const minutes = match[1]?.toLowerCase() === "half" ? 30 : 15;
      return match[2]?.toLowerCase() === "past"
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
];

/** All clock times in a text, earliest first, never two over the same characters. */
export function findTimes(text: string): TimeMention[] {
  const found: TimeMention[] = [];
  for (const { pattern, read } of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const values = read(match as RegExpExecArray);
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (values === null || found.some((other) => other.start < end && start < other.end)) continue;
      found.push({ start, end, text: match[0].trim(), readings: values });
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
export function findTimeClaims(sentence: string, mask: Mask): FoundClaim[] {
  const claims: FoundClaim[] = [];
  const add = (mention: TimeMention): void => {
    if (!mask.take(mention.start, mention.end)) return;
    const accepted = mention.readings;
    claims.push({
      kind: "time",
      text: mention.text,
      normalized: accepted[0] ?? "",
      start: mention.start,
      end: mention.end,
      isBacked: (evidence: Evidence) => accepted.some((reading) => evidence.times.has(reading)),
    });
  };
  for (const mention of findTimes(sentence)) add(mention);
  const weather = WEATHER_HINT.test(sentence);
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

/** "at 10", "wraps up by 10.": an hour after a time word, where the sentence ends or moves on. */
const BARE_HOUR =
  /\b(?:at|by|until|till|before|after|from|around)\s+(\d{1,2})(?=\s*(?:$|[.,;:!?)—–-](?!\d)|(?:today|tomorrow|tonight|this|and|or|with|then|so|but|sharp|latest|at|in|on|for)\b))/giu;

// "peaking at 16" is a temperature: leave bare hours of weather sentences to the number finder.
const WEATHER_HINT = /°|\bdegrees?\b|\b(?:highs?|lows?|peak\w*|temperatures?|temps?|forecast|weather)\b/iu;
