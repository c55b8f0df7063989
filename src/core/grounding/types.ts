import type { Evidence } from "./evidence.ts";

/**
 * What a claim asserts: a clock time, a calendar date, a temperature, another number, a named thing, or
 * that some kind of data is empty or unavailable.
 */
export type ClaimKind = "time" | "date" | "number" | "temperature" | "item" | "absence";

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
}

export interface GroundingOptions {
  /** The user's IANA zone: receipt datetimes are compared as local wall-clock times there. */
  timeZone: string;
  /** The user's local date "YYYY-MM-DD": relative dates ("tomorrow", "Friday", "the 3rd") resolve from it. */
  localDate: string;
  /** Names that are never item claims, e.g. the user's and the bot's own names used in a greeting. */
  knownNames?: string[];
}

/** A claim while it is being found: where it sits in its sentence and how to test it against evidence. */
export interface FoundClaim {
  kind: ClaimKind;
  text: string;
  normalized: string;
  start: number;
  end: number;
  isBacked: (evidence: Evidence) => boolean;
}
