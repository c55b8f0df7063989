/**
 * The budget every send on a platform token takes from: one pace per scope (the token, one chat, the
 * outbox's share), and the pauses 429s impose. The generic cell rate algorithm keeps one instant per
 * scope — when its next send is due — so a send is "take one interval from each scope it counts
 * against, all or none". With `burst` 1 sends are evenly spaced, so any window of the interval's
 * multiple holds no more than the rate allows.
 *
 * Two stores hold the state: this process's memory (the embedded database has one process), and the
 * PostgreSQL database (`db/stores/rate-buckets.ts`), where every replica sending on one token takes from
 * the same scopes and honours the same pauses.
 *
 * A pause alone cannot stop a request that was already past its check when the 429 was answered: the
 * platform closes the scope the moment it answers, we learn of it a round trip later. So each token (a
 * Slack method) also has a send lease, held by one request at a time across every process, from the
 * check of its pauses until its answer has been read and any pause it carried stored (see `FloodGate`).
 */

/** One scope's pace: a send every `intervalMs`, up to `burst` at once. */
export interface RateRule {
  scope: string;
  intervalMs: number;
  /** Sends that may go back to back before the pace applies. Default 1: evenly spaced. */
  burst?: number;
}

export type TakeResult =
  | { ok: true }
  /** Not now: try again in `waitMs`; `scope` is the one that said no, because of its pace or a pause. */
  | { ok: false; waitMs: number; scope: string; reason: "pace" | "pause" };

export interface RateLimitStore {
  /** Takes one send from every rule's scope, or from none: then says how long until it could. */
  take(rules: readonly RateRule[]): Promise<TakeResult>;
  /**
   * No send to `scopes` for `forMs` from now (a pause is only ever lengthened). Every scope at once: the
   * sooner the whole token is paused, the fewer requests other replicas send into the pause.
   */
  pause(scopes: string | readonly string[], forMs: number): Promise<void>;
  /** Milliseconds left of the scope's pause; 0 when it is not paused. */
  pausedFor(scope: string): Promise<number>;
  /**
   * The scope's send lease: resolves once no other holder, in any process sharing the store, has it, and
   * keeps it until the returned release is called or `forMs` has passed (a request that never ends must
   * not stop the token for good). Holders are served in the order they asked.
   */
  hold(scope: string, forMs: number): Promise<Release>;
}

/** Lets a held lease go; never rejects (a lease whose connection broke is already gone). */
export type Release = () => Promise<void>;

/** The algorithm, over one scope's stored instants; shared by both stores. */
export function decide(
  rules: readonly RateRule[],
  state: ReadonlyMap<string, { arrival: number; pausedUntil: number }>,
  now: number,
):
  | { ok: true; arrivals: Map<string, number> }
  | { ok: false; waitMs: number; scope: string; reason: "pace" | "pause" } {
  let worst: { waitMs: number; scope: string; reason: "pace" | "pause" } | undefined;
  const arrivals = new Map<string, number>();
  for (const rule of rules) {
    const stored = state.get(rule.scope);
    const arrival = Math.max(stored?.arrival ?? now, now);
    const tolerance = (Math.max(1, rule.burst ?? 1) - 1) * rule.intervalMs;
    const paceWait = arrival - tolerance - now;
    const pauseWait = (stored?.pausedUntil ?? 0) - now;
    const wait = Math.max(paceWait, pauseWait);
    if (wait > 0 && (!worst || wait > worst.waitMs)) {
      worst = { waitMs: wait, scope: rule.scope, reason: pauseWait >= paceWait ? "pause" : "pace" };
    }
    arrivals.set(rule.scope, arrival + rule.intervalMs);
  }
  return worst ? { ok: false, ...worst } : { ok: true, arrivals };
}

/** Leases among this process's requests: one queue per scope, first come first served. */
export function createLocalLeases(): (scope: string, forMs: number) => Promise<Release> {
  const tails = new Map<string, Promise<void>>();
  return async (scope, forMs) => {
    const before = tails.get(scope) ?? Promise.resolve();
    let free: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      free = resolve;
    });
    const tail = before.then(() => mine);
    tails.set(scope, tail);
    await before;
    const timer = setTimeout(() => free(), forMs);
    timer.unref?.();
    return async () => {
      clearTimeout(timer);
      free();
      if (tails.get(scope) === tail) tails.delete(scope);
    };
  };
}

/** Scopes in this process's memory, on a monotonic clock. */
export function createMemoryRateLimitStore(now: () => number = () => performance.now()): RateLimitStore {
  const state = new Map<string, { arrival: number; pausedUntil: number }>();
  const hold = createLocalLeases();
  const forgetIdle = (at: number) => {
    if (state.size < 10_000) return;
    for (const [scope, entry] of state) if (entry.arrival < at && entry.pausedUntil < at) state.delete(scope);
  };
  return {
    async take(rules) {
      const at = now();
      const verdict = decide(rules, state, at);
      if (!verdict.ok) return verdict;
      for (const [scope, arrival] of verdict.arrivals) {
        state.set(scope, { arrival, pausedUntil: state.get(scope)?.pausedUntil ?? 0 });
      }
      forgetIdle(at);
      return { ok: true };
    },
    async pause(scopes, forMs) {
      const at = now();
      for (const scope of typeof scopes === "string" ? [scopes] : scopes) {
        const entry = state.get(scope) ?? { arrival: at, pausedUntil: 0 };
        state.set(scope, { ...entry, pausedUntil: Math.max(entry.pausedUntil, at + forMs) });
      }
    },
    async pausedFor(scope) {
      return Math.max(0, (state.get(scope)?.pausedUntil ?? 0) - now());
    },
    hold,
  };
}

/**
 * What the database offers: a locked read-modify-write of some scopes, on its own clock; and pauses,
 * written and read without waiting for those locks (a 429 must reach the other replicas at once).
 */
export interface SharedBuckets {
  change<T>(
    scopes: readonly string[],
    rule: (
      state: ReadonlyMap<string, { arrival: number; pausedUntil: number }>,
      now: number,
    ) => { writes: ReadonlyMap<string, Partial<{ arrival: number }>>; answer: T },
  ): Promise<T>;
  pause(scopes: readonly string[], forMs: number): Promise<void>;
  pausedFor(scope: string): Promise<number>;
  /** The scope's lease among processes; this store queues its own process's holders in front of it. */
  hold(scope: string, forMs: number): Promise<Release>;
}

/** Scopes every process on one database shares: one budget per token, whoever sends. */
export function createSharedRateLimitStore(buckets: SharedBuckets): RateLimitStore {
  const nothing = new Map<string, Partial<{ arrival: number }>>();
  // One holder per process asks the database at a time: a waiter there holds a pooled connection.
  const holdHere = createLocalLeases();
  return {
    take: (rules) =>
      buckets.change<TakeResult>(
        rules.map((rule) => rule.scope),
        (state, now) => {
          const verdict = decide(rules, state, now);
          if (!verdict.ok) return { writes: nothing, answer: verdict };
          const writes = new Map([...verdict.arrivals].map(([scope, arrival]) => [scope, { arrival }]));
          return { writes, answer: { ok: true } };
        },
      ),
    pause: (scopes, forMs) => buckets.pause(typeof scopes === "string" ? [scopes] : scopes, forMs),
    pausedFor: (scope) => buckets.pausedFor(scope),
    async hold(scope, forMs) {
      const here = await holdHere(scope, forMs);
      let everywhere: Release;
      try {
        everywhere = await buckets.hold(scope, forMs);
      } catch (error) {
        await here();
        throw error;
      }
      return async () => {
        await everywhere();
        await here();
      };
    },
  };
}

/** The same store, its scopes named under `prefix` (one bot token's scopes apart from another's). */
export function scopedStore(store: RateLimitStore, prefix: string): RateLimitStore {
  const named = (scope: string) => `${prefix}:${scope}`;
  return {
    take: async (rules) => {
      const verdict = await store.take(rules.map((rule) => ({ ...rule, scope: named(rule.scope) })));
      return verdict.ok ? verdict : { ...verdict, scope: verdict.scope.slice(prefix.length + 1) };
    },
    pause: (scopes, forMs) =>
      store.pause(typeof scopes === "string" ? named(scopes) : scopes.map(named), forMs),
    pausedFor: (scope) => store.pausedFor(named(scope)),
    hold: (scope, forMs) => store.hold(named(scope), forMs),
  };
}
