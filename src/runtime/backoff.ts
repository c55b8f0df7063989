/** Retry delays: 1 s, 2 s, 4 s … capped, with ±20 % jitter so replicas do not retry in step. */
export function backoffDelay(attempt: number, options: { initialMs?: number; maxMs?: number } = {}): number {
  const initial = options.initialMs ?? 1_000;
  const max = options.maxMs ?? 60_000;
  const base = Math.min(max, initial * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Resolves after `ms`, or early (false) when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
