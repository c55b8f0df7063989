/**
 * Which receipt items a sentence speaks of, and where: a claim of a day, a state or a happening is checked
 * against the item named nearest to it in its clause ("the standup is tomorrow" → the standup's date).
 */
import { DateTime } from "luxon";
import type { Facts, ItemFact } from "./facts.ts";
import { isCalendarWord, isGeneric, isStopword, stem, stemsMatch, tokenize } from "./words.ts";

export interface ItemMention {
  item: ItemFact;
  start: number;
  end: number;
  /** Share of the item's title stems the sentence holds. */
  score: number;
  /** How many of them. */
  hits: number;
}

/** A title's words that can name it: all but stopwords and lone digits ("Design review" → design, review). */
function bindingStems(title: string): string[] {
  const stems = tokenize(title)
    .filter((word) => !isStopword(word) && !/^\d$/.test(word) && !isCalendarWord(word))
    .map(stem);
  // "1:1 with Priya": a short compound of digits names the item ("the 1:1") though its digits alone do not.
  for (const compound of title.match(COMPOUND) ?? []) stems.push(compound);
  return [...new Set(stems)];
}

const COMPOUND = /(?<![\d:])\d{1,2}[:/-]\d{1,2}(?![\d:])/gu;
/** A number that counts or measures ("61 tasks", "16 degrees") names no item, even one titled "item 61". */
const COUNTED =
  /^\s*(?:%|°|tasks?|events?|meetings?|items?|things?|more|others|of\s+them|degrees?|minutes?|hours?)\b/iu;

/**
 * A clock time as prose writes it ("14:30", "2.30pm", "2 pm"): its digits name no item, or "at 14:30" would
 * bind to "Back-to-back meeting 14" and be checked against that meeting's times instead of the task's.
 */
const CLOCK_TIME = /(?<![\d:.])\d{1,2}(?::[0-5]\d(?::[0-5]\d)?(?![\d:])|(?:[.:][0-5]\d)?\s?[ap]\.?m\b)/giu;

interface Token {
  stem: string;
  start: number;
  end: number;
}

function tokens(sentence: string): Token[] {
  const clocks = [...sentence.matchAll(CLOCK_TIME)].map((match): [number, number] => [
    match.index ?? 0,
    (match.index ?? 0) + match[0].length,
  ]);
  const inClock = (start: number, end: number): boolean =>
    clocks.some(([from, to]) => from <= start && end <= to);
  const words = [...sentence.matchAll(/[\p{L}\p{N}]+/gu)]
    .filter((match) => {
      if (!/^\d+$/u.test(match[0])) return true;
      const start = match.index ?? 0;
      const end = start + match[0].length;
      return !COUNTED.test(sentence.slice(end)) && !inClock(start, end);
    })
    .map((match) => ({
      stem: stem(match[0].toLowerCase().replace(/['’]s$/u, "")),
      start: match.index ?? 0,
      end: (match.index ?? 0) + match[0].length,
    }));
  const compounds = [...sentence.matchAll(COMPOUND)]
    .filter((match) => !inClock(match.index ?? 0, (match.index ?? 0) + match[0].length))
    .map((match) => ({
      stem: match[0],
      start: match.index ?? 0,
      end: (match.index ?? 0) + match[0].length,
    }));
  return [...words, ...compounds];
}

/**
 * Every item the sentence names, by the stems of its title: one word of a two-word title ("the standup"
 * for "Team standup"), half of a longer one. Of items named by the same words, the best match wins.
 */
export function mentionedItems(sentence: string, facts: Facts): ItemMention[] {
  // Every finder of a sentence asks the same question of the same facts: answer it once.
  let known = MENTIONS.get(facts);
  if (!known) {
    known = new Map();
    MENTIONS.set(facts, known);
  }
  const cached = known.get(sentence);
  if (cached) return cached;
  const found = findMentions(sentence, facts);
  known.set(sentence, found);
  return found;
}

const MENTIONS = new WeakMap<Facts, Map<string, ItemMention[]>>();

function findMentions(sentence: string, facts: Facts): ItemMention[] {
  const words = tokens(sentence);
  const found: ItemMention[] = [];
  for (const item of facts.items) {
    const stems = bindingStems(item.title);
    if (stems.length === 0) continue;
    const hits = stems.flatMap((wanted) => {
      const token = words.find((word) => stemsMatch(word.stem, wanted));
      return token && (wanted.length >= 3 || /\d/.test(wanted) || stems.length === 1) ? [token] : [];
    });
    const needed = stems.length <= 2 ? 1 : Math.ceil(stems.length / 2);
    // One distinctive word names an item however long its title ("the Acme call", "the plumber").
    const distinctive = hits.some(
      (hit) => /\d/.test(hit.stem) || (hit.stem.length >= 4 && !isGeneric(hit.stem)),
    );
    if (hits.length < needed && !(hits.length > 0 && distinctive)) continue;
    // One short word of a long title is too weak to bind ("team" of "Team offsite planning").
    const lone = hits[0];
    if (hits.length === 1 && stems.length > 1 && lone && lone.stem.length < 4 && !/\d/.test(lone.stem))
      continue;
    if (numberedOtherwise(item.title, sentence)) continue;
    found.push({
      item,
      start: Math.min(...hits.map((hit) => hit.start)),
      end: Math.max(...hits.map((hit) => hit.end)),
      score: hits.length / stems.length,
      hits: hits.length,
    });
  }
  // Where two items are named by overlapping words, keep the better match (and its equals).
  return found.filter(
    (mention) =>
      !found.some(
        (other) =>
          other !== mention &&
          other.start <= mention.end &&
          mention.start <= other.end &&
          other.score > mention.score + 1e-9,
      ),
  );
}

/**
 * "Back-to-back meeting 3" said of a day of numbered meetings: a lone digit names nothing by itself, so every
 * "meeting 1" to "meeting 9" would be bound and share their times. A title's numbered word said with
 * another number ("meeting 3" for "Back-to-back meeting 7") is another item's name.
 */
function numberedOtherwise(title: string, sentence: string): boolean {
  for (const [, word, number] of title.matchAll(NUMBERED)) {
    if (!word || !number) continue;
    const said = [...sentence.matchAll(new RegExp(`\\b${word}\\s+#?(\\d{1,4})\\b(?![:.]\\d)`, "giu"))];
    if (said.length > 0 && said.every((match) => Number(match[1]) !== Number(number))) return true;
  }
  return false;
}

/** A word and the number that follows it in a title: "meeting 3", "Sprint 12", "Room #4". */
const NUMBERED = /(\p{L}{2,})\s+#?(\d{1,4})\b(?![:.]\d)/gu;

/** Clause boundaries: a semicolon, a dash, a colon, or a comma before a conjunction or a new subject. */
const CLAUSE_BREAK =
  /\s*(?:;|:\s|\s[—–-]\s|,\s*(?:and|but|while|whereas|then|so|plus|though|although|after which|which)\b|\b(?:but|while|whereas|and then|then)\b|,\s+(?=(?:your|the|you|there|it|tomorrow|today)\b))\s*/giu;

/** The [start, end) of the clause holding `at`. */
/** "… at 09:00 and "Renew passport" is due …": an "and" before a new subject starts a clause (case matters). */
const AND_BREAK = /\s+and\s+(?=(?:the|your|a|an|["“'‘]|\p{Lu}))/gu;

export function clauseAround(sentence: string, at: number): [number, number] {
  let start = 0;
  let end = sentence.length;
  const breaks = [...sentence.matchAll(CLAUSE_BREAK), ...sentence.matchAll(AND_BREAK)].sort(
    (a, b) => (a.index ?? 0) - (b.index ?? 0),
  );
  for (const match of breaks) {
    const from = match.index ?? 0;
    const to = from + match[0].length;
    if (to <= at) start = to;
    else if (from >= at) {
      end = from;
      break;
    }
  }
  return [start, end];
}

/** The items named nearest to a span within its clause (ties all returned), optionally of one family. */
export function nearestItems(
  mentions: readonly ItemMention[],
  sentence: string,
  start: number,
  end: number,
  accept: (item: ItemFact) => boolean = () => true,
): ItemMention[] {
  const [from, to] = clauseAround(sentence, start);
  // A title may itself hold a colon ("Kitchen: order tiles"): a mention that reaches into the clause counts.
  const inClause = mentions.filter(
    (mention) => mention.start < to && mention.end > from && accept(mention.item),
  );
  if (inClause.length === 0) return [];
  // Nearer wins, and a mention by more of its title's words counts as nearer ("the farmers market runs…").
  const distance = (mention: ItemMention): number =>
    (mention.end <= start ? start - mention.end : mention.start >= end ? mention.start - end : 0) /
    mention.hits;
  const best = Math.min(...inClause.map(distance));
  return inClause.filter((mention) => distance(mention) === best);
}

export type DayPart = "morning" | "afternoon" | "evening" | "night";

/** Local times each part of a day spans, generous at the edges: "this afternoon" for a 12:00 lunch is fair. */
export const PART_RANGES: Record<DayPart, [string, string]> = {
  morning: ["00:00", "12:30"],
  afternoon: ["11:30", "18:30"],
  evening: ["16:30", "23:59"],
  night: ["18:00", "23:59"],
};

export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: "UTC" }).plus({ days }).toISODate() ?? date;
}

export function weekdayOf(date: string): number {
  return DateTime.fromISO(date, { zone: "UTC" }).weekday;
}

/** The coming weekend's days (today's and tomorrow's on a Saturday, today's on a Sunday). */
export function weekendDays(today: string): string[] {
  const weekday = weekdayOf(today);
  if (weekday === 7) return [today];
  if (weekday === 6) return [today, addDays(today, 1)];
  const saturday = addDays(today, 6 - weekday);
  return [saturday, addDays(saturday, 1)];
}
