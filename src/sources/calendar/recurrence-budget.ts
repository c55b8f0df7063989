/**
 * How much work one calendar may cost. A recurrence rule is a program the calendar's author wrote, so
 * it runs on a budget: per series (one bad invitation in a shared calendar must not starve the rest)
 * and per calendar (fifty bad series must not add up to minutes), in occurrences, in iterator steps and
 * in time. Whatever is cut is named in the calendar's warnings.
 */
import type ICAL from "ical.js";

export interface RecurrenceLimits {
  /** Occurrences one series may add inside the sync window. */
  instancesPerSeries: number;
  /** Occurrences one calendar may store (single events included). */
  instancesPerCalendar: number;
  /** Turns of the recurrence iterator for one series, matching or not. */
  stepsPerSeries: number;
  stepsPerCalendar: number;
  /** Time for the whole expansion; it runs alone on a worker thread, so this bounds its CPU time. */
  timeMs: number;
}

/**
 * A busy calendar has a few hundred occurrences in the two-week window, and a daily series from 1990
 * takes about 13,000 steps to reach it; one step costs 3–8 µs, so a series is cut after about half a
 * second and a calendar after three. Occurrences are capped lower than work: each is a row the database
 * stores on every sync (embedded PGlite takes about 0.1 s per 1,000 rows, on the event loop).
 */
export const DEFAULT_RECURRENCE_LIMITS: RecurrenceLimits = {
  instancesPerSeries: 1_000,
  instancesPerCalendar: 5_000,
  stepsPerSeries: 100_000,
  stepsPerCalendar: 1_000_000,
  timeMs: 3_000,
};

/** Thrown from inside ical.js's iterator when a budget runs out; the message says which. */
export class BudgetCut extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BudgetCut";
  }
}

/** The time is read every this many steps: often enough to stop within milliseconds, cheap enough to vanish. */
const TIME_CHECK_EVERY = 1024;

export class RecurrenceBudget {
  private steps = 0;
  private instances = 0;
  private readonly startedAt: number;
  private exhausted: string | undefined;

  constructor(
    readonly limits: RecurrenceLimits,
    private readonly elapsedMs: () => number,
  ) {
    this.startedAt = elapsedMs();
  }

  /** Why the calendar's budget is spent, or undefined while there is some left. */
  spent(): string | undefined {
    if (this.exhausted) return this.exhausted;
    if (this.instances >= this.limits.instancesPerCalendar) {
      this.exhausted = `its ${formatCount(this.limits.instancesPerCalendar)} occurrences are used up`;
    } else if (this.steps >= this.limits.stepsPerCalendar) {
      this.exhausted = `its ${formatCount(this.limits.stepsPerCalendar)} recurrence steps are used up`;
    } else if (this.elapsedMs() - this.startedAt >= this.limits.timeMs) {
      this.exhausted = `its ${formatCount(this.limits.timeMs)} ms of expansion time are used up`;
    }
    return this.exhausted;
  }

  /** Takes one occurrence from the calendar's allowance; false once it is full. */
  takeInstance(): boolean {
    if (this.instances >= this.limits.instancesPerCalendar) return false;
    this.instances += 1;
    return true;
  }

  /**
   * Counts every inner turn of the iterator. ical.js loops inside one `next()` call until the rule's
   * BY-parts match, so a rule that can never match (FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30) would never
   * return; `check_contracting_rules` runs on every such turn, so metering it bounds them all.
   */
  meter(iterator: ICAL.RecurIterator): void {
    let seriesSteps = 0;
    const check = iterator.check_contracting_rules.bind(iterator);
    iterator.check_contracting_rules = () => {
      seriesSteps += 1;
      this.steps += 1;
      if (seriesSteps > this.limits.stepsPerSeries) {
        throw new BudgetCut(`stopped after ${formatCount(this.limits.stepsPerSeries)} recurrence steps`);
      }
      if (this.steps % TIME_CHECK_EVERY === 0 || this.steps >= this.limits.stepsPerCalendar) {
        const reason = this.spent();
        if (reason) throw new BudgetCut(`stopped: the calendar's recurrence budget ran out (${reason})`);
      }
      return check();
    };
  }
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}
