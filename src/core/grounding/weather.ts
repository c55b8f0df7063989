/**
 * Weather claims: conditions ("rain this afternoon", "a sunny day", "snow tomorrow"), hedged chances ("a
 * chance of showers"), dry spells, wind, temperature feels ("a warm afternoon") and rain chances ("a 10 %
 * chance of rain"), each checked against the forecast day the sentence speaks of (today unless it names
 * another day). The words and thresholds are the lexicon's (weather-lexicon.ts).
 */
import { addDays, mentionedItems } from "./binding.ts";
import { type DayReference, findDayReferences } from "./days.ts";
import type { ForecastDay } from "./facts.ts";
import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import {
  ANY_WEATHER_WORD,
  feelFits,
  WEATHER_THRESHOLDS,
  WEATHER_WORDS,
  type WeatherWordClaim,
} from "./weather-lexicon.ts";

const LEXICON = WEATHER_WORDS.map(([words, claim]) => ({
  claim,
  pattern: new RegExp(String.raw`\b(?:${words})\b`, "giu"),
}));

/** A sentence is about the weather when it names it or one of its words the lexicon reads unambiguously. */
const WEATHER_SENTENCE = new RegExp(
  String.raw`\b(?:weather|forecast|temperatures?|temps?|degrees?|highs?|lows?|wind\w*|skies|sky|outside|out\s+there|${WEATHER_WORDS.filter(
    ([, claim]) => claim.kind !== "feel" && claim.kind !== "cover",
  )
    .map(([words]) => words)
    .join("|")})\b|°`,
  "iu",
);
/** "weather" words that are other things in a schedule sentence. */
const NOT_WEATHER =
  /\b(?:clear|free|open|light|busy|heavy|packed)\s+(?:day|morning|afternoon|evening|calendar|schedule|diary)\b/iu;
const HEDGE =
  /\b(?:chance|chances|possible|possibly|might|may|could|risk|odd|stray|isolated|passing|spot|slight|just in case|in case|perhaps|maybe|potential|likely|expected|a few|threat)\b/iu;
const NEGATION =
  /\b(?:no|not|without|zero|won['’]t|isn['’]t|aren['’]t|free\s+of|little|unlikely|any)\s+(?:\w+\s+){0,2}$|\b(?:no\s+need\s+(?:for|of|to\s+(?:bring|take|pack|carry))|(?:don['’]t|do\s+not|won['’]t|will\s+not|shouldn['’]t|wouldn['’]t)\s+need|needn['’]t(?:\s+(?:bother\s+with|bring|take|pack))?|leave|ditch|skip)\s+(?:\w+\s+){0,2}$/iu;

/** A temperature feel ("chilly", "mild") is about the weather where the sentence speaks of a day or its air. */
const FEEL_WORDS = new RegExp(
  String.raw`\b(?:${WEATHER_WORDS.filter(([, claim]) => claim.kind === "feel" || claim.kind === "cover")
    .map(([words]) => words)
    .join("|")})\b`,
  "iu",
);
const FEEL_CONTEXT =
  /\b(?:day|morning|afternoon|evening|night|weather|temperatures?|start|out|outside|one|tomorrow|today|degrees?|high|low)\b|°/iu;

export function findWeatherClaims(sentence: string, mask: Mask, evidence: Evidence): FoundClaim[] {
  if (!WEATHER_SENTENCE.test(sentence) && !(FEEL_WORDS.test(sentence) && FEEL_CONTEXT.test(sentence)))
    return FEEL_CONTEXT.test(sentence) ? comparisonClaims(sentence, mask, evidence.facts.localDate) : [];
  const claims: FoundClaim[] = [];
  const days = daysSpokenOf(sentence, evidence.facts.localDate);
  const now = /\b(?:right now|currently|at the moment|this minute|already)\b/iu.test(sentence);
  // "Storm Bert heads for Wales" is a headline, and "Rain check with Sam" an event: their words are names.
  const named = mentionedItems(sentence, evidence.facts).filter((mention) => mention.item.family !== "task");
  claims.push(...rainChanceClaims(sentence, mask, days));
  claims.push(...comparisonClaims(sentence, mask, evidence.facts.localDate));
  // "A chilly, clear morning": beside another weather word, "clear" (or "bright") describes the sky.
  for (const match of sentence.matchAll(
    /\b(clear|bright)(?=\s+(?:day|morning|afternoon|evening|night|start)\b)/giu,
  )) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    const phrase =
      sentence
        .slice(Math.max(0, start - 24), start)
        .split(/[.;:!?]/u)
        .at(-1) ?? "";
    if (!ANY_WEATHER_WORD.test(phrase) || !mask.take(start, end)) continue;
    const wanted: Wanted = {
      kind: "condition",
      condition: match[1]?.toLowerCase() === "clear" ? "clear" : "sunny_spells",
    };
    claims.push({
      kind: "weather",
      text: match[0],
      normalized: `${describe(wanted)}@${days.join("|")}`,
      start,
      end,
      isBacked: (found) => backed(found, wanted, days, now),
      reason: (found) => reasonFor(found, wanted, days),
    });
  }
  for (const { claim, pattern } of LEXICON) {
    for (const match of sentence.matchAll(pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (!mask.isFree(start, end)) continue;
      if (named.some((mention) => mention.start <= start && end <= mention.end + 1)) continue;
      if (
        claim.kind === "condition" &&
        claim.condition === "clear" &&
        NOT_WEATHER.test(sentence.slice(start, end + 12))
      )
        continue;
      if ((claim.kind === "feel" || claim.kind === "cover") && !FEEL_CONTEXT.test(sentence)) continue;
      mask.take(start, end);
      const before = sentence.slice(Math.max(0, start - 30), start);
      const after = sentence.slice(end, end + 40);
      const negated =
        NEGATION.test(before) ||
        /\b(?:free|less)$/iu.test(match[0]) ||
        /^\s*(?:\w+\s+){0,2}?(?:unlikely|not\s+expected|isn['’]t\s+expected|holds?\s+off|stays?\s+away|won['’]t|not\s+likely)\b/iu.test(
          after,
        );
      const hedged = HEDGE.test(sentence);
      const low = LOW_CHANCE.test(before);
      const wanted: Wanted =
        low && claim.kind === "condition" && !negated
          ? { kind: "low_chance" }
          : resolve(claim, negated, hedged);
      // Each word is said of the day of its own part of the sentence: "light snow, clearing tomorrow".
      const at = daysAt(sentence, start, evidence.facts.localDate);
      const own = at?.dates ?? days;
      // "A washout tomorrow and Thursday" says it of each day named; "this weekend", of some day of it.
      const groups = at?.groups ?? [];
      claims.push({
        kind: "weather",
        text: match[0],
        normalized: `${describe(wanted)}@${own.join("|")}`,
        start,
        end,
        isBacked: (found) =>
          groups.length > 1
            ? groups.every((group) => backed(found, wanted, group, now))
            : backed(found, wanted, own, now),
        // The day that does not fit is the one to name.
        reason: (found) =>
          reasonFor(found, wanted, groups.find((group) => !backed(found, wanted, group, now)) ?? own),
      });
    }
  }
  return claims;
}

type Wanted =
  | WeatherWordClaim
  | { kind: "dry" }
  | { kind: "low_chance" }
  | { kind: "possible"; condition: "rain" | "snow" | "storm" };

/** "only a small chance of rain", "a slight risk of showers": a low chance, true of a dry-ish day. */
const LOW_CHANCE =
  /\b(?:small|slight|slim|low|tiny|little|remote|outside|minimal)\s+(?:chance|risk|probability|odds|possibility)\s+(?:of\s+)?(?:a\s+|any\s+|some\s+)?$/iu;

/** Where a sentence turns from one day's weather to another's: "light snow, clearing tomorrow". */
const TURN =
  /[,;:]\s*|\s+[—–-]\s+|\s+(?:then|turning|becoming|clearing|easing|followed\s+by|before|later|but|while)\s+/giu;

/**
 * The days the part of the sentence holding `at` speaks of: its own day words, else the last ones before it
 * ("Tomorrow brings rain, so take an umbrella"); undefined when the sentence names none at all.
 */
function daysAt(
  sentence: string,
  at: number,
  today: string,
): { dates: string[]; groups: string[][] } | undefined {
  if (!today) return undefined;
  const references = findDayReferences(sentence, today).filter((reference) =>
    reference.dates.some((date) => date >= addDays(today, -1)),
  );
  if (references.length === 0) return undefined;
  let from = 0;
  let to = sentence.length;
  for (const turn of sentence.matchAll(TURN)) {
    const index = turn.index ?? 0;
    if (index + turn[0].length <= at) from = index + turn[0].length;
    else if (index >= at) {
      to = index;
      break;
    }
  }
  const inPart = references.filter((reference) => reference.start < to && reference.end > from);
  const chosen =
    inPart.length > 0 ? inPart : references.filter((reference) => reference.end <= from).slice(-1);
  if (chosen.length === 0) return { dates: [today], groups: [] };
  const coordinated = chosen.every(
    (reference, index) =>
      index === 0 ||
      /^\s*(?:,|and|&|or|,\s*and)\s*(?:on\s+)?$/iu.test(
        sentence.slice(chosen[index - 1]?.end ?? 0, reference.start),
      ),
  );
  if (chosen.length > 1 && !coordinated) {
    // "Rain tomorrow and grey skies on Thursday": each word is said of the day named nearest it.
    const distance = (reference: DayReference) =>
      at < reference.start ? reference.start - at : Math.max(0, at - reference.end);
    const nearest = [...chosen].sort((a, b) => distance(a) - distance(b))[0];
    return { dates: nearest?.dates ?? [today], groups: [] };
  }
  const dates = [...new Set(chosen.flatMap((reference) => reference.dates))];
  // Each day named on its own must fit ("a washout tomorrow and Thursday"); the days of one reference ("this
  // weekend", "Thursday") need only one.
  const groups = chosen.map((reference) => reference.dates.filter((date) => date >= addDays(today, -1)));
  return { dates, groups };
}

function resolve(claim: WeatherWordClaim, negated: boolean, hedged: boolean): Wanted {
  if (claim.kind !== "condition") return claim;
  const wet = ["rain", "showers", "drizzle"].includes(claim.condition);
  if (negated && wet) return { kind: "dry" };
  if (negated) return { kind: "dry" };
  if (hedged && (wet || claim.condition === "snow" || claim.condition === "storm"))
    return { kind: "possible", condition: wet ? "rain" : (claim.condition as "snow" | "storm") };
  return claim;
}

function backed(evidence: Evidence, wanted: Wanted, days: readonly string[], now: boolean): boolean {
  const forecast = evidence.facts.forecast.filter((day) => days.includes(day.date));
  const readings = now && evidence.facts.now ? [evidence.facts.now] : [];
  if (forecast.length === 0 && readings.length === 0) return false;
  return (
    forecast.some((day) => fits(day, wanted)) ||
    readings.some((reading) =>
      wanted.kind === "condition" ? reading.conditions.has(wanted.condition) : false,
    )
  );
}

function fits(day: ForecastDay, wanted: Wanted): boolean {
  const t = WEATHER_THRESHOLDS;
  const chance = day.rainChance;
  switch (wanted.kind) {
    case "condition":
      return day.conditions.has(wanted.condition);
    case "dry":
      return !day.conditions.has("wet") && (chance === undefined || chance < t.dryBelowPercent);
    case "possible":
      return (
        day.conditions.has(wanted.condition) ||
        (wanted.condition === "rain" && chance !== undefined && chance >= t.rainPossiblePercent)
      );
    case "low_chance":
      return chance === undefined ? day.conditions.has("dry") : chance < t.lowChanceBelowPercent;
    case "possible_rain":
      return day.conditions.has("wet") || (chance !== undefined && chance >= t.rainPossiblePercent);
    case "wind":
      return day.wind !== undefined && day.wind >= t.windyKmh;
    case "feel":
      return feelFits(wanted.feel, day.low, day.high);
    case "cover":
      return (
        day.conditions.has("wet") ||
        (chance !== undefined && chance >= t.rainPossiblePercent) ||
        feelFits("cool", day.low, day.high)
      );
  }
}

const WARMER = /^(?:warmer|milder|hotter|balmier)$/iu;
const COMPARISON =
  /\b(warmer|milder|hotter|balmier|colder|cooler|chillier)\b(?:\s+than\s+(today|tomorrow|yesterday))?/giu;

/**
 * "Tomorrow will be warmer than today": the day spoken of against the one it is compared with ("than …", else
 * today), by their highs; with either day missing from the forecast the claim is unbacked. Today "colder" with
 * nothing named to compare is left alone.
 */
function comparisonClaims(sentence: string, mask: Mask, today: string): FoundClaim[] {
  const claims: FoundClaim[] = [];
  for (const match of sentence.matchAll(COMPARISON)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (!mask.isFree(start, end)) continue;
    const than = match[2]?.toLowerCase();
    const named = findDayReferences(sentence.slice(0, start) + sentence.slice(end), today)
      .flatMap((reference) => reference.dates)
      .filter((date) => date !== undefined);
    const day = named[0] ?? today;
    const offset = { today: 0, tomorrow: 1, yesterday: -1 }[than ?? ""];
    // "A colder day" with nothing to compare it with in the receipts is a feel, not a comparison to check.
    if (offset === undefined && day === today) continue;
    const base = offset !== undefined ? addDays(today, offset) : today;
    const warmer = WARMER.test(match[1] ?? "");
    mask.take(start, end);
    const highOf = (evidence: Evidence, date: string) =>
      evidence.facts.forecast.find((entry) => entry.date === date)?.high;
    claims.push({
      kind: "weather",
      text: match[0],
      normalized: `${warmer ? "warmer" : "colder"}:${day}>${base}`,
      start,
      end,
      isBacked: (evidence) => {
        const [a, b] = [highOf(evidence, day), highOf(evidence, base)];
        return a !== undefined && b !== undefined && (warmer ? a > b : a < b);
      },
      reason: (evidence) =>
        `the forecast gives a high of ${highOf(evidence, day) ?? "nothing"} on ${day} and ${highOf(evidence, base) ?? "nothing"} on ${base}`,
    });
  }
  return claims;
}

/** Rain chances written as a number ("a 10% chance of rain") or in words ("a slight chance of showers"). */
function rainChanceClaims(sentence: string, mask: Mask, days: readonly string[]): FoundClaim[] {
  const claims: FoundClaim[] = [];
  const percent =
    /(\d{1,3})\s*(?:%|percent\b|per\s+cent\b)\s*(?:chance|probability|risk|likelihood)?\s*(?:of\s+)?(?:rain|showers|precipitation|a\s+shower|drizzle|snow)?/giu;
  for (const match of sentence.matchAll(percent)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (!/rain|shower|precip|drizzle|snow|chance|probab/iu.test(sentence)) continue;
    mask.take(start, end);
    const value = Number(match[1]);
    claims.push({
      kind: "weather",
      text: match[0].trim(),
      normalized: `rain_chance:${value}@${days.join("|")}`,
      start,
      end,
      isBacked: (evidence) =>
        evidence.facts.forecast.some(
          (day) =>
            days.includes(day.date) && day.rainChance !== undefined && Math.abs(day.rainChance - value) <= 5,
        ),
      reason: (evidence) => reasonFor(evidence, { kind: "possible_rain" }, days),
    });
  }
  return claims;
}

/** The forecast days the sentence speaks of: the days it names, else today. */
function daysSpokenOf(sentence: string, today: string): string[] {
  if (!today) return [];
  const named = findDayReferences(sentence, today).flatMap((reference) => reference.dates);
  const days = named.filter((date) => date >= addDays(today, -1));
  return days.length > 0 ? [...new Set(days)] : [today];
}

function describe(wanted: Wanted): string {
  switch (wanted.kind) {
    case "condition":
      return wanted.condition;
    case "possible":
      return `possible_${wanted.condition}`;
    case "feel":
      return wanted.feel;
    default:
      return wanted.kind;
  }
}

function reasonFor(evidence: Evidence, wanted: Wanted, days: readonly string[]): string {
  const day = evidence.facts.forecast.find((entry) => days.includes(entry.date));
  if (!day) return `no forecast for ${days.join(" or ")}`;
  if (wanted.kind === "wind") return `the forecast for ${day.date} gives no wind`;
  const parts = [
    [...day.conditions].filter((c) => c !== "wet" && c !== "dry").join("/") || "no conditions",
    day.low !== undefined && day.high !== undefined ? `${day.low}–${day.high}°C` : "",
    day.rainChance !== undefined ? `${day.rainChance}% chance of rain` : "",
  ].filter(Boolean);
  return `the forecast for ${day.date} says ${parts.join(", ")}`;
}
