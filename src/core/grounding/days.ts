/**
 * Day references said of a named item: "the standup is tomorrow", "your dentist appointment on Thursday",
 * "the offsite this weekend", "Renew passport was due yesterday", "the review this afternoon". Checked
 * against the item's date (an event's day, all its days when it spans several; a task's due date) relative
 * to the run's local date. A task's day is checked only where the sentence speaks of its due date, since
 * "knock out the passport renewal today" is advice, not a claim about the task.
 */
import {
  addDays,
  type DayPart,
  type ItemMention,
  mentionedItems,
  nearestItems,
  PART_RANGES,
  weekdayOf,
  weekendDays,
} from "./binding.ts";
import { readDates } from "./dates.ts";
import type { ItemFact } from "./facts.ts";
import type { Evidence, FoundClaim } from "./types.ts";

export interface DayReference {
  start: number;
  end: number;
  text: string;
  /** The local dates it can mean. */
  dates: string[];
  part: DayPart | undefined;
  /** "tomorrow's review": the day belongs to the item right after it. */
  possessive: boolean;
}

const PART_WORD: Record<string, DayPart> = {
  morning: "morning",
  afternoon: "afternoon",
  evening: "evening",
  night: "night",
  tonight: "night",
  lunchtime: "afternoon",
};

/** Day words beyond the dates the date finder reads: today, tonight, parts of days, yesterday, weekends. */
const DAY_WORDS =
  /\b(?:(later\s+)?today|tonight|yesterday|(?:(this|tomorrow|yesterday|last|in\s+the)\s+)(morning|afternoon|evening|night|lunchtime)|(?:this|the|over\s+the|at\s+the|on\s+the)\s+weekend|weekend)(['’]s)?\b/giu;

const WEEK_WORDS = /\b(next|last|this|later\s+this)\s+week\b/giu;

/** Every day reference of a sentence, in reading order. */
export function findDayReferences(sentence: string, localDate: string): DayReference[] {
  const found: DayReference[] = [];
  // "in the morning" names no day of its own: "tomorrow's appointments are in the morning" is tomorrow's.
  const relative = new Set<number>();
  for (const match of sentence.matchAll(DAY_WORDS)) {
    const start = match.index ?? 0;
    const word = match[0].toLowerCase();
    const anchor = match[2]?.toLowerCase();
    const part = match[3]
      ? PART_WORD[match[3].toLowerCase()]
      : word.startsWith("tonight")
        ? "night"
        : undefined;
    const dates = /weekend/.test(word)
      ? weekendDays(localDate)
      : word.startsWith("yesterday") || anchor === "yesterday" || anchor === "last"
        ? [addDays(localDate, -1)]
        : anchor === "tomorrow"
          ? [addDays(localDate, 1)]
          : [localDate];
    found.push({ start, end: start + match[0].length, text: match[0], dates, part, possessive: !!match[4] });
    if (anchor === "in the") relative.add(start);
  }
  for (const match of sentence.matchAll(WEEK_WORDS)) {
    // "next week", "last week", "later this week": every day of that (ISO, Monday-first) week.
    const start = match.index ?? 0;
    const which = (match[1] ?? "").toLowerCase().replace(/\s+/gu, " ");
    const monday = addDays(localDate, 1 - weekdayOf(localDate));
    const first = which === "next" ? addDays(monday, 7) : which === "last" ? addDays(monday, -7) : monday;
    const dates = Array.from({ length: 7 }, (_, index) => addDays(first, index)).filter(
      (date) => which !== "later this" || date > localDate,
    );
    found.push({
      start,
      end: start + match[0].length,
      text: match[0],
      dates,
      part: undefined,
      possessive: false,
    });
  }
  for (const mention of readDates(sentence, localDate)) {
    if (found.some((other) => other.start < mention.end && mention.start < other.end)) continue;
    const after = sentence.slice(mention.end);
    const possessive = /^['’]s\b/u.test(after);
    // "tomorrow morning" is one reference: the part narrows the day.
    const partWord = /^\s+(morning|afternoon|evening|night)\b/iu.exec(after);
    found.push({
      start: mention.start,
      end: mention.end + (possessive ? 2 : 0) + (partWord?.[0].length ?? 0),
      text: mention.text,
      dates: mention.candidates,
      part: partWord ? PART_WORD[partWord[1]?.toLowerCase() ?? ""] : undefined,
      possessive,
    });
  }
  found.sort((a, b) => a.start - b.start);
  for (const reference of found) {
    if (!relative.has(reference.start)) continue;
    const other = found
      .filter((entry) => !relative.has(entry.start) && entry.dates.some((date) => date !== localDate))
      .sort((a, b) => Math.abs(a.start - reference.start) - Math.abs(b.start - reference.start))[0];
    if (other) reference.dates = [...other.dates];
  }
  return found;
}

/** Words before a day that make it relative ("before Friday", "since Monday") rather than the item's own day. */
const RELATIVE_BEFORE =
  /\b(?:before|after|until|till|since|from|ahead of|prior to|by|through|past)\s+(?:the\s+|this\s+|next\s+)?$/iu;
/** Advice about when to act: the day is the user's, not the item's ("prep for the review this afternoon"). */
const ADVICE =
  /\b(?:suggest|try|consider|maybe|perhaps|prep|prepare|use|spend|block|set aside|make sure|remember to|don['’]t forget to|you could|you might|worth|good time|good idea|plan to|aim to|start with|start on|tackle|knock out|get|finish|focus|book|grab|could|should|might want|want to|chance to|time to|work on|look at|review|chip away|carve out|schedule|fit in|squeeze)\b/iu;
/** A task's day is its due date only when the sentence says so. */
const DUE_CUE =
  /\b(?:due|deadline|overdue|expires?|expiring|was\s+due|were\s+due|is\s+due|are\s+due|due\s+date)\b/iu;

export function findDayClaims(sentence: string, evidence: Evidence): FoundClaim[] {
  const { facts } = evidence;
  if (!facts.localDate || facts.items.length === 0) return [];
  const mentions = mentionedItems(sentence, facts);
  if (mentions.length === 0) return [];
  const claims: FoundClaim[] = [];
  for (const reference of findDayReferences(sentence, facts.localDate)) {
    const bound = bind(sentence, reference, mentions);
    if (bound.length === 0) continue;
    const checks = bound.map((mention) => ({ mention, verdict: dayFits(mention.item, reference, sentence) }));
    const relevant = checks.filter((check) => check.verdict !== "unchecked");
    if (relevant.length === 0) continue;
    const backed = relevant.some((check) => check.verdict === "fits");
    const first = relevant[0]?.mention.item;
    claims.push({
      kind: "day",
      text: reference.text,
      normalized: `${first?.title ?? ""}@${reference.dates.join("|")}${reference.part ? `:${reference.part}` : ""}`,
      start: reference.start,
      end: reference.end,
      isBacked: () => backed,
      backedBy: relevant.find((check) => check.verdict === "fits")?.mention.item.receiptId,
      reason: () =>
        first ? `${describeDay(first, facts.localDate)}, not ${reference.text.toLowerCase()}` : "",
    });
  }
  return claims;
}

function bind(sentence: string, reference: DayReference, mentions: readonly ItemMention[]): ItemMention[] {
  const datable = (item: ItemFact) => item.family === "event" || item.family === "task";
  if (reference.possessive) {
    const next = mentions
      .filter((mention) => mention.start >= reference.end && datable(mention.item))
      .sort((a, b) => a.start - b.start)[0];
    if (next && /^[\s\p{L}\p{N}-]{0,30}$/u.test(sentence.slice(reference.end, next.start))) {
      return mentions.filter((mention) => mention.start === next.start && datable(mention.item));
    }
    return [];
  }
  if (RELATIVE_BEFORE.test(sentence.slice(0, reference.start))) {
    // "due by Friday" still names the due date; "after Friday" of an event does not.
    if (!/\bdue\s+(?:by|before|on)\s+(?:the\s+)?$/iu.test(sentence.slice(0, reference.start))) return [];
  }
  return nearestItems(mentions, sentence, reference.start, reference.end, datable);
}

type DayVerdict = "fits" | "wrong" | "unchecked";

function dayFits(item: ItemFact, reference: DayReference, sentence: string): DayVerdict {
  if (item.family === "task") {
    if (!DUE_CUE.test(sentence)) return "unchecked";
    if (reference.part) return "unchecked";
    if (item.status === "done") return "unchecked";
    return item.date !== undefined && reference.dates.includes(item.date) ? "fits" : "wrong";
  }
  const clauseStart = sentence.slice(0, reference.start);
  const todayish = reference.dates.length === 1 && !reference.text.match(/tomorrow|yesterday|weekend/i);
  if (todayish && ADVICE.test(clauseStart.slice(-60)) && !/\b(?:is|are|'s|’s)\s*$/iu.test(clauseStart)) {
    // "use this afternoon to prepare for the review": the part of the day is the user's time.
    if (reference.part || /today/i.test(reference.text)) return "unchecked";
  }
  if (item.date === undefined) return "unchecked";
  // "The offsite starts tomorrow" speaks of its first day; "it carries on tomorrow" of any of them.
  const starts = /\b(?:starts?|starting|begins?|beginning|kicks?\s+off|opens?)\s+(?:on\s+)?$/iu.test(
    clauseStart.slice(-30),
  );
  const ends =
    /\b(?:ends?|ending|finish(?:es)?|finishing|wraps?\s+up|closes?|runs?\s+(?:until|through)|lasts?\s+until)\s+(?:on\s+)?$/iu.test(
      clauseStart.slice(-30),
    );
  const days = starts ? [item.date] : ends ? [item.lastDate ?? item.date] : spanOf(item);
  if (!reference.dates.some((date) => days.includes(date))) return "wrong";
  // "The offsite is only today": every day of it must be one the sentence names.
  if (/\b(?:only|just)\s+$/iu.test(clauseStart) && !days.every((date) => reference.dates.includes(date)))
    return "wrong";
  if (reference.part === undefined || item.allDay || item.start === undefined) return "fits";
  const [from, to] = PART_RANGES[reference.part];
  const end = item.end ?? item.start;
  return item.start <= to && end >= from ? "fits" : "wrong";
}

/** An event's days: its date, through its last day when it spans several. */
function spanOf(item: ItemFact): string[] {
  if (!item.date) return [];
  if (!item.lastDate || item.lastDate <= item.date) return [item.date];
  const days: string[] = [];
  for (let day = item.date; day <= item.lastDate && days.length < 62; day = addDays(day, 1)) days.push(day);
  return days;
}

function describeDay(item: ItemFact, today: string): string {
  const noun = item.family === "task" ? `"${item.title}" is due` : `"${item.title}" is`;
  if (item.date === undefined)
    return item.family === "task" ? `"${item.title}" has no due date` : `"${item.title}" has no date`;
  const offset =
    item.date === today
      ? "today"
      : item.date === addDays(today, 1)
        ? "tomorrow"
        : item.date === addDays(today, -1)
          ? "yesterday"
          : `on ${item.date}`;
  return `${noun} ${offset}${item.start && item.family === "event" ? ` at ${item.start}` : ""}`;
}
