/**
 * Who may read an answer: one rule for every platform's shared spaces (a Slack channel, a Telegram group).
 * An answer that read a person's own data — tasks, events, notes, projects, receipts, briefings, settings —
 * goes only to that person, wherever they asked; one that read nothing of theirs (help, an error) may stay
 * where it was asked. An operator can mark a space as a team space, where briefings and answers are meant for
 * everyone in it. The adapters tell the core what kind of space a message came from and carry out the
 * audience it decides; they never weigh privacy themselves.
 */

/**
 * Where a message was written:
 * - `direct`: a space only the person and the bot share (a DM, a Telegram private chat);
 * - `shared`: a channel or group others read too;
 * - `team`: a shared space the operator marked as meant for everyone in it.
 */
export type SpaceKind = "direct" | "shared" | "team";

/** Who an answer is shown to: everyone in the space it was asked in, or only the person who asked. */
export type Audience = "space" | "asker";

/** Where an answer goes, from the space it was asked in and whether it read the person's own data. */
export function audienceOf(space: SpaceKind, personal: boolean): Audience {
  return personal && space === "shared" ? "asker" : "space";
}

/** What a chat answer drew on, as the chat turn knows it. */
export interface AnswerSources {
  /** The answer follows up on one of the person's briefings (its receipts and prose are in its context). */
  followsUpBriefing: boolean;
  /** Tool results in its context: the followed-up run's, the thread's earlier ones, its own fresh calls. */
  receipts: number;
  /** Changes it made, and changes it filed for the person's Confirm. */
  changes: number;
}

/**
 * Whether a chat answer read the person's own data. Every tool the assistant has reads or changes that
 * person's data — even `get_weather`, which only knows their saved place — so any tool result in the
 * answer's context makes it personal, as does a briefing followed up on (even an archived one) or a change.
 * Only an answer from nothing but the conversation's words and the model (a greeting, "what can you do?",
 * an apology) reads nothing of theirs.
 */
export function readsPersonalData(sources: AnswerSources): boolean {
  return sources.followsUpBriefing || sources.receipts > 0 || sources.changes > 0;
}

/**
 * A briefing's thread answers only the person it was written for: anyone else who writes in it, even in a
 * team space where everyone may read it, is told whose it is and gets nothing from it.
 */
export function answersInBriefingThread(ownerUserId: number, askerUserId: number | undefined): boolean {
  return askerUserId === ownerUserId;
}

/** The one line someone else's briefing thread gets; `owner` as the platform shows a person's name. */
export function othersBriefingText(owner: string): string {
  return `This is ${owner}'s briefing; send me a DM for yours.`;
}

/** The line left in a shared space when a personal answer went to the person's DM instead. */
export const SENT_PRIVATELY_TEXT = "I've sent you that privately.";
