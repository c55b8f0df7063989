/**
 * Names: a capitalised word inside a sentence (a person, a place, an organisation — "the design review
 * with Priya", "the dentist on Elm Road") that no receipt, the user's profile or a known name holds.
 * A sentence's first word is capitalised by grammar and never judged; nor are days, months, units and the
 * few abbreviations prose uses.
 */
import type { Mask } from "./mask.ts";
import type { FoundClaim, GroundingOptions } from "./types.ts";
import { isCalendarWord, isGeneric, stem, stemsMatch, tokenize } from "./words.ts";

const ALWAYS_FINE = new Set(
  `i i'm i've i'll i'd am pm a.m p.m ok okay fyi asap utc gmt bst cet cest est edt pst pdt celsius fahrenheit c f
  mr mrs ms dr st q1 q2 q3 q4 tbd eta eod eow todo to-do tl dr ps re vs etc`.split(/\s+/),
);
/**
 * Where the conversation happens and what the assistant is: naming them ("write to me in a DM", "ask me in
 * Slack") speaks of no item, so no receipt is needed.
 */
const ASSISTANT_WORDS = new Set(
  `dm dms pm telegram slack briefbot bot ollama receipts receipt undo confirm cancel settings help`.split(
    /\s+/,
  ),
);
/** Words that make a place of the name before them; on their own they name nothing. */
const PLACE_WORDS = new Set(
  `road rd street st avenue ave lane ln square sq park centre center hall clinic hospital cafe café hotel station
  office building drive close way place court terrace gardens crescent house tower plaza mall market bridge`.split(
    /\s+/,
  ),
);

const PRONOUN = /^(?:i|you|we|they|he|she|it)(?:['’](?:ve|re|ll|d|m))?$/u;

const WORD = /[\p{L}][\p{L}\p{N}'’-]*/gu;

/** What follows a person's name at the start of a sentence: where they are from, or what they did or want. */
const PERSON_CUE =
  /^(?:['’]s\s+(?:team|office|assistant))?\s*(?:from\s+(?:the\s+)?\p{L}+(?:\s+\p{Ll}+)?\s+)?(?:wants|wanted|asked|asks|says|said|needs|would\s+like|is\s+joining|will\s+join|joins|is\s+coming|is\s+visiting|called|emailed|e-mailed|texted|messaged|rang|phoned|replied|wrote|sent|mentioned|confirmed|pinged|reached\s+out|dropped\s+by|stopped\s+by)\b/u;

/** People named by who they are to someone: "Sam and his sister", "your manager", "a colleague". */
const RELATION =
  /\b(?:his|her|their|your|a|an)\s+(sister|brother|mum|mom|mother|dad|father|parents|wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|boss|manager|colleague|co-?worker|friend|cousin|aunt|uncle|neighbou?r|son|daughter|kids|children|teammate|client|assistant|lawyer|solicitor|accountant|landlord|landlady|doctor|dentist|plumber|electrician|builder)s?\b/giu;

export function findNameClaims(sentence: string, mask: Mask, options: GroundingOptions): FoundClaim[] {
  const known = knownStems(options);
  const claims: FoundClaim[] = [];
  for (const match of sentence.matchAll(RELATION)) {
    const start = (match.index ?? 0) + match[0].length - (match[1]?.length ?? 0);
    const end = (match.index ?? 0) + match[0].length;
    const lower = (match[1] ?? "").toLowerCase();
    const wanted = stem(lower);
    if (!mask.isFree(start, end) || known.some((name) => stemsMatch(name, wanted))) continue;
    claims.push({
      kind: "name",
      text: match[0],
      normalized: lower,
      start,
      end,
      // A role the receipts speak of ("Email the plumber", "Dentist appointment") is theirs to mention.
      isBacked: (found) => found.texts.some((text) => hasStem(text.stems, wanted)),
      reason: () => `no receipt or the profile speaks of "${match[0]}"`,
    });
  }
  const words = [...sentence.matchAll(WORD)];
  for (const [index, match] of words.entries()) {
    const word = match[0];
    const start = match.index ?? 0;
    const end = start + word.length;
    if (!/^\p{Lu}/u.test(word)) continue;
    // A sentence's first word is capitalised by grammar; it is judged as a name only where what follows
    // speaks of a person ("Jamie from accounts wants a word", "Priya says…").
    if ((index === 0 || startsClause(sentence, start)) && !PERSON_CUE.test(sentence.slice(end))) continue;
    const lower = word.toLowerCase().replace(/['’]s$/u, "");
    // "You've called the bank": a pronoun with its contraction is never a name.
    if (PRONOUN.test(lower)) continue;
    if (
      ALWAYS_FINE.has(lower) ||
      ASSISTANT_WORDS.has(lower) ||
      isCalendarWord(lower) ||
      PLACE_WORDS.has(lower) ||
      isGeneric(lower)
    )
      continue;
    if (!mask.isFree(start, end)) continue;
    const wanted = stem(lower);
    if (known.some((name) => stemsMatch(name, wanted))) continue;
    claims.push({
      kind: "name",
      text: word.replace(/['’]s$/u, ""),
      normalized: lower,
      start,
      end,
      isBacked: (found) => found.texts.some((text) => holdsName(text, lower, wanted)),
      reason: () => `no receipt, profile or known name holds "${word.replace(/['’]s$/u, "")}"`,
    });
  }
  return claims;
}

/**
 * A receipt holds a name when it holds the word itself, or another form of it that is not merely its plural
 * or singular: "Teams" (the app) is not backed by "Team standup", though "Priya's" is by "Priya".
 */
function holdsName(text: { words: string; stems: Set<string> }, lower: string, wanted: string): boolean {
  if (` ${text.words} `.includes(` ${lower} `)) return true;
  if (!hasStem(text.stems, wanted)) return false;
  const plural = lower.endsWith("s") ? lower.slice(0, -1) : `${lower}s`;
  return !` ${text.words} `.includes(` ${plural} `);
}

function hasStem(stems: Set<string>, wanted: string): boolean {
  if (stems.has(wanted)) return true;
  for (const candidate of stems) if (stemsMatch(candidate, wanted)) return true;
  return false;
}

/** After a colon, a dash, a bracket, a quote mark or a bullet, a capital starts a clause, not a name. */
function startsClause(sentence: string, at: number): boolean {
  return /(?:^|[:;(—–"“‘•*]|\s-|\d[.)])\s*$/u.test(sentence.slice(0, at));
}

function knownStems(options: GroundingOptions): string[] {
  const text = [
    ...(options.knownNames ?? []),
    options.profile ?? "",
    options.timeZone.replace(/[/_]/g, " "),
  ].join(" ");
  return tokenize(text).map(stem);
}
