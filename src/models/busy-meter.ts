import type { ModelRole } from "../core/model.ts";

/** Share of an endpoint's slot time in use, over recent windows and since start (0–1). */
export interface Utilisation {
  lastMinute: number;
  last15Minutes: number;
  sinceStart: number;
}

const MINUTE_MS = 60_000;
const LONGEST_WINDOW_MS = 15 * MINUTE_MS;

/**
 * Slot time in use on one endpoint: busy time per role since start, and the busy share of recent windows
 * computed exactly from the intervals that overlap them (a morning rush is minutes long; an average since
 * start would hide it).
 */
export class BusyMeter {
  private readonly finished: Array<{ start: number; end: number }> = [];
  private readonly running = new Set<{ start: number; role: ModelRole }>();
  private readonly busyMs: Record<ModelRole, number> = { interactive: 0, briefing: 0, background: 0 };

  constructor(
    private readonly slots: number,
    private readonly startedAt: number,
  ) {}

  start(role: ModelRole, at: number): { end(at: number): void } {
    const entry = { start: at, role };
    this.running.add(entry);
    return {
      end: (endAt) => {
        if (!this.running.delete(entry)) return;
        this.busyMs[role] += endAt - entry.start;
        this.finished.push({ start: entry.start, end: endAt });
        this.forget(endAt);
      },
    };
  }

  /** Busy milliseconds since start by role, requests still running counted up to `now`. */
  busyByRole(now: number): Record<ModelRole, number> {
    const busy = { ...this.busyMs };
    for (const entry of this.running) busy[entry.role] += now - entry.start;
    return busy;
  }

  utilisation(now: number): Utilisation {
    const busy = this.busyByRole(now);
    const elapsed = now - this.startedAt;
    return {
      lastMinute: this.share(now, MINUTE_MS),
      last15Minutes: this.share(now, LONGEST_WINDOW_MS),
      sinceStart:
        elapsed > 0 ? (busy.interactive + busy.briefing + busy.background) / (elapsed * this.slots) : 0,
    };
  }

  private share(now: number, windowMs: number): number {
    // Until the process is that old, the window is its lifetime.
    const span = Math.min(windowMs, now - this.startedAt);
    if (span <= 0) return 0;
    const from = now - span;
    let busy = 0;
    for (const interval of this.finished) busy += overlap(interval.start, interval.end, from, now);
    for (const entry of this.running) busy += overlap(entry.start, now, from, now);
    return Math.min(1, busy / (span * this.slots));
  }

  private forget(now: number): void {
    const horizon = now - LONGEST_WINDOW_MS;
    let drop = 0;
    while (drop < this.finished.length && (this.finished[drop]?.end ?? now) < horizon) drop += 1;
    if (drop > 0) this.finished.splice(0, drop);
  }
}

function overlap(start: number, end: number, from: number, to: number): number {
  return Math.max(0, Math.min(end, to) - Math.max(start, from));
}
