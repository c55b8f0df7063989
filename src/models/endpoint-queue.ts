import type { ModelRole } from "../core/model.ts";

/**
 * One queue per Ollama endpoint. Ollama runs one request per model at a time (`OLLAMA_NUM_PARALLEL=1`);
 * queueing here rather than in Ollama lets a question jump ahead of queued briefing and background work.
 * A running request is never preempted: priority only decides who gets the next free slot.
 */
export class EndpointQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly waits = emptyWaitTotals();
  private readonly waitsByRole: Record<ModelRole, WaitTotals> = {
    interactive: emptyWaitTotals(),
    briefing: emptyWaitTotals(),
    background: emptyWaitTotals(),
  };

  constructor(
    readonly endpoint: string,
    readonly concurrency: number,
    private readonly now: () => number = () => performance.now(),
    /** Off only to measure what priority buys (the routing bench). */
    private readonly prioritizeInteractive = true,
  ) {}

  /**
   * Waits for a slot. Rejects with the signal's reason when aborted while still queued (nothing is held).
   * The returned `release` is idempotent.
   */
  acquire(role: ModelRole, signal?: AbortSignal): Promise<QueueSlot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const enqueuedAt = this.now();
    if (this.running < this.concurrency && this.waiting.length === 0) {
      this.running += 1;
      return Promise.resolve(this.grant(role, enqueuedAt));
    }
    return new Promise<QueueSlot>((resolve, reject) => {
      const onAbort = () => {
        const position = this.waiting.indexOf(waiter);
        if (position >= 0) this.waiting.splice(position, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        role,
        enqueuedAt,
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.grant(role, enqueuedAt));
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      // Interactive work goes after other queued interactive work but before everything else.
      const firstLowerPriority =
        role === "interactive" && this.prioritizeInteractive
          ? this.waiting.findIndex((queued) => queued.role !== "interactive")
          : -1;
      if (firstLowerPriority < 0) this.waiting.push(waiter);
      else this.waiting.splice(firstLowerPriority, 0, waiter);
    });
  }

  stats(): EndpointQueueStats {
    const now = this.now();
    const queuedByRole: Record<ModelRole, number> = { interactive: 0, briefing: 0, background: 0 };
    for (const waiter of this.waiting) queuedByRole[waiter.role] += 1;
    const oldest = this.waiting.reduce((min, waiter) => Math.min(min, waiter.enqueuedAt), now);
    return {
      endpoint: this.endpoint,
      concurrency: this.concurrency,
      running: this.running,
      queued: this.waiting.length,
      queuedByRole,
      oldestQueuedMs: now - oldest,
      waits: { ...this.waits },
      waitsByRole: {
        interactive: { ...this.waitsByRole.interactive },
        briefing: { ...this.waitsByRole.briefing },
        background: { ...this.waitsByRole.background },
      },
    };
  }

  private grant(role: ModelRole, enqueuedAt: number): QueueSlot {
    const waitedMs = this.now() - enqueuedAt;
    recordWait(this.waits, waitedMs);
    recordWait(this.waitsByRole[role], waitedMs);
    let released = false;
    return {
      waitedMs,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        // The slot passes straight to the next waiter, so `running` only drops when nobody waits.
        if (next) next.start();
        else this.running -= 1;
      },
    };
  }
}

export interface QueueSlot {
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

/** For `/metrics`: gauges (`running`, `queued`) and wait-time counters (`waits.count`, `waits.totalMs`). */
export interface EndpointQueueStats {
  endpoint: string;
  concurrency: number;
  running: number;
  queued: number;
  queuedByRole: Record<ModelRole, number>;
  /** How long the oldest queued request has waited so far; 0 when none waits. */
  oldestQueuedMs: number;
  waits: WaitTotals;
  waitsByRole: Record<ModelRole, WaitTotals>;
}

interface Waiter {
  role: ModelRole;
  enqueuedAt: number;
  start(): void;
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
