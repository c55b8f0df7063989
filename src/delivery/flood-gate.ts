/**
 * One flood gate per bot token: a 429's `retry_after` pauses every request the limit covers — the whole
 * token (Telegram's global limit, a Slack method's limit) or one chat/channel — so no request to that
 * scope goes out before it elapses, whichever client (chat replies, the outbox) or retry sends it.
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
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Added to every pause, against clock granularity between us and the platform. Default 50 ms. */
  marginMs?: number;
}

export interface FloodGateStats {
  platform: string;
  /** 429s by the kind of scope they paused (global/method, chat/channel). */
  pausesByScope: Record<string, number>;
  heldRequests: number;
  heldMs: number;
}

const HISTORY_MS = 60_000;

export class FloodGate {
  private readonly pausedUntil = new Map<string, number>();
  private readonly history = new Map<string, number[]>();
  private readonly pausesByScope: Record<string, number> = {};
  private heldRequests = 0;
  private heldMs = 0;
  private readonly listeners = new Set<(scope: string, untilMs: number) => void>();

  constructor(private readonly options: FloodGateOptions) {}

  /** Waits until neither scope is paused, then records the send (call right before the request). */
  async enter(scopes: FloodScopes, signal?: AbortSignal): Promise<void> {
    let held = false;
    const startedAt = this.now();
    for (;;) {
      const until = Math.max(this.until(scopes.group), scopes.key ? this.until(scopes.key) : 0);
      const wait = until - this.now();
      if (wait <= 0) break;
      held = true;
      await this.sleep(wait, signal);
    }
    if (held) {
      this.heldRequests += 1;
      this.heldMs += this.now() - startedAt;
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
    };
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
    return sends.filter((sentAt) => sentAt > at - allowance.windowMs).length > allowance.max;
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
