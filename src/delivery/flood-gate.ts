/**
 * One flood gate per bot token: the one rate limiter every request on the token passes, chat replies and
 * the outbox alike, right before the wire. It holds each request until every scope it counts against — the
 * whole token (Telegram's overall limit, a Slack method), the outbox's share of it, one chat or channel —
 * has a slot at its pace and is not paused by a 429, then takes those slots.
 *
 * The slots live in a `RateLimitStore`: this process's memory on the embedded database, the database
 * itself on PostgreSQL, so every replica sending on one token shares one budget and honours one pause.
 * In front of the store, a queue per process keeps the order fair: questions go before briefings (a person
 * waiting beats a briefing at its slot), first come first served within each, and a chat still cooling down
 * is passed by the next one that is free, so one busy chat never holds up everyone's morning.
 *
 * Neither platform says which limit a 429 enforced, and every chat is already paced under its own limit, so
 * a 429 pauses everything the request counted against — its chat and the whole token (or Slack method) —
 * for `retry_after`, as python-telegram-bot's limiter does: nothing on that scope goes out before it ends.
 *
 * A pause only stops requests that check it after it is stored, and the platform closes the scope the
 * moment it answers the 429 — a round trip and a database write before we can store it. So a request is
 * sent (`send`) under its group's send lease (the token; a Slack method), held across every process from
 * the check of its pace and pauses until its answer has been read and any 429's pause stored. The
 * guarantee: no request on a token is written while the answer to another request on it is still
 * outstanding, so none is written after the platform closed the token and before that pause ends. The
 * price: one request in flight per token, so its rate is at most one per round trip.
 *
 * The outbox reserves its slot before it claims a row (`reserve`), so a row is marked `sending` only once
 * its turn has come; the reserved slot is then used by that briefing's first request, which still waits
 * for the lease and checks the pauses under it.
 */
import type { RateLimitStore, RateRule, Release } from "./rate-limits.ts";

/** The limits a request counts against: its group (token/method) and, when it has one, its chat. */
export interface FloodScopes {
  /** "global" for a Telegram token, "method:<name>" for Slack. */
  group: string;
  /** "chat:<id>" or "channel:<id>". */
  key?: string | undefined;
}

/** Who sends: a person is waiting (chat replies), a briefing (the outbox), or nothing counted (typing…). */
export type Lane = "interactive" | "outbox" | "unpaced";

export interface FloodGateOptions {
  platform: string;
  store: RateLimitStore;
  /** The paces a request of `lane` to `scopes` takes a slot of. */
  rules(scopes: FloodScopes, lane: Exclude<Lane, "unpaced">): RateRule[];
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Added to every pause, against clock granularity and transit. Default 50 ms. */
  marginMs?: number;
  /** Longest a request holds its group's send lease (a request without an answer lets it go then). */
  leaseMs?: number;
  now?: () => number;
}

export interface FloodGateStats {
  platform: string;
  /** 429s by the kind of scope they paused (global/method, chat/channel). */
  pausesByScope: Record<string, number>;
  /** Requests held until a 429's retry_after had elapsed, and for how long in total. */
  heldRequests: number;
  heldMs: number;
  /** Requests held back by the pace, and for how long in total. */
  pacedRequests: number;
  pacedMs: number;
}

interface Waiter {
  scopes: FloodScopes;
  lane: Exclude<Lane, "unpaced">;
  since: number;
  /** Whether it was refused at least once, and whether by a pause (held) rather than the pace. */
  waited: boolean;
  held: boolean;
  /** Whether a request follows, so the slot is taken under the send lease and the lease handed over. */
  leased: boolean;
  resolve(release: Release): void;
  reject(error: Error): void;
}

/** A reservation the outbox made and has not used yet is dropped after this. */
const RESERVATION_MS = 30_000;
/** The outbox's request deadline (send-transport): a request without an answer by then lets the lease go. */
const LEASE_MS = 30_000;
const released: Release = async () => {};

export class FloodGate {
  private readonly queue: Waiter[] = [];
  /** Chats the store said are cooling down, until when (this process's hint; the store decides). */
  private readonly coolingUntil = new Map<string, number>();
  private readonly reservations = new Map<string, number[]>();
  private readonly pausesByScope: Record<string, number> = {};
  private readonly listeners = new Set<(scope: string, forMs: number) => void>();
  private pumping: Promise<void> | undefined;
  /** Ends the pump's current wait early: a new request may be free to go. */
  private wake: (() => void) | undefined;
  private heldRequests = 0;
  private heldMs = 0;
  private pacedRequests = 0;
  private pacedMs = 0;

  constructor(private readonly options: FloodGateOptions) {}

  /**
   * Sends one request: waits for its turn, takes its slots under its group's send lease, runs `write` (the
   * request; it calls `rateLimited` itself on a 429, before it returns) and only then lets the lease go.
   */
  async send<T>(
    scopes: FloodScopes,
    write: () => Promise<T>,
    options: { signal?: AbortSignal | undefined; lane?: Lane } = {},
  ): Promise<T> {
    const { signal } = options;
    const lane = options.lane ?? "interactive";
    const release =
      lane === "unpaced" || (lane === "outbox" && this.useReservation(scopes.key))
        ? await this.clearOfPauses(scopes, signal)
        : await this.queued(scopes, lane, signal, true);
    try {
      return await write();
    } finally {
      await release();
    }
  }

  /** The outbox's turn for a post to `scopes`, taken now and used by its first request. */
  async reserve(scopes: FloodScopes, signal?: AbortSignal): Promise<void> {
    await this.queued(scopes, "outbox", signal, false);
    if (!scopes.key) return;
    const held = this.reservations.get(scopes.key) ?? [];
    held.push(this.now() + RESERVATION_MS);
    this.reservations.set(scopes.key, held);
  }

  /** A 429 answered a request to `scopes`: pause what it covers for `retryAfterMs` from now. */
  async rateLimited(scopes: FloodScopes, retryAfterMs: number): Promise<void> {
    const forMs = retryAfterMs + (this.options.marginMs ?? 50);
    await this.pause(scopes.key === undefined ? [scopes.group] : [scopes.group, scopes.key], forMs);
  }

  /** Milliseconds left of a scope's pause; 0 when it is not paused. */
  pausedFor(scope: string): Promise<number> {
    return this.options.store.pausedFor(scope);
  }

  /** Called whenever a scope is paused (tests wait on it; logs). */
  onPause(listener: (scope: string, forMs: number) => void): () => void {
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

  /** Requests waiting for their turn in this process. */
  get waiting(): number {
    return this.queue.length;
  }

  private queued(
    scopes: FloodScopes,
    lane: Exclude<Lane, "unpaced">,
    signal: AbortSignal | undefined,
    leased: boolean,
  ): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const waiter: Waiter = {
        scopes,
        lane,
        since: this.now(),
        waited: false,
        held: false,
        leased,
        resolve,
        reject,
      };
      // Questions go ahead of briefings; arrival order within each.
      const firstBriefing = this.queue.findIndex((queued) => queued.lane === "outbox");
      if (lane === "interactive" && firstBriefing >= 0) this.queue.splice(firstBriefing, 0, waiter);
      else this.queue.push(waiter);
      this.wake?.();
      signal?.addEventListener(
        "abort",
        () => {
          const index = this.queue.indexOf(waiter);
          if (index >= 0) this.queue.splice(index, 1);
          reject(abortReason(signal));
        },
        { once: true },
      );
      this.pumping ??= this.pump().finally(() => {
        this.pumping = undefined;
        if (this.queue.length > 0) this.pumping ??= this.pump();
      });
    });
  }

  /**
   * One request at a time asks the store, in queue order, skipping chats known to be cooling down. A
   * request's slots are taken under its send lease, so the pump waits here while another request on the
   * token is out; the lease goes with the slots to the request, or back at once on a refusal.
   */
  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const now = this.now();
      const next = this.queue.find((waiter) => (this.coolingUntil.get(waiter.scopes.key ?? "") ?? 0) <= now);
      if (!next) {
        const soonest = Math.min(
          ...this.queue.map((waiter) => this.coolingUntil.get(waiter.scopes.key ?? "") ?? now),
        );
        await this.idle(Math.max(1, soonest - now));
        continue;
      }
      let verdict: Awaited<ReturnType<RateLimitStore["take"]>>;
      let lease = released;
      try {
        if (next.leased) lease = await this.hold(next.scopes);
        // Given up while the lease was out with another request.
        if (!this.queue.includes(next)) {
          await lease();
          continue;
        }
        verdict = await this.options.store.take(this.options.rules(next.scopes, next.lane));
      } catch (error) {
        await lease();
        this.remove(next);
        next.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (verdict.ok) {
        this.remove(next);
        this.account(next);
        next.resolve(lease);
        continue;
      }
      await lease();
      next.waited = true;
      if (verdict.reason === "pause") next.held = true;
      if (next.scopes.key !== undefined && verdict.scope === next.scopes.key) {
        this.coolingUntil.set(next.scopes.key, now + verdict.waitMs);
        this.forgetCooled(now);
      } else {
        await this.idle(verdict.waitMs);
      }
    }
  }

  /** The pump waits, unless a new request arrives first (it may go before the one that must wait). */
  private async idle(ms: number): Promise<void> {
    const woken = new AbortController();
    this.wake = () => woken.abort();
    try {
      await this.sleep(ms, woken.signal);
    } catch {
      // Woken early: look at the queue again.
    } finally {
      this.wake = undefined;
    }
  }

  /** Unpaced requests (chat actions) and reserved ones still wait out a pause, checked under the lease. */
  private async clearOfPauses(scopes: FloodScopes, signal?: AbortSignal): Promise<Release> {
    const started = this.now();
    let held = false;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const lease = await this.hold(scopes);
      let wait: number;
      try {
        const [group, key] = await Promise.all([
          this.options.store.pausedFor(scopes.group),
          scopes.key ? this.options.store.pausedFor(scopes.key) : Promise.resolve(0),
        ]);
        wait = Math.max(group, key);
      } catch (error) {
        await lease();
        throw error;
      }
      if (wait <= 0) {
        if (held) {
          this.heldRequests += 1;
          this.heldMs += this.now() - started;
        }
        return lease;
      }
      await lease();
      held = true;
      await this.sleep(wait, signal);
    }
  }

  /** The send lease of the request's group: one request out at a time on it, across processes. */
  private hold(scopes: FloodScopes): Promise<Release> {
    return this.options.store.hold(scopes.group, this.options.leaseMs ?? LEASE_MS);
  }

  private useReservation(key: string | undefined): boolean {
    if (key === undefined) return false;
    const now = this.now();
    const held = (this.reservations.get(key) ?? []).filter((expiry) => expiry > now);
    const used = held.shift() !== undefined;
    if (held.length > 0) this.reservations.set(key, held);
    else this.reservations.delete(key);
    return used;
  }

  private account(waiter: Waiter): void {
    if (!waiter.waited) return;
    const waited = this.now() - waiter.since;
    if (waiter.held) {
      this.heldRequests += 1;
      this.heldMs += waited;
    } else {
      this.pacedRequests += 1;
      this.pacedMs += waited;
    }
  }

  /** One write for every scope a 429 covers: the token-wide pause reaches other replicas at once. */
  private async pause(scopes: readonly string[], forMs: number): Promise<void> {
    await this.options.store.pause(scopes, forMs);
    for (const scope of scopes) {
      const kind = scope.includes(":") ? (scope.split(":")[0] ?? scope) : scope;
      this.pausesByScope[kind] = (this.pausesByScope[kind] ?? 0) + 1;
      for (const listener of this.listeners) listener(scope, forMs);
    }
  }

  private remove(waiter: Waiter): void {
    const index = this.queue.indexOf(waiter);
    if (index >= 0) this.queue.splice(index, 1);
  }

  private forgetCooled(now: number): void {
    if (this.coolingUntil.size < 1024) return;
    for (const [key, until] of this.coolingUntil) if (until <= now) this.coolingUntil.delete(key);
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
        reject(abortReason(signal));
      }
      signal?.addEventListener("abort", aborted, { once: true });
    });
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error("request aborted");
}
