import type { ModelRole } from "../core/model.ts";
import { BusyMeter, type Utilisation } from "./busy-meter.ts";

/**
 * The slots of every Ollama endpoint and the work waiting for them, in one place, so a request can take
 * whichever of its route's endpoints frees first (work-conserving) while interactive work keeps strict
 * priority:
 *
 * - waiting interactive work is served before anything else, FIFO among itself;
 * - briefing and background work take any free endpoint their route lists, FIFO among themselves, but a
 *   later request may pass an earlier one whose endpoints are all busy (no head-of-line blocking);
 * - on an endpoint that serves the interactive route, other work never starts while interactive work
 *   waits for it, and holds at most `max(1, concurrency - 1)` slots: with Ollama's usual one request at a
 *   time that is one briefing request, so a question waits behind at most one; with more parallel slots
 *   one always stays free for questions;
 * - a request whose conversation ran on an endpoint before (its prompt is cached there) takes that one
 *   when it is free, and may pass up to {@link AFFINITY_LOOKAHEAD} - 1 earlier waiters to get it;
 * - a running request is never preempted.
 */
/** How many waiters, from the front, may claim the endpoint that has their conversation's prompt. */
export const AFFINITY_LOOKAHEAD = 8;

export class EndpointPool {
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly waiting: Waiter[] = [];
  private readonly interactiveEndpoints: Set<string>;

  constructor(
    endpoints: Array<{ name: string; concurrency: number }>,
    private readonly options: {
      /** Endpoints the interactive route runs on: other work is capped there. */
      interactiveEndpoints: Iterable<string>;
      now?: () => number;
      /** Off only to measure what priority buys (the routing bench): plain FIFO, no caps. */
      prioritizeInteractive?: boolean;
    },
  ) {
    const now = this.now();
    for (const endpoint of endpoints) {
      this.endpoints.set(endpoint.name, {
        name: endpoint.name,
        concurrency: endpoint.concurrency,
        running: emptyByRole(),
        waits: emptyWaitTotals(),
        waitsByRole: {
          interactive: emptyWaitTotals(),
          briefing: emptyWaitTotals(),
          background: emptyWaitTotals(),
        },
        spilledIn: emptyByRole(),
        meter: new BusyMeter(endpoint.concurrency, now),
        downUntil: Number.NEGATIVE_INFINITY,
      });
    }
    this.interactiveEndpoints = new Set(options.interactiveEndpoints);
  }

  /**
   * Waits for a slot on one of `candidates`. Rejects with the signal's reason when aborted while still
   * waiting (nothing is held). The returned `release` is idempotent.
   */
  acquire(request: LeaseRequest): Promise<Lease> {
    const { signal } = request;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const candidates = request.candidates.filter((name) => this.endpoints.has(name));
    if (candidates.length === 0) {
      return Promise.reject(new Error(`no such endpoint: ${request.candidates.join(", ")}`));
    }
    return new Promise<Lease>((resolve, reject) => {
      const onAbort = () => {
        const position = this.waiting.indexOf(waiter);
        if (position < 0) return;
        this.waiting.splice(position, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        role: request.role,
        candidates,
        preferred: request.preferred,
        enqueuedAt: this.now(),
        grant: (lease) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(lease);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      this.pump();
    });
  }

  /**
   * An endpoint that just failed a request (refused, 5xx after retries, stalled): work that may run
   * elsewhere avoids it until `untilMs` (monotonic); work with nowhere else to go still tries it.
   */
  markDown(endpoint: string, untilMs: number): void {
    const state = this.endpoints.get(endpoint);
    if (state) state.downUntil = Math.max(state.downUntil, untilMs);
  }

  markUp(endpoint: string): void {
    const state = this.endpoints.get(endpoint);
    if (state) state.downUntil = Number.NEGATIVE_INFINITY;
  }

  stats(): EndpointStats[] {
    return [...this.endpoints.keys()].map((name) => this.statsOf(name));
  }

  statsOf(name: string): EndpointStats {
    const state = this.endpoints.get(name);
    if (!state) throw new Error(`no such endpoint: ${name}`);
    const now = this.now();
    const mine = this.waiting.filter((waiter) => waiter.candidates[0] === name);
    const queuedByRole = emptyByRole();
    for (const waiter of mine) queuedByRole[waiter.role] += 1;
    const oldest = mine.reduce((min, waiter) => Math.min(min, waiter.enqueuedAt), now);
    return {
      endpoint: name,
      concurrency: state.concurrency,
      running: total(state.running),
      runningByRole: { ...state.running },
      queued: mine.length,
      queuedByRole,
      oldestQueuedMs: now - oldest,
      waits: { ...state.waits },
      waitsByRole: {
        interactive: { ...state.waitsByRole.interactive },
        briefing: { ...state.waitsByRole.briefing },
        background: { ...state.waitsByRole.background },
      },
      spilledIn: { ...state.spilledIn },
      busyMsByRole: state.meter.busyByRole(now),
      utilisation: state.meter.utilisation(now),
      down: state.downUntil > now,
    };
  }

  private now(): number {
    return (this.options.now ?? (() => performance.now()))();
  }

  private get prioritize(): boolean {
    return this.options.prioritizeInteractive ?? true;
  }

  /** Hands free slots to waiters: interactive first (when prioritizing), then arrival order. */
  private pump(): void {
    const classes = this.prioritize
      ? [
          this.waiting.filter((waiter) => waiter.role === "interactive"),
          this.waiting.filter((waiter) => waiter.role !== "interactive"),
        ]
      : [[...this.waiting]];
    const granted = new Set<Waiter>();
    const grant = (waiter: Waiter, endpoint: EndpointState) => {
      granted.add(waiter);
      this.waiting.splice(this.waiting.indexOf(waiter), 1);
      waiter.grant(this.lease(waiter, endpoint));
    };
    const now = this.now();
    for (const order of classes) {
      const questionsFor = new Set(
        this.waiting.filter((waiter) => waiter.role === "interactive").flatMap((waiter) => waiter.candidates),
      );
      // Conversations whose cached prompt sits on a free endpoint first, within a short lookahead.
      for (const waiter of order.slice(0, AFFINITY_LOOKAHEAD)) {
        const preferred = waiter.preferred === undefined ? undefined : this.endpoints.get(waiter.preferred);
        if (
          preferred &&
          preferred.downUntil <= now &&
          waiter.candidates.includes(preferred.name) &&
          this.mayStart(waiter, preferred, questionsFor)
        ) {
          grant(waiter, preferred);
        }
      }
      for (const waiter of order) {
        if (granted.has(waiter)) continue;
        if (![...this.endpoints.values()].some((state) => total(state.running) < state.concurrency)) return;
        const endpoint = this.choose(waiter, questionsFor);
        if (endpoint !== undefined) grant(waiter, endpoint);
      }
    }
  }

  private choose(waiter: Waiter, questionsFor: Set<string>): EndpointState | undefined {
    const now = this.now();
    const ordered =
      waiter.preferred !== undefined && waiter.candidates.includes(waiter.preferred)
        ? [waiter.preferred, ...waiter.candidates.filter((name) => name !== waiter.preferred)]
        : waiter.candidates;
    const states = ordered.map((name) => this.endpoints.get(name) as EndpointState);
    // A failing endpoint is skipped while another candidate is healthy.
    const healthy = states.filter((state) => state.downUntil <= now);
    const usable = healthy.length > 0 ? healthy : states;
    return usable.find((state) => this.mayStart(waiter, state, questionsFor));
  }

  /** `questionsFor`: endpoints that interactive work is waiting for. */
  private mayStart(waiter: Waiter, state: EndpointState, questionsFor: Set<string>): boolean {
    if (total(state.running) >= state.concurrency) return false;
    if (!this.prioritize || waiter.role === "interactive") return true;
    if (!this.interactiveEndpoints.has(state.name)) return true;
    if (questionsFor.has(state.name)) return false;
    const others = state.running.briefing + state.running.background;
    return others < Math.max(1, state.concurrency - 1);
  }

  private lease(waiter: Waiter, state: EndpointState): Lease {
    const now = this.now();
    const waitedMs = now - waiter.enqueuedAt;
    recordWait(state.waits, waitedMs);
    recordWait(state.waitsByRole[waiter.role], waitedMs);
    if (state.name !== waiter.candidates[0]) state.spilledIn[waiter.role] += 1;
    state.running[waiter.role] += 1;
    const busy = state.meter.start(waiter.role, now);
    let released = false;
    return {
      endpoint: state.name,
      waitedMs,
      release: () => {
        if (released) return;
        released = true;
        state.running[waiter.role] -= 1;
        busy.end(this.now());
        this.pump();
      },
    };
  }
}

export interface LeaseRequest {
  role: ModelRole;
  /** Endpoints the work may run on, in order of preference. */
  candidates: string[];
  /** Taken first when free: where the conversation's prompt is already cached. */
  preferred?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface Lease {
  endpoint: string;
  waitedMs: number;
  release(): void;
}

export interface WaitTotals {
  /** Slots granted. */
  count: number;
  totalMs: number;
  maxMs: number;
  lastMs: number;
}

/** One endpoint's gauges and counters, for `/metrics` and `briefbot models`. */
export interface EndpointStats {
  endpoint: string;
  concurrency: number;
  running: number;
  runningByRole: Record<ModelRole, number>;
  /** Waiting work whose route's own endpoint this is (it may still run elsewhere). */
  queued: number;
  queuedByRole: Record<ModelRole, number>;
  /** How long the oldest of those has waited so far; 0 when none waits. */
  oldestQueuedMs: number;
  /** Slots granted here and how long they waited. */
  waits: WaitTotals;
  waitsByRole: Record<ModelRole, WaitTotals>;
  /** Requests served here although their route's own endpoint is another one. */
  spilledIn: Record<ModelRole, number>;
  /** Slot time used since start, by role (running requests included so far). */
  busyMsByRole: Record<ModelRole, number>;
  utilisation: Utilisation;
  /** Recently failed; spread work avoids it for now. */
  down: boolean;
}

interface EndpointState {
  name: string;
  concurrency: number;
  running: Record<ModelRole, number>;
  waits: WaitTotals;
  waitsByRole: Record<ModelRole, WaitTotals>;
  spilledIn: Record<ModelRole, number>;
  meter: BusyMeter;
  downUntil: number;
}

interface Waiter {
  role: ModelRole;
  candidates: string[];
  preferred: string | undefined;
  enqueuedAt: number;
  grant(lease: Lease): void;
}

function emptyByRole(): Record<ModelRole, number> {
  return { interactive: 0, briefing: 0, background: 0 };
}

function total(byRole: Record<ModelRole, number>): number {
  return byRole.interactive + byRole.briefing + byRole.background;
}

function emptyWaitTotals(): WaitTotals {
  return { count: 0, totalMs: 0, maxMs: 0, lastMs: 0 };
}

function recordWait(totals: WaitTotals, waitedMs: number): void {
  totals.count += 1;
  totals.totalMs += waitedMs;
  totals.maxMs = Math.max(totals.maxMs, waitedMs);
  totals.lastMs = waitedMs;
}
