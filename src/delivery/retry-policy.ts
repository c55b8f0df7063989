/**
 * The one retry policy of a briefing's delivery: what is retried, how soon, and until when. Nothing else
 * retries a delivery — the platform clients the outbox sends through have no retries of their own — so a
 * 429's `retry_after`, a 5xx and a connection reset are all decided here, once.
 *
 * - refused for good (blocked, chat gone, bad request): never retried;
 * - maybe posted (the request went out, the answer was lost): never retried, to never post twice;
 * - certainly not posted: retried with back-off (1 s doubling to 5 min, never sooner than `retry_after`),
 *   at most `maxAttempts` times and never past the slot's window (`notAfter`). A connection that broke
 *   before the request left is most often a stale keep-alive socket, so the first such retry goes at once.
 */
import type { SendFailure } from "./send-outcome.ts";

export interface RetryPolicy {
  maxAttempts: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 30,
  baseBackoffMs: 1_000,
  maxBackoffMs: 300_000,
};

export type RetryDecision =
  | { retry: true; at: Date }
  | { retry: false; kind: "refused" | "unknown" | "gave-up" | "window-closed"; reason: string };

export function retryDecision(
  failure: SendFailure,
  attempt: { attempts: number; notAfter: Date | null; now: Date },
  overrides: Partial<RetryPolicy> = {},
): RetryDecision {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  const { attempts, notAfter, now } = attempt;
  if (failure.kind === "refused") return { retry: false, kind: "refused", reason: failure.reason };
  if (failure.kind === "unknown") {
    return {
      retry: false,
      kind: "unknown",
      reason: `send outcome unknown (${failure.reason}); not re-sent to avoid a duplicate`,
    };
  }
  if (attempts >= policy.maxAttempts) {
    return { retry: false, kind: "gave-up", reason: `gave up after ${attempts} attempts: ${failure.reason}` };
  }
  const backoff =
    !failure.answered && attempts === 1
      ? 0
      : Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** Math.max(0, attempts - 1));
  const at = new Date(now.getTime() + Math.max(backoff, failure.retryAfterMs ?? 0));
  if (notAfter && at > notAfter) {
    return { retry: false, kind: "window-closed", reason: `missed window while retrying: ${failure.reason}` };
  }
  return { retry: true, at };
}
