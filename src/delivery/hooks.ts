/** What the scheduler and delivery worker report about themselves: log lines and metric observations. */

import type { Logger } from "../core/logger.ts";

/** The logger, every method optional so a test can pass `{}`. */
export type OpsLogger = Partial<Logger>;

/**
 * How one send attempt ended: posted; certainly not posted (refused connection, reset before the request
 * was written, a 5xx or 429 answer) and so safe to retry; maybe posted (timeout or connection lost after
 * the request went out) and so never re-sent; or refused for good (blocked, chat gone).
 */
export type DeliveryOutcome = "sent" | "not_sent" | "unknown" | "refused";

/** Metric hooks; `src/server/metrics.ts` implements them. Observers must not throw. */
export interface DeliveryObserver {
  /** One platform call: how long it took and how it ended. */
  deliveryAttempt?(platform: string, seconds: number, outcome: DeliveryOutcome): void;
  /** Claim → confirmed post (for a scheduled run, the tick its slot came due in). */
  deliveryLag?(platform: string, seconds: number): void;
}

export interface GenerationObserver {
  /** One scheduled generation: wall time and the state the run ended in. */
  generation?(seconds: number, state: string): void;
}

/** Calls an observer without letting it break the caller. */
export function notify(call: () => void): void {
  try {
    call();
  } catch {
    // A metrics bug must never stop a delivery.
  }
}
