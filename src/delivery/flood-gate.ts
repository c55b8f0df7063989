/**
 * One flood gate per bot token: a 429's `retry_after` pauses every request the limit covers — the whole
 * token (Telegram's global limit, a Slack method's limit) or one chat/channel — so no request to that
 * scope goes out before it elapses, whichever client (chat replies, the outbox) or retry sends it.
 *
 * It also paces what passes it, as the last step before the wire: no more than the platform's published
 * rate overall and per chat in any window. The outbox's pacer spaces deliveries evenly; this covers what
 * it cannot see — the second message of a long briefing, retries, chat replies — so our own traffic does
 * not earn the 429s in the first place.
 *
 * Neither platform says which limit a 429 enforced, so the gate works it out from its own send history:
 * if this chat had already used its allowance in the window (Telegram ~1/s per private chat, 20/min per
 * group; Slack ~1/s per channel), the chat's own limit explains the 429 and only the chat pauses;
 * otherwise — or when the token was also at its overall allowance — the whole token pauses too. A
 * conservative rule, as python-telegram-bot's rate limiter pauses everything, but without stopping every
 * other user's morning for one chat that two messages went to in a second.
 *
 * auto-retry (grammY) and the Slack client each wait out a 429 for the call that got it; neither stops the
 * other calls in flight or queued, which is what this adds.
 */

/** The limits a request counts against: its group (token/method) and, when it has one, its chat. */
export interface FloodScopes {
  /** "global" for a Telegram token, "method:<name>" for Slack. */
  group: string;
  /** "chat:<id>" or "channel:<id>". */
  key?: string | undefined;
}

export interface Allowance {
  max: number;
  windowMs: number;
}

export interface FloodGateOptions {
  platform: string;
  /** Sends one chat may take per window before its own limit can explain a 429. */
  keyAllowance(key: string): Allowance;
  /** The same for a whole group, when the platform publishes it. */
  groupAllowance?(group: string): Allowance | undefined;
  /**
   * The rate requests are held to before they go out, per chat and per group; undefined: not paced.
   * `paced: false` in `enter` skips it (chat actions, which the platforms do not count as messages).
   */
  keyPace?(key: string): Allowance | undefined;
  groupPace?(group: string): Allowance | undefined;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Added to every pause and pace window, against clock granularity and transit. Default 50 ms. */
  marginMs?: number;
}

export interface FloodGateStats {
  platform: string;
  /** 429s by the kind of scope they paused (global/method, chat/channel). */
  pausesByScope: Record<string, number>;
  /** Requests held until a 429's retry_after had elapsed, and for how long in total. */
  heldRequests: number;
  heldMs: number;
  /** Requests held back by the pacing, and for how long in total. */
  pacedRequests: number;
  pacedMs: number;
}

const HISTORY_MS = 60_000;

export class FloodGate {
  private readonly pausedUntil = new Map<string, number>();
  private readonly history = new Map<string, number[]>();
  private readonly pausesByScope: Record<string, number> = {};
  private heldRequests = 0;
  private heldMs = 0;
  private pacedRequests = 0;
  private pacedMs = 0;
  private readonly listeners = new Set<(scope: string, untilMs: number) => void>();

  constructor(private readonly options: FloodGateOptions) {}

  /**
   * Waits until neither scope is paused and the pace allows another request, then records the send
   * (call right before the request).
   */
  async enter(scopes: FloodScopes, signal?: AbortSignal, options: { paced?: boolean } = {}): Promise<void> {
    const paced = options.paced ?? true;
    let heldFor = 0;
    let pacedFor = 0;
    for (;;) {
      const now = this.now();
      const paused = Math.max(this.until(scopes.group), scopes.key ? this.until(scopes.key) : 0) - now;
      const pace = paced ? this.paceWait(scopes, now) : 0;
      const wait = Math.max(paused, pace);
      if (wait <= 0) break;
      if (paused > 0) heldFor += wait;
      else pacedFor += wait;
      await this.sleep(wait, signal);
    }
    if (heldFor > 0) {
      this.heldRequests += 1;
      this.heldMs += heldFor;
    }
    if (pacedFor > 0) {
      this.pacedRequests += 1;
      this.pacedMs += pacedFor;
    }
    const at = this.now();
    this.record(scopes.group, at);
    if (scopes.key) this.record(scopes.key, at);
  }

  /** A 429 answered a request to `scopes`: pause what it covers for `retryAfterMs` from now. */
  rateLimited(scopes: FloodScopes, retryAfterMs: number): void {
    const at = this.now();
    const keyExplains =
      scopes.key !== undefined && this.usedUp(scopes.key, this.options.keyAllowance(scopes.key), at);
    const groupAllowance = this.options.groupAllowance?.(scopes.group);
    const groupAtLimit = groupAllowance !== undefined && this.usedUp(scopes.group, groupAllowance, at);
    const until = at + retryAfterMs + (this.options.marginMs ?? 50);
    if (scopes.key !== undefined) this.pause(scopes.key, until);
    if (!keyExplains || groupAtLimit) this.pause(scopes.group, until);
  }

  /** When `scope` may be used again (monotonic ms), or undefined when it is not paused. */
  pausedUntilOf(scope: string): number | undefined {
    const until = this.pausedUntil.get(scope);
    return until !== undefined && until > this.now() ? until : undefined;
  }

  /** Called whenever a scope is paused (tests wait on it; logs). */
  onPause(listener: (scope: string, untilMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stats(): FloodGateStats {
    return {
      platform: this.options.platform,
      pausesByScope: { ...this.pausesByScope },
      heldRequests: this.heldRequests,
      heldMs: this.heldMs,
      pacedRequests: this.pacedRequests,
      pacedMs: this.pacedMs,
    };
  }

  /** How long until one more request fits the group's and the chat's pace. */
  private paceWait(scopes: FloodScopes, now: number): number {
    const limits: Array<[string, Allowance | undefined]> = [
      [scopes.group, this.options.groupPace?.(scopes.group)],
      ...(scopes.key
        ? [[scopes.key, this.options.keyPace?.(scopes.key)] as [string, Allowance | undefined]]
        : []),
    ];
    let wait = 0;
    const margin = this.options.marginMs ?? 50;
    for (const [scope, pace] of limits) {
      if (!pace) continue;
      const windowMs = pace.windowMs + margin;
      const sends = this.history.get(scope) ?? [];
      const inWindow = sends.length - firstAfter(sends, now - windowMs);
      if (inWindow < pace.max) continue;
      // The window frees when the oldest send that would still count leaves it.
      const oldest = sends[sends.length - pace.max] ?? now;
      wait = Math.max(wait, oldest + windowMs - now);
    }
    return wait;
  }

  private pause(scope: string, until: number): void {
    this.pausedUntil.set(scope, Math.max(this.until(scope), until));
    const kind = scope.includes(":") ? (scope.split(":")[0] ?? scope) : scope;
    this.pausesByScope[kind] = (this.pausesByScope[kind] ?? 0) + 1;
    for (const listener of this.listeners) listener(scope, until);
  }

  private until(scope: string): number {
    return this.pausedUntil.get(scope) ?? 0;
  }

  /** Whether `scope` had already used its allowance when the request that got the 429 went out. */
  private usedUp(scope: string, allowance: Allowance, at: number): boolean {
    const sends = this.history.get(scope) ?? [];
    return sends.length - firstAfter(sends, at - allowance.windowMs) > allowance.max;
  }

  private record(scope: string, at: number): void {
    const sends = this.history.get(scope) ?? [];
    sends.push(at);
    while (sends.length > 0 && (sends[0] ?? at) <= at - HISTORY_MS) sends.shift();
    this.history.set(scope, sends);
    if (this.history.size > 10_000) this.forgetQuietScopes(at);
  }

  private forgetQuietScopes(at: number): void {
    for (const [scope, sends] of this.history) {
      if ((sends.at(-1) ?? 0) <= at - HISTORY_MS) this.history.delete(scope);
    }
    for (const [scope, until] of this.pausedUntil) if (until <= at) this.pausedUntil.delete(scope);
  }

  private now(): number {
    return (this.options.now ?? (() => performance.now()))();
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.options.sleep) return this.options.sleep(ms, signal);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(done, Math.ceil(ms));
      function done() {
        signal?.removeEventListener("abort", aborted);
        resolve();
      }
      function aborted() {
        clearTimeout(timer);
        reject(signal?.reason instanceof Error ? signal.reason : new Error("request aborted"));
      }
      signal?.addEventListener("abort", aborted, { once: true });
    });
  }
}

/** Index of the first time in ascending `times` that is after `moment` (binary search). */
function firstAfter(times: number[], moment: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((times[middle] ?? 0) > moment) high = middle;
    else low = middle + 1;
  }
  return low;
}
