/**
 * Forgetting a user from chat asks twice: the first Confirm leads to a second, sterner question, and only
 * its Confirm deletes. Any other answer (Cancel, another message, a stale button, the time running out)
 * ends the flow with nothing deleted.
 *
 * The open question is stored through the `ForgetQuestions` port (a row per user in the database), so a
 * restart does not forget it and a press landing on another replica finds it; taking the answer is one
 * step of the store's, so two presses on two replicas count once.
 */
import type { Clock } from "../clock.ts";

export type ForgetStep = 1 | 2;

/** What a button carries: which question it answers, so a stale button cannot count for a newer one. */
export interface ForgetQuestion {
  token: string;
  step: ForgetStep;
  expiresAt: Date;
}

/** The open /forget questions, one per user at most. */
export interface ForgetQuestions {
  /** Stores `question` as the user's open question, replacing any still open. */
  ask: (userId: number, question: ForgetQuestion) => Promise<void>;
  /**
   * Takes the user's open question when `token` is its token: removes it and returns it, once — a second
   * taker (a double press, another replica) gets undefined. Undefined as well when none matches.
   */
  answer: (userId: number, token: string) => Promise<ForgetQuestion | undefined>;
  /** Drops the user's open question; true when there was one. */
  cancel: (userId: number) => Promise<boolean>;
  /** Drops every question that expired before `before`; returns how many. */
  expire: (before: Date) => Promise<number>;
}

export type ForgetAnswer =
  /** The first Confirm: ask the second question. */
  | { kind: "ask-again"; question: ForgetQuestion }
  /** The second Confirm: the caller deletes now. */
  | { kind: "confirmed" }
  /** No question of this user matches: never asked, already answered, or long expired. */
  | { kind: "stale" }
  | { kind: "expired" };

export interface ForgetFlow {
  /** Asks the first question, replacing any question still open for this user. */
  begin(userId: number): Promise<ForgetQuestion>;
  answer(userId: number, token: string, confirmed: boolean): Promise<ForgetAnswer | { kind: "cancelled" }>;
  /** Drops the user's open question (they said something else); true when there was one. */
  cancel(userId: number): Promise<boolean>;
}

export function createForgetFlow(
  questions: ForgetQuestions,
  clock: Clock,
  minutes: number,
  /** Distinct per call across processes (the core's id source). */
  newToken: () => string,
): ForgetFlow {
  const ask = async (userId: number, step: ForgetStep): Promise<ForgetQuestion> => {
    const question = {
      // Not a secret: the press is checked against the presser's own open question, so it only has to differ.
      token: newToken(),
      step,
      expiresAt: new Date(clock.now().getTime() + minutes * 60_000),
    };
    await questions.ask(userId, question);
    return question;
  };
  return {
    begin: (userId) => ask(userId, 1),
    async answer(userId, token, confirmed) {
      const question = await questions.answer(userId, token);
      if (!question) return { kind: "stale" };
      if (clock.now() >= question.expiresAt) return { kind: "expired" };
      if (!confirmed) return { kind: "cancelled" };
      return question.step === 1
        ? { kind: "ask-again", question: await ask(userId, 2) }
        : { kind: "confirmed" };
    },
    cancel: (userId) => questions.cancel(userId),
  };
}

/** For one process without a database (unit tests): the same contract in memory. */
export function createMemoryForgetQuestions(): ForgetQuestions {
  const open = new Map<number, ForgetQuestion>();
  return {
    ask: async (userId, question) => {
      open.set(userId, question);
    },
    answer: async (userId, token) => {
      const question = open.get(userId);
      if (!question || question.token !== token) return undefined;
      open.delete(userId);
      return question;
    },
    cancel: async (userId) => open.delete(userId),
    expire: async (before) => {
      let dropped = 0;
      for (const [userId, question] of open) {
        if (question.expiresAt < before) {
          open.delete(userId);
          dropped += 1;
        }
      }
      return dropped;
    },
  };
}
