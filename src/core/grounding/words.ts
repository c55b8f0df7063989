/**
 * Word-level helpers shared by the claim finders and the evidence index: tokens, a light stemmer,
 * and the vocabulary that never makes something a named item.
 */

const STOPWORDS = new Set(
  `a an the and or but so nor yet if then than that this these those there here it its it's is are was were be
  been being am do does did done doing have has had having will would shall should can could may might must
  i me my mine we us our ours you your yours he him his she her hers they them their theirs who whom whose
  which what when where why how all any both each few more most some such no not only own same too very just
  also still even again already ever never now soon later as at by for from in into of off on onto out over
  under up down to with within without about above after before below between during through until till
  upon via per plus while once whether because since though although s t don dont won wont let lets get got
  gets keep one nothing anything something everything none nobody anyone someone everyone
  whatever coming going falling becoming getting being come go fall become`.split(/\s+/),
);

/** Words that describe a kind of thing or its state rather than name it ("the overdue task"). */
const GENERIC = new Set(
  `meeting meetings appointment appointments call calls event events session sessions task tasks todo todos
  item items project projects note notes headline headlines story stories news article articles deadline
  deadlines reminder reminders thing things stuff work day days week weeks month list lists calendar schedule
  agenda plan plans briefing briefings update updates check checkin time times morning afternoon evening
  night today tonight tomorrow yesterday quick short long big small main key important urgent high low
  medium priority overdue due new next last first final other others remaining open upcoming pending current
  recent latest daily weekly monthly usual regular good great busy quiet free clear entry entries change
  changes feed feeds piece report reports summary slot good morning hello hi hey happy nice lovely today's
  couple bit lot lots rest weather forecast top lead leading biggest largest best only single second third
  fourth fifth another few several many major minor whole entire tight gentle friendly right wrong real full half
  early late later earlier end start little fresh extra special various proper tough easy hard light heavy calm
  slow fast deep focus focused admin prep highest lowest higher lower most least oldest newest earliest longest
  shortest smallest hardest easiest quickest toughest trickiest biggest else`.split(/\s+/),
);

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "monday" → 1 … "sunday" → 7 (ISO weekday), or null. */
export function weekdayNumber(word: string): number | null {
  const index = WEEKDAYS.indexOf(word.toLowerCase());
  return index < 0 ? null : index === 0 ? 7 : index;
}

/** "Dec", "december", "Sept" → 12, 12, 9; null for anything else. */
export function monthNumber(word: string): number | null {
  const lower = word.toLowerCase().replace(/\.$/, "");
  if (lower.length < 3) return null;
  const index = MONTHS.findIndex(
    (month) => month.startsWith(lower) || (lower === "sept" && month === "september"),
  );
  return index < 0 ? null : index + 1;
}

export function isCalendarWord(word: string): boolean {
  const lower = word.toLowerCase();
  return weekdayNumber(lower.replace(/s$/, "")) !== null || MONTHS.includes(lower);
}

const SMALL_NUMBER_WORDS = `one two three four five six seven eight nine ten eleven twelve thirteen fourteen
  fifteen sixteen seventeen eighteen nineteen twenty`.split(/\s+/);

// Counts start at "two": "one" is too often not a count ("one of them", "no one").
const NUMBER_WORDS = valuesOf(SMALL_NUMBER_WORDS.slice(1), 2);
const CLOCK_WORDS = valuesOf(SMALL_NUMBER_WORDS.slice(0, 12), 1);
const TENS = valuesOf("twenty thirty forty fifty sixty seventy eighty ninety".split(" "), 2);
const UNITS = valuesOf(SMALL_NUMBER_WORDS.slice(0, 9), 1);
/** Counts people write as words for a number: "a dozen", "a pair of". */
const COUNT_PHRASES = new Map([
  ["dozen", 12],
  ["pair", 2],
]);

function valuesOf(words: string[], first: number): Map<string, number> {
  return new Map(words.map((word, index) => [word, first + index]));
}

/**
 * "two" → 2 … "nineteen" → 19, "sixty-one" / "sixty one" → 61 up to 99, "a dozen" → 12, "a pair of" → 2;
 * "one" and anything else is not counted.
 */
export function numberWordValue(word: string): number | null {
  const lower = word
    .toLowerCase()
    .trim()
    .replace(/^an?\s+/u, "")
    .replace(/\s+of$/u, "");
  const small = NUMBER_WORDS.get(lower) ?? COUNT_PHRASES.get(lower);
  if (small !== undefined) return small;
  const [tens = "", unit, extra] = lower.split(/[\s-]+/u);
  const ten = TENS.get(tens);
  if (ten === undefined || extra !== undefined) return null;
  if (unit === undefined) return ten * 10;
  const one = UNITS.get(unit);
  return one === undefined ? null : ten * 10 + one;
}

const UNIT_PATTERN = [...UNITS.keys()].join("|");
export const NUMBER_WORD_PATTERN = `(?:${[...TENS.keys()].join("|")})(?:[\\s-](?:${UNIT_PATTERN}))?|${[...NUMBER_WORDS.keys()].join("|")}|an?\\s+dozen|a\\s+pair\\s+of`;

/** "ten" or "10" as an hour on a clock face (1–12), or null. */
export function clockHour(word: string): number | null {
  const value = CLOCK_WORDS.get(word.toLowerCase()) ?? Number(word);
  return Number.isInteger(value) && value >= 1 && value <= 12 ? value : null;
}

export const CLOCK_WORD_PATTERN = `${[...CLOCK_WORDS.keys()].join("|")}|\\d{1,2}`;

/** Lower-case words and numbers, with possessive "'s" dropped and hyphenated words split. */
export function tokenize(text: string): string[] {
  const cleaned = text.toLowerCase().replace(/['’]s\b/g, "");
  return cleaned.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A deliberately light stemmer: enough that "renewal", "renewing" and "renew", or "headlines" and
 * "headline", compare equal, without the surprises of a full Porter stemmer on names.
 */
export function stem(word: string): string {
  let result = word.toLowerCase();
  if (/\d/.test(result)) return result;
  if (result.endsWith("ies") && result.length > 4) result = `${result.slice(0, -3)}y`;
  else if (/(ss|sh|ch|x|z)es$/.test(result)) result = result.slice(0, -2);
  else if (result.endsWith("s") && !/(ss|us|is)$/.test(result) && result.length > 3)
    result = result.slice(0, -1);
  if (result.endsWith("ing") && result.length > 5) result = result.slice(0, -3);
  else if (result.endsWith("ed") && result.length > 4) result = result.slice(0, -2);
  else if (result.endsWith("al") && result.length > 5) result = result.slice(0, -2);
  if (result.endsWith("e") && result.length > 4) result = result.slice(0, -1);
  return result;
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

export function isGeneric(word: string): boolean {
  const lower = word.toLowerCase();
  return GENERIC.has(lower) || GENERIC.has(`${lower}s`) || STOPWORDS.has(lower);
}

/** The words that could make a phrase name something specific: no stopwords, generic nouns, dates or numbers. */
export function contentWords(text: string): { words: string[]; stems: string[] } {
  const words: string[] = [];
  const stems: string[] = [];
  for (const token of tokenize(text)) {
    if (
      token.length < 2 ||
      /^\d+(?:st|nd|rd|th|am|pm|h|m|s)?$/.test(token) ||
      numberWordValue(token) !== null
    )
      continue;
    if (isGeneric(token) || isCalendarWord(token) || token === "am" || token === "pm") continue;
    const stemmed = stem(token);
    if (stems.includes(stemmed)) continue;
    words.push(token);
    stems.push(stemmed);
  }
  return { words, stems };
}

/** Every stem of a receipt string, for matching claims against it. */
export function allStems(text: string): Set<string> {
  return new Set(tokenize(text).map(stem));
}

/** Equal stems, or one a long prefix of the other ("renew" / "renewals"). */
export function stemsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return shorter.length >= 5 && longer.startsWith(shorter);
}
