/**
 * Quantifiers and free time over the calendar and task lists: "X is your only meeting", "no other events",
 * "you're free all afternoon", "nothing until noon", "the rest of the day is clear", and the remainder of a
 * shortened list ("and 46 more"). Checked against the events of the day spoken of (all-day events do not
 * take time, but they count as events) and against the lists' true counts.
 */
import { addDays, mentionedItems, PART_RANGES } from "./binding.ts";
import { findDayReferences } from "./days.ts";
import type { Facts, ItemFact, ListFact } from "./facts.ts";
import type { Mask } from "./mask.ts";
import { findTimes } from "./times.ts";
import type { Evidence, FoundClaim, GroundingOptions } from "./types.ts";
import { ANY_WEATHER_WORD } from "./weather-lexicon.ts";
import { CLOCK_WORD_PATTERN, clockHour, NUMBER_WORD_PATTERN, numberWordValue } from "./words.ts";

const EVENT_NOUN = String.raw`(?:events?|meetings?|appointments?|calls?|commitments?|things?\s+(?:on|in)\s+(?:your|the)\s+(?:calendar|diary|schedule|agenda)|plans?)`;
const TASK_NOUN = String.raw`(?:tasks?|to-?dos?|deadlines?|errands?)`;

interface Window {
  from: string;
  to: string;
}

type Quantity =
  | { kind: "only"; family: "event" | "task"; scope: string | undefined }
  | { kind: "no_other"; family: "event" | "task"; scope: string | undefined }
  | { kind: "free"; window: Window | undefined; anchor: string | undefined; rest: boolean }
  | { kind: "more"; value: number; family: "event" | "task" | undefined }
  /** "two meetings this morning", "one call tomorrow": the events of that part of day (or day), counted. */
  | { kind: "count"; value: number }
  /** "All your meetings are in the morning", "both calls are before 3pm": every event inside the window. */
  | { kind: "all"; window: Window | undefined; anchor: string | undefined }
  /** "The gym is the last thing today", "the standup is your first meeting": the item's place in the day. */
  | { kind: "order"; which: "first" | "last" }
  /** "your morning is back-to-back", "a packed afternoon": at least `least` events in the part of day. */
  | { kind: "busy"; window: Window; least: number };

const ONLY = new RegExp(
  String.raw`\b(?:(?:your|the)\s+(?:only|sole|lone|one\s+and\s+only)\s+(?:(?:real|other|scheduled|timed|proper|fixed)\s+)?(${EVENT_NOUN}|${TASK_NOUN}|one|thing)|(?:just|only)\s+(?:one|a\s+single|1)\s+(${EVENT_NOUN}|${TASK_NOUN})|\ba\s+single\s+(${EVENT_NOUN}|${TASK_NOUN})|only\s+(?:have|has|got)\s+(?:one|a\s+single|1)\s+(${EVENT_NOUN}|${TASK_NOUN}|thing))\b`,
  "giu",
);
/** "The standup is all that's on this morning", "the market is all you have": the one event of its window. */
const ALL_THERE_IS =
  /\b(?:is|['’]s|are)\s+(?:all|everything)\s+(?:that['’]s\s+(?:on|booked|planned|scheduled)|(?:that\s+)?you\s+(?:have|['’]ve\s+got|have\s+got)|there\s+is|on\s+(?:your|the)\s+(?:calendar|schedule|diary|agenda))\b/giu;
const NO_OTHER = new RegExp(
  String.raw`\b(?:no\s+other|no\s+more|no\s+further|no\s+additional|not\s+any\s+other)\s+(?:(?:real|scheduled|timed|open)\s+)?(${EVENT_NOUN}|${TASK_NOUN})\b|\bnothing\s+else\s+(?:is\s+)?(?:on\s+(?:your|the)\s+(?:calendar|schedule|diary|agenda)|on(?=\s+(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening))\b|\s*[.,;!?]|\s*$)|scheduled|booked|planned|(due))\b|\bthat['’]s\s+(?:it|all|everything)\s+(?:on|for)\s+(?:your|the)\s+(?:calendar|schedule|diary|agenda|day)\b|\b(?:the|your)\s+(?:calendar|schedule|diary|agenda)\s+is\s+otherwise\s+(?:empty|clear|free)\b`,
  "giu",
);
/** Busy words and how many events each needs in its part of the day: "busy" one, "packed" two. */
const BUSY_WORDS: Record<string, number> = {
  busy: 1,
  booked: 1,
  full: 2,
  packed: 2,
  "jam-packed": 2,
  hectic: 2,
  "back-to-back": 2,
  stacked: 2,
  "booked up": 2,
  "booked solid": 2,
  "fully booked": 2,
  swamped: 2,
  slammed: 2,
};
const BUSY_WORD = Object.keys(BUSY_WORDS)
  .sort((a, b) => b.length - a.length)
  .map((word) => word.replace(/\s/gu, "\\s+"))
  .join("|");
const BUSY = new RegExp(
  String.raw`\b(?:your|the)\s+(?:whole\s+|entire\s+)?(day|morning|afternoon|evening)\s+(?:is|looks|will\s+be|['’]s|seems)\s+(?:pretty\s+|really\s+|very\s+|totally\s+|quite\s+|completely\s+|fully\s+|entirely\s+)?(${BUSY_WORD})\b|\b(?:a|an)\s+(?:really\s+|very\s+|pretty\s+)?(${BUSY_WORD})\s+(day|morning|afternoon|evening)\b|\b(?:you['’]re|you\s+are)\s+(?:pretty\s+|really\s+)?(${BUSY_WORD})\b(?:\s+(?:this|all)\s+(morning|afternoon|evening|day))?`,
  "giu",
);
/** "the afternoon has nothing in it", "your morning holds nothing": free time over that part. */
const PART_HAS_NOTHING =
  /\b(?:the|your)\s+(day|morning|afternoon|evening)\s+(?:has|holds|contains)\s+(?:nothing|no\s+(?:meetings|events|plans|calls))\b/giu;
/** "nothing tonight", "no plans tonight": free time over the evening. */
const NOTHING_TONIGHT =
  /\b(?:nothing|no\s+(?:other\s+)?(?:plans|meetings|events))\s+(?:else\s+)?(?:on\s+|booked\s+|planned\s+|scheduled\s+)?tonight\b/giu;

/** A bare "nothing", judged only where its clause sets a window ("after the gym, nothing else"). */
const BARE_NOTHING = /\b(?:nothing(?:\s+else)?(?:\s+at\s+all)?|no\s+other\s+plans)\b/giu;
const PART = String.raw`(day|morning|afternoon|evening)`;
const FREE_WORD = String.raw`(?:free|clear|open|empty|unbooked|meeting-free|yours|wide\s+open)`;
const FREE = new RegExp(
  String.raw`\bfree\s+(?:all|the\s+whole|the\s+entire|for\s+the\s+rest\s+of\s+the|for\s+the\s+rest\s+of\s+your|for\s+the|for\s+the\s+whole)\s+${PART}\b|\b(?:your|the|this|today['’]s|tomorrow['’]s)\s+(?:whole\s+|entire\s+)?(rest\s+of\s+(?:the|your)\s+)?${PART}\s+(?:is|looks|stays|seems|remains|['’]s)\s+(?:completely\s+|totally\s+|entirely\s+|pretty\s+|all\s+)?${FREE_WORD}\b|\b(?:an?)\s+(?:completely\s+|totally\s+|wide\s+)?(?:free|clear|open|empty|meeting-free|quiet)\s+${PART}\b|\bnothing\s+(?:on\s+|booked\s+|scheduled\s+|planned\s+)?(?:this|in\s+the|for\s+the)\s+(morning|afternoon|evening)\b|\b(?:nothing(?:['’]s)?(?:\s+else)?|no\s+(?:other\s+|more\s+)?(?:meetings|events|calls|appointments|plans)|free|clear|open|empty|quiet)\s+(?:(?:is\s+)?(?:on\s+(?:your|the)\s+(?:calendar|schedule|diary|agenda)|scheduled|booked|planned|on)\s+)?(until|till|til|before|after|up\s+to|between|from)\s+([^,.;!?]{1,40})|\b(?:you['’]re|you\s+are)\s+(?:completely\s+|totally\s+)?free\s+(?:from\s+then\s+on|for\s+the\s+rest\s+of\s+the\s+day|afterwards|after\s+that)\b|\b(rest\s+of\s+(?:the|your)\s+day)\s+(?:is|looks)\s+${FREE_WORD}`,
  "giu",
);
/** "Tomorrow is completely free", "tonight looks clear": free time over that day (or evening). */
const FREE_DAY = new RegExp(
  String.raw`\b(today|tomorrow|tonight)\s+(?:is|looks|stays|seems|remains|['’]s)\s+(?:completely\s+|totally\s+|entirely\s+|pretty\s+|all\s+|wide\s+)?${FREE_WORD}\b`,
  "giu",
);
/** "Between the call and the sync, your diary is empty": free time over the window its clause sets. */
const CALENDAR_FREE =
  /\b(?:your|the)\s+(?:calendar|diary|schedule|agenda)\s+(?:is|looks|stays|seems|['’]s)\s+(?:completely\s+|totally\s+|entirely\s+)?(?:empty|clear|free|blank|open)\b/giu;
/**
 * Counts of events in a part of a day or on another day: "two meetings this morning", "three calls
 * tomorrow". A count of today's whole list is the number check's (numbers.ts).
 */
const PART_COUNT = new RegExp(
  String.raw`\b(\d{1,2}|${NUMBER_WORD_PATTERN})\s+(?:(?:scheduled|separate|different|booked|timed)\s+)?(${EVENT_NOUN})\b`,
  "giu",
);

const ALL_IN = new RegExp(
  String.raw`\b(?:all|both|each|every\s+one)\s+(?:of\s+)?(?:your|today['’]s|tomorrow['’]s|the|these|those)?\s*(?:${EVENT_NOUN})(?:\s+(?:today|tomorrow))?\s+(?:is|are|fall|falls|happen|happens|come|comes|sit|sits|take\s+place|land|lands|will\s+be|['’]re)\s+(?:(?:in\s+the|this|tomorrow)\s+(morning|afternoon|evening)|(before|after|by|until)\s+([^,.;!?]{1,30}))`,
  "giu",
);
const ORDER = new RegExp(
  String.raw`\b(?:your|the)\s+(first|last|final|earliest|latest)\s+(?:${EVENT_NOUN}|thing|one|item)\b`,
  "giu",
);

const MORE = new RegExp(
  String.raw`\b(?:and|plus|with)\s+(\d{1,4}|${NUMBER_WORD_PATTERN})\s+(?:more|others|other)\b(?:\s+(${EVENT_NOUN}|${TASK_NOUN}|items?))?|\b(\d{1,4})\s+more\s+(${EVENT_NOUN}|${TASK_NOUN}|items?)\b`,
  "giu",
);

export function findQuantityClaims(
  sentence: string,
  mask: Mask,
  evidence: Evidence,
  options: GroundingOptions,
  prior: string,
): FoundClaim[] {
  const { facts } = evidence;
  if (!facts.localDate) return [];
  const found: Array<{ start: number; end: number; text: string; quantity: Quantity }> = [];
  const scope = scopeWords(sentence);
  for (const match of sentence.matchAll(ONLY)) {
    const noun = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? "").toLowerCase();
    // "Apart from the offsite, the dinner is the only other thing": nothing beyond what the sentence names.
    const kind = /\bother\b/iu.test(match[0]) ? "no_other" : "only";
    found.push({ ...span(match), quantity: { kind, family: familyOf(noun, sentence), scope } });
  }
  for (const match of sentence.matchAll(ALL_THERE_IS)) {
    found.push({ ...span(match), quantity: { kind: "only", family: familyOf("event", sentence), scope } });
  }
  for (const match of sentence.matchAll(NO_OTHER)) {
    // "nothing else booked before the gym" is free time up to the gym: the free-time reading takes it.
    if (
      /^\s+(?:until|till|til|before|after|up\s+to)\b/iu.test(
        sentence.slice((match.index ?? 0) + match[0].length),
      )
    )
      continue;
    const noun = (match[1] ?? (match[2] ? "task" : "event")).toLowerCase();
    found.push({ ...span(match), quantity: { kind: "no_other", family: familyOf(noun, sentence), scope } });
  }
  for (const match of sentence.matchAll(BUSY)) {
    const word = (match[2] ?? match[3] ?? match[5] ?? "").toLowerCase().replace(/\s+/gu, " ");
    const part = (match[1] ?? match[4] ?? match[6] ?? "day").toLowerCase();
    found.push({
      ...span(match),
      quantity: {
        kind: "busy",
        window: partWindow(part),
        // "completely booked" says more than "booked": more than one event.
        least: Math.max(
          BUSY_WORDS[word] ?? 1,
          /\b(?:completely|fully|totally|entirely)\b/iu.test(match[0]) ? 2 : 1,
        ),
      },
    });
  }
  for (const match of sentence.matchAll(PART_HAS_NOTHING)) {
    const part = (match[1] ?? "day").toLowerCase();
    found.push({
      ...span(match),
      quantity: { kind: "free", window: partWindow(part), anchor: undefined, rest: false },
    });
  }
  for (const match of sentence.matchAll(NOTHING_TONIGHT)) {
    found.push({
      ...span(match),
      quantity: { kind: "free", window: partWindow("evening"), anchor: undefined, rest: false },
    });
  }
  for (const match of sentence.matchAll(BARE_NOTHING)) {
    // "Between the standup and the gym, you have nothing else": a bare "nothing" speaks of its clause's window.
    const start = match.index ?? 0;
    const after = sentence.slice(start + match[0].length);
    if (
      /^\s+(?:until|till|til|before|after|up\s+to|between|due|overdue|to|new|changed|has|have|had)\b/iu.test(
        after,
      )
    )
      continue;
    if (!anchoredWindow(sentence.slice(0, start), facts)) continue;
    found.push({ ...span(match), quantity: { kind: "no_other", family: "event", scope } });
  }
  for (const match of sentence.matchAll(FREE)) {
    // "A chilly, clear morning" describes the weather: a weather word in the same phrase makes "clear" its word.
    if (
      /^an?\s/iu.test(match[0]) &&
      ANY_WEATHER_WORD.test(
        sentence
          .slice(Math.max(0, (match.index ?? 0) - 24), match.index ?? 0)
          .split(/[.;:!?]|\band\s+then\b/u)
          .at(-1) ?? "",
      )
    )
      continue;
    const part = (match[1] ?? match[3] ?? match[4] ?? match[5] ?? "").toLowerCase();
    const rest = !!match[2] || !!match[8] || /free\s+for\s+the\s+rest|rest\s+of/iu.test(match[0]);
    const direction = match[6]?.toLowerCase();
    // "open from 9 to 11" is a shop's hours, "clearing from noon" the sky's: only "free/nothing from" is free time.
    if (
      direction === "from" &&
      (!/^(?:free|nothing|clear)\b/iu.test(match[0]) || ANY_WEATHER_WORD.test(sentence))
    )
      continue;
    const tail = /^\s*(?:,\s*)?(until|till|before|up\s+to|after)\s+([^,.;!?]{1,40})/iu.exec(
      sentence.slice((match.index ?? 0) + match[0].length),
    );
    if (!direction && tail && part) {
      // "Your evening is free until the team dinner": the part up to (or from) the time it names.
      const window = partWindow(part);
      const anchor = `${/after/iu.test(tail[1] ?? "") ? "after" : "until"}:${tail[2] ?? ""}`;
      found.push({ ...span(match), quantity: { kind: "free", window, anchor, rest } });
      continue;
    }
    const quantity: Quantity = direction
      ? {
          kind: "free",
          window: undefined,
          anchor: `${direction === "after" || direction === "between" || direction === "from" ? direction : "until"}:${match[7] ?? ""}`,
          rest: false,
        }
      : /from\s+then\s+on|afterwards|after\s+that/iu.test(match[0])
        ? { kind: "free", window: undefined, anchor: "after:that", rest: true }
        : { kind: "free", window: partWindow(part || "day"), anchor: undefined, rest };
    found.push({ ...span(match), quantity });
  }
  for (const match of sentence.matchAll(ALL_IN)) {
    const part = match[1]?.toLowerCase();
    const direction = match[2]?.toLowerCase();
    found.push({
      ...span(match),
      quantity: {
        kind: "all",
        window: part ? partWindow(part) : undefined,
        anchor: direction ? `${direction === "after" ? "after" : "until"}:${match[3] ?? ""}` : undefined,
      },
    });
  }
  for (const match of sentence.matchAll(ORDER)) {
    const word = (match[1] ?? "").toLowerCase();
    const which = word === "first" || word === "earliest" ? "first" : "last";
    // "Your first task" orders a list that has no order in time: only events are judged.
    if (/\b(?:tasks?|to-?dos?)\b/iu.test(match[0])) continue;
    found.push({ ...span(match), quantity: { kind: "order", which } });
  }
  for (const match of sentence.matchAll(FREE_DAY)) {
    const part = match[1]?.toLowerCase() === "tonight" ? "evening" : "day";
    found.push({
      ...span(match),
      quantity: { kind: "free", window: partWindow(part), anchor: undefined, rest: false },
    });
  }
  for (const match of sentence.matchAll(CALENDAR_FREE)) {
    // Without a window of its clause ("between…", "after…") it is the absence claim's: the whole day empty.
    const before = sentence.slice(0, match.index ?? 0);
    if (!anchoredWindow(before, facts) && exemptEvents(before, facts).size === 0) continue;
    found.push({
      ...span(match),
      quantity: { kind: "free", window: partWindow("day"), anchor: undefined, rest: false },
    });
  }
  const spoken = spokenOf(sentence, facts.localDate);
  if (spoken.part || spoken.dates.some((date) => date !== facts.localDate)) {
    for (const match of sentence.matchAll(PART_COUNT)) {
      const raw = match[1] ?? "";
      const value = /^\d+$/u.test(raw) ? Number(raw) : numberWordValue(raw);
      if (value === null || /^\s+(?:more|others?|left)\b/iu.test(sentence.slice(span(match).end))) continue;
      if (/\b(?:and|plus)\s+$/iu.test(sentence.slice(0, match.index ?? 0))) continue;
      found.push({ ...span(match), quantity: { kind: "count", value } });
    }
  }
  for (const match of sentence.matchAll(MORE)) {
    const raw = match[1] ?? match[3] ?? "";
    const value = /^\d+$/.test(raw) ? Number(raw) : numberWordValue(raw);
    if (value === null) continue;
    const noun = (match[2] ?? match[4] ?? "").toLowerCase();
    found.push({
      ...span(match),
      quantity: { kind: "more", value, family: noun ? familyOf(noun, sentence) : undefined },
    });
  }

  const claims: FoundClaim[] = [];
  for (const entry of found) {
    if (!mask.isFree(entry.start, entry.end)) continue;
    // "Nothing until noon" is one claim; "free until the 3pm call" also says there is a call at 3pm.
    const target =
      entry.quantity.kind === "free" ? (entry.quantity.anchor?.split(":").slice(1).join(":") ?? "") : "";
    const bareTime =
      /^\s*(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?|noon|midday|midnight|lunch(?:time)?|[a-z]+(?:\s+o['’]clock)?)\s*$/iu.test(
        target,
      );
    const at = target && !bareTime ? entry.text.lastIndexOf(target.trim()) : -1;
    mask.take(entry.start, at > 0 ? entry.start + at : entry.end);
    const verdict = judge(entry.quantity, sentence, entry, facts, options, prior);
    claims.push({
      kind: "quantity",
      text: entry.text,
      normalized: `${entry.quantity.kind}`,
      start: entry.start,
      end: entry.end,
      isBacked: () => verdict.backed,
      reason: () => verdict.why,
    });
  }
  return claims;
}

function span(match: RegExpMatchArray): { start: number; end: number; text: string } {
  const start = match.index ?? 0;
  return { start, end: start + match[0].length, text: match[0].trim() };
}

function familyOf(noun: string, sentence: string): "event" | "task" {
  if (new RegExp(`^${TASK_NOUN}$`, "iu").test(noun)) return "task";
  if (/^(?:one|thing)$/u.test(noun) && /\b(?:tasks?|due|overdue|to-?do)\b/iu.test(sentence)) return "task";
  return "event";
}

function scopeWords(sentence: string): string | undefined {
  if (/\boverdue\b/iu.test(sentence)) return "overdue";
  if (/\bhigh[- ]priority|urgent\b/iu.test(sentence)) return "high_priority";
  if (/\bdue\b/iu.test(sentence)) return "due_today";
  return undefined;
}

function partWindow(part: string): Window {
  if (part === "day") return { from: "06:00", to: "23:00" };
  const [from, to] = PART_RANGES[part as keyof typeof PART_RANGES] ?? ["06:00", "23:00"];
  // Judged strictly inside the part: "free all afternoon" with a 12:00–12:30 lunch is false.
  return part === "morning"
    ? { from: "06:00", to: "12:00" }
    : part === "afternoon"
      ? { from: "12:00", to: "17:30" }
      : part === "evening"
        ? { from: "17:30", to: "23:00" }
        : { from, to };
}

interface Verdict {
  backed: boolean;
  why: string;
}

function judge(
  quantity: Quantity,
  sentence: string,
  at: { start: number; end: number },
  facts: Facts,
  options: GroundingOptions,
  prior: string,
): Verdict {
  const day = daySpokenOf(sentence, facts.localDate);
  switch (quantity.kind) {
    case "only":
    case "no_other": {
      if (quantity.family === "task") return taskQuantity(quantity, facts, sentence, prior);
      const spoken = spokenOf(sentence, facts.localDate);
      const events = eventsSpokenOf(spoken, facts);
      if (events === undefined)
        return { backed: false, why: `no receipt lists the events of ${spoken.dates.join(", ")}` };
      const named = namedItems(
        `${prior} ${sentence}`,
        facts,
        (item) => item.family === "event" && item.date === day,
      );
      const window =
        quantity.kind === "no_other" ? anchoredWindow(sentence.slice(0, at.start), facts) : undefined;
      if (window) {
        // "Once the gym is done at 7pm, nothing else is planned": nothing else inside the anchors' window.
        const exempt = exemptEvents(sentence, facts);
        const inside = events.filter(
          (event) =>
            !event.allDay &&
            event.start !== undefined &&
            !exempt.has(event.title) &&
            event.start >= window.from &&
            event.start < window.to,
        );
        return {
          backed: inside.length === 0,
          why: `${inside.map((event) => `"${event.title}" at ${event.start}`).join(", ")} falls between ${window.from} and ${window.to}`,
        };
      }
      const limit = quantity.kind === "only" ? 1 : Math.max(1, named);
      const backed = quantity.kind === "only" ? events.length === 1 : events.length <= limit;
      return {
        backed,
        why: `${spoken.dates.join(" and ")}${spoken.part ? ` (${spoken.part})` : ""} has ${events.length} event${events.length === 1 ? "" : "s"}: ${events.map((event) => event.title).join(", ")}`,
      };
    }
    case "free": {
      const events = eventsOn(facts, day);
      if (events === undefined) return { backed: false, why: `no receipt lists the events of ${day}` };
      const window = freeWindow(quantity, sentence, at, facts, options, day);
      if (window === undefined) return { backed: true, why: "" };
      const exempt = exemptEvents(sentence, facts);
      const busy = events.filter(
        (event) =>
          !event.allDay &&
          event.start !== undefined &&
          !exempt.has(event.title) &&
          event.start < window.to &&
          (event.end ?? event.start) > window.from,
      );
      return {
        backed: busy.length === 0,
        why: `${busy.map((event) => `"${event.title}" at ${event.start}`).join(", ")} falls between ${window.from} and ${window.to}`,
      };
    }
    case "more":
      return moreBacked(quantity, facts, `${prior} ${sentence}`);
    case "all": {
      const events = eventsOn(facts, day);
      if (events === undefined) return { backed: false, why: `no receipt lists the events of ${day}` };
      let window = quantity.window;
      if (quantity.anchor) {
        const [direction, target] = splitAnchor(quantity.anchor);
        const time = anchorTime(target, facts, direction === "after" ? "after" : "until");
        if (time === undefined) return { backed: true, why: "" };
        window = direction === "after" ? { from: time, to: "23:59" } : { from: "00:00", to: time };
      }
      if (!window) return { backed: true, why: "" };
      const inside = (event: ItemFact) =>
        event.start !== undefined &&
        (quantity.anchor?.startsWith("until:")
          ? event.start < window.to
          : event.start >= window.from && event.start < window.to);
      const outside = events.filter((event) => !event.allDay && !inside(event));
      return {
        backed: outside.length === 0 && events.some((event) => !event.allDay),
        why: `${outside.map((event) => `"${event.title}" at ${event.start}`).join(", ") || "no timed event"} is outside ${window.from}–${window.to}`,
      };
    }
    case "order": {
      const events = eventsOn(facts, day);
      if (events === undefined) return { backed: false, why: `no receipt lists the events of ${day}` };
      const spoken = spokenOf(sentence, facts.localDate);
      const inPart = spoken.part ? partWindow(spoken.part) : undefined;
      const timed = events
        .filter(
          (event) =>
            event.start !== undefined &&
            !event.allDay &&
            (!inPart || (event.start < inPart.to && (event.end ?? event.start) > inPart.from)),
        )
        .sort((a, b) => (a.start ?? "").localeCompare(b.start ?? ""));
      const named = mentionedItems(sentence, facts)
        .filter((mention) => mention.item.family === "event" && mention.score >= 0.5)
        .map((mention) => mention.item.title);
      // Nothing named: "your first meeting is at 9:30" is the time check's.
      if (named.length === 0) return { backed: true, why: "" };
      const actual = quantity.which === "first" ? timed[0] : timed.at(-1);
      return {
        backed: actual !== undefined && named.includes(actual.title),
        why: `the ${quantity.which} event ${spoken.part ? `this ${spoken.part}` : `on ${day}`} is ${actual ? `"${actual.title}" at ${actual.start}` : "none"}`,
      };
    }
    case "count": {
      const spoken = spokenOf(sentence, facts.localDate);
      const events = eventsSpokenOf(spoken, facts);
      if (events === undefined)
        return { backed: false, why: `no receipt lists the events of ${spoken.dates.join(", ")}` };
      return {
        backed: events.length === quantity.value,
        why: `${spoken.dates.join(" and ")}${spoken.part ? ` (${spoken.part})` : ""} has ${events.length} event${events.length === 1 ? "" : "s"}${events.length > 0 ? `: ${events.map((event) => event.title).join(", ")}` : ""}`,
      };
    }
    case "busy": {
      const events = eventsOn(facts, day);
      if (events === undefined) return { backed: false, why: `no receipt lists the events of ${day}` };
      const { window, least } = quantity;
      const inside = events.filter(
        (event) =>
          (event.allDay && window.from === "06:00" && window.to === "23:00") ||
          (event.start !== undefined && event.start < window.to && (event.end ?? event.start) > window.from),
      );
      return {
        backed: inside.length >= least,
        why: `${inside.length} event${inside.length === 1 ? "" : "s"} between ${window.from} and ${window.to}${inside.length > 0 ? `: ${inside.map((event) => event.title).join(", ")}` : ""}`,
      };
    }
  }
}

function taskQuantity(
  quantity: Extract<Quantity, { kind: "only" | "no_other" }>,
  facts: Facts,
  sentence: string,
  prior: string,
): Verdict {
  const lists = facts.lists.filter(
    (list) => list.family === "task" && (quantity.scope === undefined || list.scope === quantity.scope),
  );
  if (lists.length === 0) return { backed: false, why: "no receipt lists those tasks" };
  const named = namedItems(`${prior} ${sentence}`, facts, (item) => item.family === "task");
  const backed = lists.some((list) =>
    quantity.kind === "only" ? list.count === 1 : list.count <= Math.max(1, named),
  );
  return {
    backed,
    why: lists
      .map((list) => `${list.count} ${list.scope.replace(/_/g, " ")} task${list.count === 1 ? "" : "s"}`)
      .join(", "),
  };
}

/** The window a free-time claim speaks of, from its part of day, its "until X" / "after X", and now. */
function freeWindow(
  quantity: Extract<Quantity, { kind: "free" }>,
  sentence: string,
  at: { start: number; end: number },
  facts: Facts,
  options: GroundingOptions,
  day: string,
): Window | undefined {
  const now = day === facts.localDate ? options.localTime : undefined;
  if (quantity.window && quantity.anchor) {
    const [direction, target] = splitAnchor(quantity.anchor);
    const time = anchorTime(target, facts, direction === "after" ? "after" : "until");
    if (time === undefined) return undefined;
    return direction === "after"
      ? { from: time, to: quantity.window.to }
      : { from: quantity.window.from, to: time };
  }
  if (quantity.window) {
    const from = quantity.rest && now && now > quantity.window.from ? now : quantity.window.from;
    // "After the standup, the rest of the day is clear": the day starts when the standup ends; "before the
    // standup, your morning is free" ends it when the standup starts.
    const anchored = anchoredWindow(sentence.slice(0, at.start), facts);
    return {
      from: anchored && anchored.from > from ? anchored.from : from,
      to: anchored && anchored.to < quantity.window.to ? anchored.to : quantity.window.to,
    };
  }
  const [direction, target] = splitAnchor(quantity.anchor ?? "");
  if (target === "that") {
    const after = anchorTime(sentence.slice(0, at.start), facts, "after");
    return after ? { from: after, to: "23:00" } : undefined;
  }
  if (direction === "between") return anchoredWindow(`between ${target}`, facts);
  if (direction === "from") {
    // "free from noon until five"; "free from four" alone runs to the end of the day.
    const range = anchoredWindow(`from ${target}`, facts);
    if (range) return range;
    const from = anchorTime(target, facts, "after");
    return from ? { from, to: "23:00" } : undefined;
  }
  const time = anchorTime(target, facts, direction === "after" ? "after" : "until");
  if (time === undefined) return undefined;
  if (direction === "after") return { from: time, to: "23:00" };
  // "After the standup, nothing until lunch": the clause's own anchor starts the window, else now does.
  const since = anchoredWindow(sentence.slice(0, at.start), facts)?.from;
  const from = since && since !== "00:00" ? since : (now ?? "06:00");
  return { from, to: time };
}

/** "until:the 1:1 this afternoon" → ["until", "the 1:1 this afternoon"]: the target may hold colons itself. */
function splitAnchor(anchor: string): [string, string] {
  const at = anchor.indexOf(":");
  return at < 0 ? [anchor, ""] : [anchor.slice(0, at), anchor.slice(at + 1)];
}

const BARE_END = new RegExp(String.raw`\b(${CLOCK_WORD_PATTERN})\b\s*$`, "iu");
const BARE_START = new RegExp(String.raw`^\s*(${CLOCK_WORD_PATTERN})\b`, "iu");

/** A clock time the text ends at or starts from: a time written, or a named event's end (or start). */
function anchorTime(text: string, facts: Facts, direction: "after" | "until"): string | undefined {
  const times = findTimes(text);
  const last = times.at(-1);
  if (last) return daytime(last.readings);
  // A bare hour, in figures or words ("until 3", "from four"): the reading in waking hours.
  const bare = BARE_END.exec(text.trim()) ?? BARE_START.exec(text);
  const hour = bare ? (clockHour(bare[1] ?? "") ?? Number(bare[1])) : Number.NaN;
  if (Number.isInteger(hour) && hour >= 0 && hour <= 23) {
    const padded = (value: number) => `${String(value).padStart(2, "0")}:00`;
    return daytime(hour >= 1 && hour <= 12 ? [padded(hour), padded((hour + 12) % 24)] : [padded(hour)]);
  }
  const events = mentionedItems(text, facts).filter((mention) => mention.item.family === "event");
  const event = events.at(-1)?.item;
  if (!event?.start) return undefined;
  return direction === "after" ? (event.end ?? event.start) : event.start;
}

/**
 * The window a clause's anchors set before a claim: "once the gym is done at 7pm" (from 19:00), "after the
 * Acme call" (from its end), "before lunch" (until its start), "between the market and dinner" (from the one's
 * end to the other's start). Undefined when the clause sets none, or names nothing with a time.
 */
function anchoredWindow(clause: string, facts: Facts): Window | undefined {
  // "Once the review ends at 3, you have nothing else on": the clause's subject is not part of its anchor.
  const text = clause.replace(TRAILING_SUBJECT, "");
  const between = /\bbetween\s+(.+?)\s+(?:and|&)\s+(.+?)[\s,]*$/iu.exec(text);
  if (between) {
    const from = anchorTime(between[1] ?? "", facts, "after");
    const to = anchorTime(between[2] ?? "", facts, "until");
    // An end earlier than the start is on another day ("between the market and tomorrow's run"): to midnight.
    return from && to ? { from, to: to > from ? to : "23:59" } : undefined;
  }
  const range = /\bfrom\s+(.+?)\s+(?:until|till|to)\s+(.+?)[\s,]*$/iu.exec(text);
  if (range) {
    const from = anchorTime(range[1] ?? "", facts, "after");
    const to = anchorTime(range[2] ?? "", facts, "until");
    return from && to ? { from, to: to > from ? to : "23:59" } : undefined;
  }
  const after = /\b(?:after|once|following|when|past|beyond)\s+([^,;]+?)[\s,]*$/iu.exec(text);
  if (after) {
    const from = anchorTime(after[1] ?? "", facts, "after");
    return from ? { from, to: "23:59" } : undefined;
  }
  const before = /\b(?:before|until|till|up\s+to)\s+([^,;]+?)[\s,]*$/iu.exec(text);
  if (before) {
    const to = anchorTime(before[1] ?? "", facts, "until");
    return to ? { from: "00:00", to } : undefined;
  }
  return undefined;
}

const TRAILING_SUBJECT =
  /[\s,]*(?:and\s+)?(?:then\s+)?(?:you(?:['’]ve|\s+have)?(?:\s+got)?|you['’]re|you\s+are|there(?:['’]s|\s+is|\s+are)|it['’]s)\s*$/iu;

/** Of the readings of a clock time, the one in waking hours: "until 3" is 15:00, "until 10" 10:00. */
function daytime(readings: readonly string[]): string {
  if (readings.length === 1) return readings[0] ?? "12:00";
  const hour = Number(readings[0]?.slice(0, 2));
  // "until 3" is 15:00, "until 10" 10:00; 7 is morning or evening alike, and the morning reading is kept.
  if (hour >= 1 && hour <= 6) return readings[1] ?? readings[0] ?? "12:00";
  return readings[0] ?? "12:00";
}

/** Events the sentence itself sets aside: "apart from the standup, your morning is free". */
function exemptEvents(sentence: string, facts: Facts): Set<string> {
  if (
    !/\b(?:apart\s+from|besides|except|other\s+than|aside\s+from|beyond|outside\s+(?:of\s+)?|after|once|bar)\b/iu.test(
      sentence,
    )
  )
    return new Set();
  return new Set(
    mentionedItems(sentence, facts)
      .filter((mention) => mention.item.family === "event")
      .map((mention) => mention.item.title),
  );
}

/** The events of a day, or undefined when no receipt looked at that day's calendar. */
/**
 * The events of the days and part of day a sentence speaks of: "your only meeting this afternoon" counts
 * the afternoon's, "this weekend" both days'. Undefined when a day spoken of has no events receipt.
 */
function eventsSpokenOf(
  spoken: { dates: string[]; part: string | undefined },
  facts: Facts,
): ItemFact[] | undefined {
  const looked = spoken.dates.map((date) => eventsOn(facts, date));
  if (looked.some((list) => list === undefined)) return undefined;
  const inPart = spoken.part ? partWindow(spoken.part) : undefined;
  return looked
    .flatMap((list) => list ?? [])
    .filter(
      (event) =>
        !inPart ||
        (!event.allDay &&
          event.start !== undefined &&
          event.start < inPart.to &&
          (event.end ?? event.start) > inPart.from),
    );
}

function eventsOn(facts: Facts, day: string): ItemFact[] | undefined {
  const looked =
    (day === facts.localDate && facts.eventsLooked.has("today")) ||
    (day === addDays(facts.localDate, 1) && facts.eventsLooked.has("tomorrow")) ||
    facts.eventsLooked.has("upcoming");
  if (!looked) return undefined;
  const seen = new Set<string>();
  return facts.items.filter((item) => {
    if (item.family !== "event" || item.removed || item.status === "cancelled") return false;
    const last = item.lastDate ?? item.date;
    if (item.date === undefined || item.date > day || (last ?? item.date) < day) return false;
    const key = `${item.title}@${item.start ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The days a sentence speaks of (its first day reference, else today) and the part of day it names. */
function spokenOf(sentence: string, today: string): { dates: string[]; part: string | undefined } {
  const reference = findDayReferences(sentence, today)[0];
  const bare = /\b(?:the|your|this)\s+(morning|afternoon|evening)\b/iu.exec(sentence)?.[1]?.toLowerCase();
  const part =
    reference?.part === "night" ? "evening" : reference?.part === undefined ? bare : reference.part;
  return { dates: reference && reference.dates.length > 0 ? reference.dates : [today], part };
}

function daySpokenOf(sentence: string, today: string): string {
  const references = findDayReferences(sentence, today).filter((reference) => reference.dates.length === 1);
  return references[0]?.dates[0] ?? today;
}

function namedItems(text: string, facts: Facts, accept: (item: ItemFact) => boolean): number {
  return new Set(
    mentionedItems(text, facts)
      // Named means by most of its title: "Kitchen: order tiles", not every kitchen task at the word "kitchen".
      .filter((mention) => accept(mention.item) && mention.score >= 0.5)
      .map((mention) => mention.item.title),
  ).size;
}

/** "and 46 more": the true count less what the text (or the shortened receipt) shows. */
function moreBacked(quantity: Extract<Quantity, { kind: "more" }>, facts: Facts, text: string): Verdict {
  const lists = facts.lists.filter(
    (list) => (quantity.family === undefined || list.family === quantity.family) && list.count > 0,
  );
  const fits = (list: ListFact): boolean => {
    const named = namedItems(text, facts, (item) => item.receiptId === list.receiptId);
    return [list.count - list.shown, list.count - named].includes(quantity.value) && quantity.value > 0;
  };
  return {
    backed: lists.some(fits),
    why:
      lists.map((list) => `${list.count} ${list.family}s in ${list.scope.replace(/_/g, " ")}`).join(", ") ||
      "no list",
  };
}
