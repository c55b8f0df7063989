/**
 * Keeps outgoing posts under a platform's limits: at most `globalPerSecond` overall and `perKeyPerSecond`
 * to any one chat, evenly spaced (no bursts, so a one-second window never holds more than the limit + 1).
 *
 * Hand-written rather than `bottleneck`: the rule is two spacings and a FIFO that lets a ready chat pass
 * one still cooling down, which is ~60 lines; bottleneck's per-key groups would need one limiter per chat
 * plus a shared one, and its last release is from 2019. The clock and timer are injectable for tests.
 */
import type { SendPacer } from "../core/assistant.ts";

export interface PacerLimits {
  globalPerSecond: number;
  perKeyPerSecond: number;
}

/**
 * Telegram Bot API FAQ: ~30 messages/s in bulk, about 1/s per chat. The outbox keeps to 23/s: the flood
 * gate holds all traffic to 25/s (room for jitter between our clock and Telegram's arrivals), and the
 * difference stays free for chat replies during a morning rush.
 */
export const TELEGRAM_LIMITS: PacerLimits = { globalPerSecond: 23, perKeyPerSecond: 1 };
/** Slack chat.postMessage: about 1/s per channel; the workspace-wide limit is unpublished, so stay modest. */
export const SLACK_LIMITS: PacerLimits = { globalPerSecond: 10, perKeyPerSecond: 1 };

/** A sender's pacer (the core's `SendPacer`), with its queue length for tests. */
export interface Pacer extends SendPacer {
  /** Resolves when a post to `key` may go out; callers then send at once. */
  acquire(key: string): Promise<void>;
  /**
   * The last gate before the wire: at most `globalPerSecond` sends in any trailing second. `acquire`
   * spaces releases evenly, but work between it and the request (recording the attempt in the database)
   * can bunch them up again; this holds a send back just long enough to keep every window under the limit.
   */
  beforeSend(): Promise<void>;
  /** Waiters not yet released. */
  readonly waiting: number;
}

interface Waiter {
  key: string;
  release(): void;
}

export function createPacer(
  limits: PacerLimits,
  options: { now?: () => number; setTimer?: (callback: () => void, ms: number) => void } = {},
): Pacer {
  if (!(limits.globalPerSecond > 0) || !(limits.perKeyPerSecond > 0)) {
    throw new Error(`pacer limits must be positive, got ${JSON.stringify(limits)}`);
  }
  const now = options.now ?? (() => performance.now());
  const setTimer =
    options.setTimer ??
    ((callback: () => void, ms: number) => {
      setTimeout(callback, ms);
    });
  const globalGap = 1000 / limits.globalPerSecond;
  const keyGap = 1000 / limits.perKeyPerSecond;
  const queue: Waiter[] = [];
  const keyReadyAt = new Map<string, number>();
  const recentSends: number[] = [];
  const windowLimit = Math.max(1, Math.floor(limits.globalPerSecond));
  let globalReadyAt = Number.NEGATIVE_INFINITY;
  let timerAt: number | undefined;

  function pump(): void {
    timerAt = undefined;
    for (;;) {
      if (queue.length === 0) return;
      const at = now();
      if (at < globalReadyAt) {
        arm(globalReadyAt);
        return;
      }
      const index = queue.findIndex(
        (waiter) => (keyReadyAt.get(waiter.key) ?? Number.NEGATIVE_INFINITY) <= at,
      );
      if (index < 0) {
        arm(Math.min(...queue.map((waiter) => keyReadyAt.get(waiter.key) ?? at)));
        return;
      }
      const [waiter] = queue.splice(index, 1);
      if (!waiter) return;
      globalReadyAt = at + globalGap;
      keyReadyAt.set(waiter.key, at + keyGap);
      forgetCooledKeys(at);
      waiter.release();
    }
  }

  function arm(at: number): void {
    if (timerAt !== undefined && timerAt <= at) return;
    timerAt = at;
    setTimer(pump, Math.max(0, Math.ceil(at - now())));
  }

  function forgetCooledKeys(at: number): void {
    if (keyReadyAt.size < 1024) return;
    for (const [key, readyAt] of keyReadyAt) if (readyAt <= at) keyReadyAt.delete(key);
  }

  return {
    acquire(key) {
      return new Promise<void>((release) => {
        queue.push({ key, release });
        pump();
      });
    },
    async beforeSend() {
      for (;;) {
        const at = now();
        while (recentSends.length > 0 && (recentSends[0] ?? at) <= at - 1000) recentSends.shift();
        if (recentSends.length < windowLimit) {
          recentSends.push(at);
          return;
        }
        const wait = (recentSends[0] ?? at) + 1000 - at;
        await new Promise<void>((resolve) => setTimer(resolve, Math.max(1, Math.ceil(wait))));
      }
    },
    get waiting() {
      return queue.length;
    },
  };
}
