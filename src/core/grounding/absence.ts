/**
 * Claims of absence and coverage: "nothing on your calendar today", "no overdue tasks", "weather
 * unavailable", "I don't have any calendar information". They are claims like any other, checked against
 * the receipts of their kind: a receipt that lists something contradicts "none", a successful one
 * contradicts "unavailable", and only an errored (or absent) one backs "unavailable".
 */
import type { Coverage, Family } from "./coverage.ts";
import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";

/** "today", "tomorrow", "upcoming" for events; a `list_tasks` filter for tasks. */
export type Scope = string | undefined;

interface Absence {
  family: Family;
  /** empty: the data was looked at and there is none; unavailable: it could not be looked at. */
  claim: "empty" | "unavailable";
  scope: Scope;
}

const NOUNS: Record<Family, string> = {
  events: String.raw`events?|meetings?|appointments?|calls?|calendar(?:\s+(?:events?|entries|items))?|plans|commitments`,
  tasks: "tasks?|to-?dos?|deadlines?|errands?|reminders?",
  weather: String.raw`weather(?:\s+(?:report|forecast|data|information|info|update))?|forecast`,
  news: "news|headlines?|articles?|stories|feed items?",
  projects: "projects?",
  notes: "notes?",
};
const FAMILIES = Object.keys(NOUNS) as Family[];
const ANY_NOUN = FAMILIES.map((family) => NOUNS[family]).join("|");
const FAMILY_NOUN = FAMILIES.map((family) => ({
  family,
  pattern: new RegExp(String.raw`\b(?:${NOUNS[family]})\b`, "iu"),
}));

/** Words between "no" and the noun that keep it an absence claim: "no overdue tasks", "no scheduled events". */
const QUALIFIER = String.raw`(?:(?:new|open|scheduled|upcoming|pending|overdue|urgent|outstanding|planned|fresh|recent|calendar|high[- ]priority)\s+)*`;
/** "no more meetings", "no other tasks": some exist, so this says nothing checkable about the list. */
const PARTIAL_BEFORE = /\b(?:other|more|further|additional|else|big|major|important|real)\s*$/iu;
/** "no meetings until 14:00", "no tasks except…": an absence over part of the list. */
const PARTIAL_AFTER =
  /^\s*(?:\S+\s+){0,3}?(?:until|till|before|after|between|except|besides|apart from|other than|but|beyond|left)\b/iu;

/** A clause that sets a window or sets items aside before an absence: "between X and Y, …", "apart from X, …". */
const WINDOW_BEFORE =
  /\b(?:between|after|once|following|before|until|till|apart\s+from|aside\s+from|besides|except|other\s+than|beyond|outside)\b[^.;:!?]*$/iu;

/** What a source is called when it is said to be down: "the weather service", "your calendar sync". */
const SOURCE = String.raw`(?:\s+(?:service|services|app|api|feed|feeds|provider|sync|syncing|connection|integration|server|servers|source|sources|data|info|information|report|details|lookup|look-up|update|updates|tool|list|lists))?`;
/** Ways of saying it could not be had. */
const DOWN = String.raw`(?:unavailable|not\s+available|missing|down|offline|unreachable|inaccessible|not\s+accessible|not\s+responding|unresponsive|not\s+working|broken|failing|failed|not\s+loading|timing\s+out|timed\s+out|having\s+(?:issues|trouble|problems)|out\s+of\s+(?:action|reach|service)|playing\s+up|acting\s+up|on\s+the\s+blink|not\s+coming\s+through|(?:(?:is|was|are|were|did|does|do|could|would|has|have|will)\s*(?:not|n['’]t)|won['’]t|can['’]t|cannot)\s+(?:be\s+)?(?:load|loaded|loading|come\s+through|coming\s+through|respond|responding|work|working|sync|synced|syncing|connect|connecting|update|updating|arrive|available|reached|fetched|retrieved|accessed|found))`;

/** Words that make a claim about the data's availability rather than its contents. */
const INFO = "information|info|data|details|access|report|list|view|visibility|insight";

const PATTERNS: Array<{ pattern: RegExp; claim: Absence["claim"]; family?: Family }> = [
  // "I couldn't check your calendar", "unable to get the weather"
  {
    pattern: new RegExp(
      String.raw`\b(?:couldn['’]t|could not|can['’]t|cannot|can not|unable to|wasn['’]t able to|was not able to|failed to|not able to)\s+(?:check|get|load|fetch|retrieve|access|see|read|pull|find|tell you|reach|look at)\s+(?:\w+\s+){0,2}?(?:${ANY_NOUN})\b`,
      "giu",
    ),
    claim: "unavailable",
  },
  // "I don't have any calendar information", "I don't have a list of tasks", "no weather report"
  {
    pattern: new RegExp(
      String.raw`\b(?:(?:don['’]t|do not|didn['’]t|did not|haven['’]t|have not)\s+(?:have|get|got|see|receive)\s+|no\s+)(?:any\s+|a\s+|an\s+|the\s+)?(?:(?:${ANY_NOUN})\s+(?:${INFO})|(?:${INFO})\s+(?:of|on|about|for|from)\s+(?:your\s+|the\s+|any\s+)?(?:${ANY_NOUN}))\b`,
      "giu",
    ),
    claim: "unavailable",
  },
  // "the weather is unavailable", "your calendar isn't available", "the weather service is down"
  {
    pattern: new RegExp(
      String.raw`\b(?:${ANY_NOUN})${SOURCE}\s+(?:(?:is|are|was|were|seems?|appears?|looks?|has\s+been|have\s+been|['’]s)\s+)?(?:to\s+be\s+)?(?:currently\s+|still\s+|temporarily\s+|completely\s+)?${DOWN}\b`,
      "giu",
    ),
    claim: "unavailable",
  },
  // "I couldn't reach the weather service", "had trouble loading your calendar", "no weather data came through"
  {
    pattern: new RegExp(
      String.raw`\b(?:couldn['’]t|could\s+not|can['’]t|cannot|unable\s+to|wasn['’]t\s+able\s+to|failed\s+to|had\s+(?:some\s+)?(?:trouble|problems|issues|difficulty)|there\s+(?:was|were)\s+(?:a\s+)?(?:problems?|issues?|errors?|trouble)|ran\s+into\s+(?:a\s+|an\s+|some\s+)?(?:problems?|issues?|errors?|trouble))\s+(?:with\s+|getting\s+|loading\s+|reaching\s+|fetching\s+|pulling\s+|connecting\s+to\s+|accessing\s+|reach\s+|connect\s+to\s+|sync\s+|load\s+|pull\s+|fetch\s+|get\s+|access\s+)?(?:in\s+|to\s+)?(?:the\s+|your\s+|today['’]s\s+|any\s+)?(?:\w+\s+){0,1}?(?:${ANY_NOUN})${SOURCE}\b|\bno\s+(?:${ANY_NOUN})${SOURCE}\s+(?:came\s+through|(?:is\s+|was\s+)?available|(?:could\s+be\s+)?(?:loaded|fetched|retrieved))\b|\bno\s+(?:${ANY_NOUN})\s+(?:service|data|info|information|feed|connection|sync|details)\b`,
      "giu",
    ),
    claim: "unavailable",
  },
  // "no weather", "no forecast": the weather cannot be empty, only missing
  {
    pattern: new RegExp(String.raw`\bno\s+(?:${NOUNS.weather})\b`, "giu"),
    claim: "unavailable",
    family: "weather",
  },
  // "no events", "no overdue tasks", "no news", "don't have any meetings", "zero tasks", "not a single meeting"
  {
    pattern: new RegExp(
      String.raw`\b(?:no|zero|not\s+(?:a\s+single|one|even\s+one|one\s+single)|(?:don['’]t|do not|haven['’]t|have not)\s+(?:have|got)\s+any|(?:aren['’]t|are not|isn['’]t|is not)\s+any)\s+${QUALIFIER}(?:${ANY_NOUN})\b`,
      "giu",
    ),
    claim: "empty",
  },
  // "nothing on your calendar", "nothing scheduled", "nothing in your diary"
  {
    pattern:
      /\bnothing\s+(?:is\s+|else\s+)?(?:on\s+(?:the|your)\s+(?:calendar|schedule|agenda|diary)|scheduled|booked|planned)\b/giu,
    claim: "empty",
    family: "events",
  },
  // "your calendar is empty", "a clear schedule", "the calendar looks free"
  {
    pattern:
      /\b(?:(?:calendar|schedule|agenda|diary)\s+(?:is|looks|seems|stays)\s+(?:completely\s+|totally\s+|entirely\s+)?(?:empty|clear|free|blank)|(?:empty|clear|blank)\s+(?:calendar|schedule|agenda|diary))\b/giu,
    claim: "empty",
    family: "events",
  },
  // "nothing overdue", "nothing is due today", "nothing due"
  {
    pattern: /\bnothing\s+(?:is\s+|else\s+)?(?:overdue|due)\b/giu,
    claim: "empty",
    family: "tasks",
  },
];

/** Absence and coverage claims of one sentence. */
export function findAbsenceClaims(sentence: string, mask: Mask): FoundClaim[] {
  const claims: FoundClaim[] = [];
  for (const { pattern, claim, family: fixed } of PATTERNS) {
    for (const match of sentence.matchAll(pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (!mask.isFree(start, end)) continue;
      const family = fixed ?? familyNamed(match[0]);
      if (family === undefined) continue;
      if (claim === "empty" && PARTIAL_BEFORE.test(sentence.slice(0, start))) continue;
      if (claim === "empty" && PARTIAL_AFTER.test(sentence.slice(end))) continue;
      // "Between the call and the sync, your diary is empty": free time over a window (quantities.ts).
      if (claim === "empty" && family === "events" && WINDOW_BEFORE.test(sentence.slice(0, start))) continue;
      const scope = scopeOf(family, sentence, start, end, /\boverdue\b/iu.test(match[0]));
      mask.take(start, end);
      const absence: Absence = { family, claim, scope };
      claims.push({
        kind: "absence",
        text: match[0],
        normalized: `${claim}:${family}${scope ? `:${scope}` : ""}`,
        start,
        end,
        isBacked: (evidence: Evidence) => absenceBacked(evidence.coverage, absence),
      });
    }
  }
  return claims;
}

/** The family whose noun the claim names; the last one wins ("no calendar information" → events). */
function familyNamed(text: string): Family | undefined {
  let found: { family: Family; at: number } | undefined;
  for (const { family, pattern } of FAMILY_NOUN) {
    const at = text.search(pattern);
    if (at >= 0 && (found === undefined || at > found.at)) found = { family, at };
  }
  return found?.family;
}

/**
 * Which part of the family the claim is about: the words right around it first ("no tasks due today"),
 * then the sentence ("Tomorrow looks quiet: no meetings").
 */
function scopeOf(family: Family, sentence: string, start: number, end: number, overdue: boolean): Scope {
  const near = sentence.slice(Math.max(0, start - 24), Math.min(sentence.length, end + 40)).toLowerCase();
  const whole = sentence.toLowerCase();
  if (family === "tasks") {
    if (overdue || /\boverdue\b|\blate\b|past due/.test(near)) return "overdue";
    if (/\bhigh[- ]priority\b|\burgent\b/.test(near)) return "high_priority";
    if (/\bdue\b|\btoday\b/.test(near)) return "due_today";
    if (/\bcompleted?\b|\bdone\b|\bfinished\b/.test(near)) return "completed_recently";
    return undefined;
  }
  if (family === "events") {
    for (const text of [near, whole]) {
      const today = /\b(?:today|this (?:morning|afternoon|evening)|tonight)\b/.test(text);
      const tomorrow = /\btomorrow\b/.test(text);
      if (today !== tomorrow) return today ? "today" : "tomorrow";
      if (/\b(?:this week|coming days|upcoming|next few days)\b/.test(text)) return "upcoming";
    }
  }
  return undefined;
}

function absenceBacked(coverage: readonly Coverage[], absence: Absence): boolean {
  const relevant = coverage.filter(
    (entry) => entry.family === absence.family && scopeMatches(entry, absence.scope),
  );
  const looked = relevant.filter((entry) => entry.ok);
  if (absence.claim === "unavailable") return looked.length === 0;
  // "None" needs a receipt that looked and found none; a receipt that lists something contradicts it.
  const empty = looked.some((entry) => entry.count === 0);
  if (absence.family === "tasks" && absence.scope === undefined) {
    // "You have no tasks" is false while any open list has one, whichever list came back empty.
    return empty && !looked.some((entry) => (entry.count ?? 0) > 0 && entry.scope !== "completed_recently");
  }
  return empty;
}

function scopeMatches(entry: Coverage, scope: Scope): boolean {
  // A search for one topic says nothing about the whole list.
  if (entry.query !== undefined) return false;
  if (scope === undefined) return true;
  if (entry.family === "tasks")
    return entry.scope === scope || (scope === "due_today" && entry.scope === "open");
  if (entry.family === "events") return entry.scope === scope;
  return true;
}
