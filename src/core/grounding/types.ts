import type { Coverage } from "./coverage.ts";
import type { Facts } from "./facts.ts";

/**
 * What a claim asserts: a clock time, a calendar date, a temperature, another number, a named thing, or
 * that some kind of data is empty or unavailable.
 */
export type ClaimKind =
  | "time"
  | "date"
  | "number"
  | "temperature"
  | "item"
  | "absence"
  /** A day (or part of a day) said of a named item: "the standup is tomorrow", "due yesterday". */
  | "day"
  /** A state said of a named item: done, cancelled, moved, overdue, still open. */
  | "state"
  /** A weather condition, feel or wind for the day spoken of: "rain this afternoon", "a sunny day". */
  | "weather"
  /** A quantifier or free time over a list: "your only meeting", "free all afternoon", "and 46 more". */
  | "quantity"
  /** A capitalised name or a place no receipt, profile or known name holds. */
  | "name"
  /** Something said to have happened: "the plumber emailed you yesterday". */
  | "happening";

/** One checkable assertion found in briefing prose. */
export interface Claim {
  kind: ClaimKind;
  /** The words as the prose wrote them, e.g. "10.30am", "the 3rd", "Q2 budget draft". */
  text: string;
  /** Index into `splitSentences(prose)`. */
  sentenceIndex: number;
  /**
   * Comparable form: "HH:MM" for times, "YYYY-MM-DD" for dates, a plain number ("16", "16.1") for
   * temperatures and numbers ("20%" for percentages), lower-case content words for items,
   * "empty:events:today" or "unavailable:weather" for absence claims.
   */
  normalized: string;
}

/** Every claim found, and the ones no receipt of the run backs. */
export interface GroundingReport {
  claims: Claim[];
  unbacked: Claim[];
  /** Why each unbacked claim is unbacked, in words a person reads ("the standup is today, not tomorrow"). */
  reasons?: Map<Claim, string>;
  /** For backed claims: the receipt that backs them, when one receipt alone does. */
  backing?: Map<Claim, number>;
}

export interface GroundingOptions {
  /** The user's IANA zone: receipt datetimes are compared as local wall-clock times there. */
  timeZone: string;
  /** The user's local date "YYYY-MM-DD": relative dates ("tomorrow", "Friday", "the 3rd") resolve from it. */
  localDate: string;
  /** Names that are never item claims, e.g. the user's and the bot's own names used in a greeting. */
  knownNames?: string[];
  /** The user's profile: the names and places in it are theirs to mention ("lunch with Sam, my partner"). */
  profile?: string;
  /** The user's local time "HH:MM" when the text was written: "free until 3" speaks from now. */
  localTime?: string;
}

/** A claim while it is being found: where it sits in its sentence and how to test it against evidence. */
export interface FoundClaim {
  kind: ClaimKind;
  text: string;
  normalized: string;
  start: number;
  end: number;
  isBacked: (evidence: Evidence) => boolean;
  /** The receipt that backs it, when the claim is judged against one item rather than the evidence at large. */
  backedBy?: number | undefined;
  /** Why it is unbacked, when the kind's own words say more than the generic reason. */
  reason?: (evidence: Evidence) => string;
}

/** A list some receipt returned, for checking counts like "two overdue tasks". */
export interface CountedList {
  family: "tasks" | "events" | "headlines" | "projects" | "notes" | null;
  length: number;
  /** Words describing the list: its tool's arguments and the scalar fields beside it ("overdue", "today"). */
  context: Set<string>;
}

/** A string of a receipt result (or all the strings of one object, joined), ready for item matching. */
export interface EvidenceText {
  /** Lower-case words separated by single spaces. */
  words: string;
  stems: Set<string>;
}

/** Everything this run's receipts establish, in the forms the claims are compared in. */
export interface Evidence {
  /** Local wall-clock times "HH:MM" in the user's zone. */
  times: Set<string>;
  /** Local dates "YYYY-MM-DD". */
  dates: Set<string>;
  numbers: number[];
  /** Numbers under count-like keys ("overdueCount", "total", "completed"). */
  namedCounts: number[];
  /** The same, with the family of the tool that gave each: "three meetings" needs an events count of 3. */
  familyCounts: { family: CountedList["family"]; value: number }[];
  /** How many subtasks a listed parent task has (list_tasks' `subtasks`): what "three subtasks" counts. */
  subtaskCounts: number[];
  lists: CountedList[];
  texts: EvidenceText[];
  /** Per receipt, what it says about its kind of data (errored receipts included). */
  coverage: Coverage[];
  /** The receipts read as facts about items and forecast days. */
  facts: Facts;
  /** True when the phrase appears word for word (case-insensitive) in some result string. */
  mentions(phrase: string): boolean;
}
