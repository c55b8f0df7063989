/**
 * Forgetting a user from chat asks twice: the first Confirm leads to a second, sterner question, and only
 * its Confirm deletes. Any other answer (Cancel, another message, a stale button, the time running out)
 * ends the flow with nothing deleted.
 *
 * The pending question lives in this process's memory, not in the database: a restart (or a press landing
 * on another replica) forgets it, and the person is asked to start again. For an action that cannot be
 * undone, failing towards "nothing happened" is the right way to fail; a stored question would also need a
 * new pending-action kind that the chat's own Confirm path must then learn to leave alone.
 */
import type { Clock } from "../clock.ts";

export type ForgetStep = 1 | 2;

/** What a button carries: which question it answers, so a stale button cannot count for a newer one. */
export interface ForgetQuestion {
  token: string;
  step: ForgetStep;
  expiresAt: Date;
}

export type ForgetAnswer =
  /** The first Confirm: ask the second question. */
  | { kind: "ask-again"; question: ForgetQuestion }
  /** The second Confirm: the caller deletes now. */
  | { kind: "confirmed" }
  /** No question of this user matches: never asked, already answered, or asked before a restart. */
  | { kind: "stale" }
  | { kind: "expired" };

export interface ForgetFlow {
  /** Asks the first question, replacing any question still open for this user. */
  begin(userId: number): ForgetQuestion;
  answer(userId: number, token: string, confirmed: boolean): ForgetAnswer | { kind: "cancelled" };
  /** Drops the user's open question (they said something else); true when there was one. */
  cancel(userId: number): boolean;
}

export function createForgetFlow(clock: Clock, minutes: number): ForgetFlow {
  const open = new Map<number, ForgetQuestion>();
  let counter = 0;
  const ask = (userId: number, step: ForgetStep): ForgetQuestion => {
    counter += 1;
    const now = clock.now();
    const question = {
      // Not a secret: the press is checked against the presser's own open question, so it only has to differ.
      token: `${now.getTime().toString(36)}${counter.toString(36)}`,
      step,
      expiresAt: new Date(now.getTime() + minutes * 60_000),
    };
    open.set(userId, question);
    return question;
  };
  return {
    begin: (userId) => ask(userId, 1),
    answer(userId, token, confirmed) {
      const question = open.get(userId);
      if (!question || question.token !== token) return { kind: "stale" };
      open.delete(userId);
      if (clock.now() >= question.expiresAt) return { kind: "expired" };
      if (!confirmed) return { kind: "cancelled" };
      return question.step === 1 ? { kind: "ask-again", question: ask(userId, 2) } : { kind: "confirmed" };
    },
    cancel: (userId) => open.delete(userId),
  };
}
