import type { Mask } from "./mask.ts";
import type { Evidence, FoundClaim } from "./types.ts";
import { contentWords, isCalendarWord, isGeneric, isStopword, stemsMatch } from "./words.ts";

/** Share of a claim's content words one receipt string must hold for a quoted or cued name to be backed. */
const COVERAGE = 0.6;
const MAX_WORDS = 8;

/**
 * How sure we are the phrase names a thing: quotes and cue phrases ("your X meeting", "X is due") are
 * clear; a run of Capitalised Words may be a greeting or a place, so it is flagged only when it shares
 * no word at all with any receipt.
 */
type Strength = "clear" | "weak";

interface ItemMention {
  start: number;
  end: number;
  text: string;
  strength: Strength;
}

const WORD = String.raw`[\p{L}\p{N}][\p{L}\p{N}'’&-]*`;
const EVENT_NOUN = `(?:meeting|appointment|session|huddle|standup|stand-up|sync|event|task|project|note|headline|story|article|deadline|reminder|review|interview|lunch|dinner|class|demo|catch-up)s?`;

const EXISTENCE =
  /\b(?:there's|there’s|there is|there are|there was|you have|you've got|you’ve got|you've|you’ve|you had|scheduled|booked|planned|lined up|on (?:the|your) calendar)\b/iu;

const ITEM_WORD = "(?:task|event|project|headline|note|story|meeting|appointment|item|deadline|reminder)s?";
const NAMED_BEFORE = new RegExp(String.raw`\b(?:${ITEM_WORD}|titled|called|named)\s*[:,]?\s*$`, "iu");
const NAMED_AFTER = new RegExp(String.raw`^\s*(?:${ITEM_WORD}|is|was|are|were|due|overdue)\b`, "iu");

/** Quoted names: “Q2 budget draft”, "Q2 budget draft", ‘…’, and '…' (but not an apostrophe in "don't"). */
const QUOTED =
  /“([^”\n]{2,80})”|"([^"\n]{2,80})"|‘([^’\n]{2,80})’|(?<![\p{L}\p{N}])'([^'\n]{2,80}?)'(?![\p{L}\p{N}])/gu;

/** Item claims of one sentence: quoted names first, then cue phrases, then runs of Capitalised Words. */
export function findItemClaims(sentence: string, mask: Mask, knownNames: readonly string[]): FoundClaim[] {
  const mentions: ItemMention[] = [];
  const add = (mention: ItemMention | null, masked = true): void => {
    if (mention === null) return;
    // Words already read as another claim ("no tasks due today") are not also a name.
    if (masked && !mask.isFree(mention.start, mention.end)) return;
    if (mentions.some((other) => other.start < mention.end && mention.start < other.end)) return;
    mentions.push(mention);
  };

  for (const match of sentence.matchAll(QUOTED)) {
    const inner = match[1] ?? match[2] ?? match[3] ?? match[4] ?? "";
    const start = (match.index ?? 0) + 1;
    if (inner.trim().split(/\s+/).length > MAX_WORDS + 4) continue;
    // Quoted text is one claim: its dates and numbers are part of the name, not claims of their own.
    if (!mask.take(start - 1, start + inner.length + 1)) continue;
    // Titles keep their capital when quoted; a quoted lower-case phrase may be a scare quote ("a "clean run""),
    // so it counts only beside a word that makes it a name ("the 'renew passport' task").
    const capitalised = /^\s*[\p{Lu}\p{N}]/u.test(inner);
    const named =
      NAMED_BEFORE.test(sentence.slice(0, start - 1)) ||
      NAMED_AFTER.test(sentence.slice(start + inner.length + 1));
    if (capitalised || named) add(trimmed(sentence, start, start + inner.length, "clear"), false);
  }

  // "your dentist appointment", "the Q2 budget draft task"; "a team huddle" only where something is said to
  // exist ("there's a…", "you have a…"), since "try a focus session" is advice, not a claim.
  for (const match of sentence.matchAll(
    new RegExp(String.raw`\b(your|the|my|an?)\s+((?:${WORD}\s+){1,4}?${EVENT_NOUN})\b`, "giu"),
  )) {
    const phrase = match[2] ?? "";
    const end = (match.index ?? 0) + match[0].length;
    const indefinite = /^an?$/iu.test(match[1] ?? "");
    if (indefinite && !EXISTENCE.test(sentence.slice(0, match.index))) continue;
    add(modifiedNoun(sentence, end - phrase.length, end));
  }

  // "meeting with Sam Carter", "lunch with the design team", "the meeting is with Priya"
  for (const match of sentence.matchAll(
    new RegExp(
      String.raw`\b(?:meeting|call|lunch|coffee|dinner|breakfast|catch-up|catchup|chat|sync|1:1|session|appointment|interview)s?\s+(?:(?:is|was|will be)\s+)?with\s+((?:${WORD})(?:\s+${WORD}){0,3})`,
      "giu",
    ),
  )) {
    const phrase = match[1] ?? "";
    const start = (match.index ?? 0) + match[0].length - phrase.length;
    add(leadingRun(sentence, start, start + phrase.length));
  }

  // "a headline about new AI rules in the EU"
  for (const match of sentence.matchAll(
    new RegExp(
      String.raw`\b(?:headlines?|stor(?:y|ies)|news|articles?|pieces?|reports?)\s+(?:about|on|regarding)\s+((?:${WORD})(?:\s+${WORD}){0,7})`,
      "giu",
    ),
  )) {
    const phrase = match[1] ?? "";
    const start = (match.index ?? 0) + match[0].length - phrase.length;
    add(trimmed(sentence, start, start + phrase.length, "clear"));
  }

  for (const mention of dueMentions(sentence)) add(mention);
  for (const mention of capitalisedRuns(sentence)) add(mention);

  const known = knownNames.flatMap((name) => contentWords(name).stems);
  const claims: FoundClaim[] = [];
  for (const mention of mentions.sort((a, b) => a.start - b.start)) {
    const { words, stems } = contentWords(mention.text);
    if (stems.length === 0 || stems.every((stem) => known.some((name) => stemsMatch(stem, name)))) continue;
    const { text, strength } = mention;
    claims.push({
      kind: "item",
      text,
      normalized: words.join(" "),
      start: mention.start,
      end: mention.end,
      isBacked: (evidence: Evidence) => itemBacked(evidence, text, stems, strength),
    });
  }
  return claims;
}

function itemBacked(evidence: Evidence, text: string, stems: string[], strength: Strength): boolean {
  if (evidence.mentions(text)) return true;
  if (strength === "weak") {
    return stems.some((wanted) => evidence.texts.some((entry) => hasStem(entry.stems, wanted)));
  }
  const needed = Math.ceil(stems.length * COVERAGE - 1e-9);
  return evidence.texts.some(
    (entry) => stems.filter((wanted) => hasStem(entry.stems, wanted)).length >= needed,
  );
}

function hasStem(stems: Set<string>, wanted: string): boolean {
  if (stems.has(wanted)) return true;
  for (const stem of stems) if (stemsMatch(stem, wanted)) return true;
  return false;
}

/**
 * "Fix briefing hallucinations is due today", "Renew passport, overdue since…", "the Q2 budget draft due by
 * Friday": the name runs back from "due" to the sentence start, a determiner or a stopword. A bare "X due"
 * counts only after a determiner, so "things coming due" is not a name.
 */
function dueMentions(sentence: string): ItemMention[] {
  const found: ItemMention[] = [];
  for (const due of sentence.matchAll(/\b(?:over)?due\b/giu)) {
    const words = [...sentence.slice(0, due.index).matchAll(new RegExp(WORD, "gu"))];
    let cursor = words.length;
    let boundary = due.index;
    let explicit = false;
    while (cursor > 0 && LINKERS.test(words[cursor - 1]?.[0] ?? "")) {
      const linker = words[cursor - 1];
      if (linker === undefined) break;
      if (!/^(?:still|now|also|already|currently|technically|officially)$/iu.test(linker[0])) explicit = true;
      boundary = linker.index;
      cursor -= 1;
    }
    const last = words[cursor - 1];
    if (last === undefined || isStopword(last[0]) || isCalendarWord(last[0])) continue;
    const gap = sentence.slice(last.index + last[0].length, boundary);
    if (/[^\s,(—–-]/u.test(gap)) continue;
    if (/[,(—–-]/u.test(gap)) explicit = true;
    let first = cursor - 1;
    while (first > 0 && cursor - first < MAX_WORDS) {
      const candidate = words[first - 1];
      const current = words[first];
      if (candidate === undefined || current === undefined) break;
      if (isStopword(candidate[0]) || isCalendarWord(candidate[0])) break;
      if (!/^\s+$/u.test(sentence.slice(candidate.index + candidate[0].length, current.index))) break;
      first -= 1;
    }
    const head = words[first];
    if (head === undefined) continue;
    const previous = words[first - 1];
    const determined =
      previous !== undefined &&
      DETERMINERS.has(previous[0].toLowerCase()) &&
      /^\s+$/u.test(sentence.slice(previous.index + previous[0].length, head.index));
    if (!explicit && !determined) continue;
    const end = last.index + last[0].length;
    found.push({ start: head.index, end, text: sentence.slice(head.index, end), strength: "clear" });
  }
  return found;
}

const LINKERS =
  /^(?:is|are|was|were|still|now|also|already|currently|technically|officially|remains?|stays?|sits?|seems?|looks?|became|becomes?|gets?|got|went|goes|falls?|fell|slipped|running|runs?|marked|listed|flagged)$/iu;
const DETERMINERS = new Set(["the", "your", "a", "an", "my"]);

// Words that may sit inside a name without breaking it ("Bank of England", "Salt & Pepper").
const CONNECTORS = new Set([
  "of",
  "the",
  "and",
  "for",
  "on",
  "in",
  "to",
  "&",
  "de",
  "la",
  "van",
  "von",
  "du",
]);

/** Runs of two or more Capitalised Words that are not a greeting, a vocative name, a date or generic words. */
function capitalisedRuns(sentence: string): ItemMention[] {
  if (
    /^\W*(?:good\s+(?:morning|afternoon|evening)|morning|afternoon|evening|hi|hello|hey|happy)\b/iu.test(
      sentence,
    )
  ) {
    return [];
  }
  const words = [...sentence.matchAll(new RegExp(WORD, "gu"))];
  const firstWordIndex = words[0]?.index;
  const runs: ItemMention[] = [];
  let index = 0;
  while (index < words.length) {
    const run: RegExpExecArray[] = [];
    while (index < words.length) {
      const word = words[index];
      if (word === undefined) break;
      const previous = run[run.length - 1];
      const gap =
        previous === undefined ? "" : sentence.slice(previous.index + previous[0].length, word.index);
      if (previous !== undefined && !/^\s+$/u.test(gap)) break;
      if (isCapitalised(word[0])) run.push(word as RegExpExecArray);
      else if (run.length > 0 && CONNECTORS.has(word[0])) run.push(word as RegExpExecArray);
      else break;
      index += 1;
    }
    if (run.length === 0) index += 1;
    // A sentence's first word is capitalised by grammar ("Remember Acme Corp…"), so it never starts a name.
    if (run[0]?.index === firstWordIndex) run.shift();
    const named = run.filter((word) => isCapitalised(word[0]) && !isGeneric(word[0]));
    while (run.length > 0 && !isNameWord(run[0]?.[0] ?? "")) run.shift();
    while (run.length > 0 && !isNameWord(run[run.length - 1]?.[0] ?? "")) run.pop();
    const head = run[0];
    const last = run[run.length - 1];
    if (head === undefined || last === undefined || named.length < 2 || run.length < 2) continue;
    const start = head.index;
    const end = last.index + last[0].length;
    const vocative = /,\s*$/u.test(sentence.slice(0, start)) && /^\s*[.!?]*\s*$/u.test(sentence.slice(end));
    const addressed = start === 0 && /^\s*,/u.test(sentence.slice(end));
    if (!vocative && !addressed)
      runs.push({ start, end, text: sentence.slice(start, end), strength: "weak" });
  }
  return runs;
}

function isCapitalised(word: string): boolean {
  return /^\p{Lu}/u.test(word) && !isCalendarWord(word) && !/^(?:AM|PM|I|I'm|I’m)$/u.test(word);
}

function isNameWord(word: string): boolean {
  return isCapitalised(word) && !isGeneric(word);
}

/** A cued phrase without the determiners and stopwords at its edges. */
function trimmed(sentence: string, start: number, end: number, strength: Strength): ItemMention | null {
  const words = [...sentence.slice(start, end).matchAll(new RegExp(WORD, "gu"))];
  while (words.length > 0 && isStopword(words[0]?.[0] ?? "")) words.shift();
  while (words.length > 0 && isStopword(words[words.length - 1]?.[0] ?? "")) words.pop();
  const head = words[0];
  const last = words[words.length - 1];
  if (head === undefined || last === undefined) return null;
  const from = start + head.index;
  const to = start + last.index + last[0].length;
  return { start: from, end: to, text: sentence.slice(from, to), strength };
}

/** "dentist appointment" from "your dentist appointment", but nothing from "the BBC has a headline". */
function modifiedNoun(sentence: string, start: number, end: number): ItemMention | null {
  const words = [...sentence.slice(start, end).matchAll(new RegExp(WORD, "gu"))];
  let first = words.length - 1;
  while (first > 0 && !isStopword(words[first - 1]?.[0] ?? "")) first -= 1;
  const head = words[first];
  if (head === undefined || first === words.length - 1) return null;
  return { start: start + head.index, end, text: sentence.slice(start + head.index, end), strength: "clear" };
}

/** "Sam Carter at 10:30" → "Sam Carter": a name after "with" ends at the first stopword or date word. */
function leadingRun(sentence: string, start: number, end: number): ItemMention | null {
  const words = [...sentence.slice(start, end).matchAll(new RegExp(WORD, "gu"))];
  let kept = 0;
  for (const [position, word] of words.entries()) {
    const leadingThe = position === 0 && word[0].toLowerCase() === "the";
    if (!leadingThe && (isStopword(word[0]) || isCalendarWord(word[0]) || /^\d/u.test(word[0]))) break;
    kept = word.index + word[0].length;
  }
  return kept === 0 ? null : trimmed(sentence, start, start + kept, "clear");
}
