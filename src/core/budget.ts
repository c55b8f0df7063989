/**
 * A run's overall time budget, on the core's monotonic timer: every model request is given what is left,
 * and a run whose budget is spent stops asking the model and ends the way a model failure does (the
 * briefing in its digest, chat in an apology), recorded with the reason.
 */
import { ModelError } from "./model.ts";

export interface Budget {
  /** Milliseconds left; never negative. */
  remainingMs(): number;
  /** Throws `DEADLINE_EXCEEDED` once the budget is spent, naming what was about to start. */
  ensure(what: string): void;
}

export function createBudget(timer: () => number, totalMs: number, label: string): Budget {
  const startedAt = timer();
  const remainingMs = () => Math.max(0, totalMs - (timer() - startedAt));
  return {
    remainingMs,
    ensure(what) {
      if (remainingMs() > 0) return;
      throw new ModelError(
        `${label} ran out of its ${Math.round(totalMs / 1000)} s budget before ${what}`,
        "DEADLINE_EXCEEDED",
      );
    },
  };
}
