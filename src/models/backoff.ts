export interface RetryPolicy {
  /** Tries per endpoint, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Enough to ride out a cold model load racing the first request (Ollama returns 500 while the runner starts). */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 10_000 };

/** Delay before retry number `retry` (1-based): doubling from `baseDelayMs`, capped at `maxDelayMs`. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
