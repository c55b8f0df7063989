/**
 * `/metrics` in Prometheus text format, through `prom-client` (the standard Node client: exposition
 * format, histograms and label handling done right, and it is maintained).
 *
 * Counts that live in the database (runs by state, deliveries, tool calls, grounding) are read at scrape
 * time, so every replica reports the same totals and a restart loses nothing; latencies are histograms
 * observed in this process; model queue gauges come from the model router's `stats()`.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { errorMessage } from "../core/errors.ts";
import type { FloodGateStats } from "../delivery/flood-gate.ts";
import type { DeliveryObserver, GenerationObserver } from "../delivery/hooks.ts";

/** The subset of the model router's `stats()` that is exported (see `src/models/endpoint-pool.ts`). */
export interface ModelQueueStats {
  endpoint: string;
  concurrency: number;
  running: number;
  queued: number;
  oldestQueuedMs: number;
  waits: { count: number; totalMs: number; maxMs: number };
  waitsByRole?: Record<string, { count: number; totalMs: number; maxMs: number }>;
  /** Slot time used since start, by role. */
  busyMsByRole?: Record<string, number>;
  /** Busy share of the endpoint's slots (0–1). */
  utilisation?: { lastMinute: number; last15Minutes: number; sinceStart: number };
  /** Requests served here although their route's own endpoint is another. */
  spilledIn?: Record<string, number>;
}

/** The `utilisation` windows as `window` label values. */
export const UTILISATION_WINDOWS = { lastMinute: "1m", last15Minutes: "15m", sinceStart: "start" } as const;

/** The grounding gate's figures, summed per kind of answer and what the gate did. */
export interface GroundingFigures {
  /** briefing: a run's prose (check-ins included); chat: a follow-up or plain chat reply. */
  answer: "briefing" | "chat";
  action: string;
  answers: number;
  claimsChecked: number;
  corrections: number;
  sentencesRemoved: number;
  unbacked: number;
}

/** The counts `/metrics` reads from the database at every scrape (`db/stores/metrics.ts`). */
export interface MetricsReadings {
  runsByState(): Promise<Array<{ state: string; trigger: string; count: number }>>;
  deliveriesByState(): Promise<Array<{ platform: string; state: string; count: number }>>;
  toolCallsByTool(): Promise<Array<{ tool: string; count: number }>>;
  groundingTotals(): Promise<Array<{ action: string; runs: number; corrections: number; unbacked: number }>>;
  groundingFigures(): Promise<GroundingFigures[]>;
}

export interface MetricsSources {
  readings: MetricsReadings;
  model?: { stats(): ModelQueueStats[] } | undefined;
  /** One per platform client whose sends pass a flood gate. */
  floodGates?: Array<{ stats(): FloodGateStats }> | undefined;
  scheduler?: { readonly lastTickAt: Date | undefined } | undefined;
  logger?: { warn?(details: object, message: string): void };
}

export interface BriefbotMetrics extends Required<DeliveryObserver>, Required<GenerationObserver> {
  readonly registry: Registry;
  render(): Promise<{ contentType: string; body: string }>;
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120, 300, 600];
const LAG_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 5400];

export function createMetrics(sources: MetricsSources): BriefbotMetrics {
  const registry = new Registry();
  const registers = [registry];
  const { readings } = sources;
  const guard = async (what: string, collect: () => Promise<void>) => {
    try {
      await collect();
    } catch (error) {
      collectErrors.inc({ source: what });
      sources.logger?.warn?.({ source: what, error: errorMessage(error) }, "metrics collection failed");
    }
  };

  const collectErrors = new Counter({
    name: "briefbot_metrics_collect_errors_total",
    help: "Scrapes where a metrics source (database, model router) could not be read.",
    labelNames: ["source"],
    registers,
  });

  /** A metric recomputed from database rows at every scrape; a failed read leaves it untouched. */
  const readAtScrape = <Metric extends { reset(): void }, Row>(
    source: string,
    read: () => Promise<Row[]>,
    record: (metric: Metric, rows: Row[]) => void,
  ) =>
    async function (this: Metric) {
      await guard(source, async () => {
        const rows = await read();
        this.reset();
        record(this, rows);
      });
    };

  new Gauge({
    name: "briefbot_runs",
    help: "Briefing runs in the database by state and trigger.",
    labelNames: ["state", "trigger"],
    registers,
    collect: readAtScrape(
      "runs",
      () => readings.runsByState(),
      (gauge: Gauge, rows) => {
        for (const row of rows) gauge.set({ state: row.state, trigger: row.trigger }, row.count);
      },
    ),
  });

  new Gauge({
    name: "briefbot_deliveries",
    help: "Outbox rows by platform and state.",
    labelNames: ["platform", "state"],
    registers,
    collect: readAtScrape(
      "deliveries",
      () => readings.deliveriesByState(),
      (gauge: Gauge, rows) => {
        for (const row of rows) gauge.set({ platform: row.platform, state: row.state }, row.count);
      },
    ),
  });

  new Counter({
    name: "briefbot_tool_calls_total",
    help: "Tool calls stored as receipts, by tool (retention may lower it, which Prometheus reads as a reset).",
    labelNames: ["tool"],
    registers,
    collect: readAtScrape(
      "tool_calls",
      () => readings.toolCallsByTool(),
      (counter: Counter, rows) => {
        for (const row of rows) counter.inc({ tool: row.tool }, row.count);
      },
    ),
  });

  // prom-client collects in registration order, so each metric reads its own source.
  new Counter({
    name: "briefbot_grounding_checks_total",
    help: "Briefings checked against their receipts, by the action the check took.",
    labelNames: ["action"],
    registers,
    collect: readAtScrape(
      "grounding",
      () => readings.groundingTotals(),
      (counter: Counter, rows) => {
        for (const row of rows) counter.inc({ action: row.action }, row.runs);
      },
    ),
  });
  new Counter({
    name: "briefbot_grounding_corrections_total",
    help: "Corrections the grounding check made (rewrites and removed sentences).",
    registers,
    collect: readAtScrape(
      "grounding",
      () => readings.groundingTotals(),
      (counter: Counter, rows) => {
        counter.inc(rows.reduce((sum, row) => sum + row.corrections, 0));
      },
    ),
  });

  // The gate's figures per answer, briefings and chat replies alike (labels: answer=briefing|chat).
  const perAnswer = (value: (row: GroundingFigures) => number) =>
    readAtScrape(
      "grounding_answers",
      () => readings.groundingFigures(),
      (counter: Counter, rows) => {
        for (const row of rows) counter.inc({ answer: row.answer, action: row.action }, value(row));
      },
    );
  new Counter({
    name: "briefbot_grounded_answers_total",
    help: "Answers the grounding gate checked (briefings, check-ins, follow-ups, chat), by what it did.",
    labelNames: ["answer", "action"],
    registers,
    collect: perAnswer((row) => row.answers),
  });
  new Counter({
    name: "briefbot_grounding_claims_checked_total",
    help: "Claims (times, dates, numbers, items, absences) checked in delivered answers.",
    labelNames: ["answer", "action"],
    registers,
    collect: perAnswer((row) => row.claimsChecked),
  });
  new Counter({
    name: "briefbot_grounding_claims_corrected_total",
    help: "Corrective turns the gate asked for after finding unbacked claims.",
    labelNames: ["answer", "action"],
    registers,
    collect: perAnswer((row) => row.corrections),
  });
  new Counter({
    name: "briefbot_grounding_sentences_removed_total",
    help: "Sentences taken out of answers because no receipt backed them.",
    labelNames: ["answer", "action"],
    registers,
    collect: perAnswer((row) => row.sentencesRemoved),
  });
  new Counter({
    name: "briefbot_grounding_claims_unbacked_total",
    help: "Claims caught unbacked (and never delivered as written).",
    labelNames: ["answer", "action"],
    registers,
    collect: perAnswer((row) => row.unbacked),
  });

  /** A per-endpoint gauge from the model router's stats, read at every scrape. */
  const perEndpoint = (value: (stats: ModelQueueStats) => number) =>
    function (this: Gauge) {
      this.reset();
      for (const stats of modelStats()) this.set({ endpoint: stats.endpoint }, value(stats));
    };
  /** A per-endpoint, per-role counter of queue waits; routers without roles report one role, "all". */
  const perRole = (value: (waits: ModelQueueStats["waits"]) => number) =>
    function (this: Counter) {
      this.reset();
      for (const stats of modelStats()) {
        for (const [role, totals] of Object.entries(stats.waitsByRole ?? { all: stats.waits })) {
          this.inc({ endpoint: stats.endpoint, role }, value(totals));
        }
      }
    };

  new Gauge({
    name: "briefbot_model_queue_depth",
    help: "Model requests waiting for an endpoint slot.",
    labelNames: ["endpoint"],
    registers,
    collect: perEndpoint((stats) => stats.queued),
  });
  new Gauge({
    name: "briefbot_model_running",
    help: "Model requests being served per endpoint.",
    labelNames: ["endpoint"],
    registers,
    collect: perEndpoint((stats) => stats.running),
  });
  new Gauge({
    name: "briefbot_model_queue_oldest_wait_seconds",
    help: "How long the oldest queued model request has waited so far.",
    labelNames: ["endpoint"],
    registers,
    collect: perEndpoint((stats) => stats.oldestQueuedMs / 1000),
  });
  new Counter({
    name: "briefbot_model_queue_waits_total",
    help: "Model requests granted an endpoint slot, by role.",
    labelNames: ["endpoint", "role"],
    registers,
    collect: perRole((waits) => waits.count),
  });
  new Counter({
    name: "briefbot_model_queue_wait_seconds_total",
    help: "Total time model requests waited for an endpoint slot, by role.",
    labelNames: ["endpoint", "role"],
    registers,
    collect: perRole((waits) => waits.totalMs / 1000),
  });

  new Gauge({
    name: "briefbot_model_slots",
    help: "Requests an endpoint serves at once (its configured concurrency).",
    labelNames: ["endpoint"],
    registers,
    collect: perEndpoint((stats) => stats.concurrency),
  });
  new Gauge({
    name: "briefbot_model_utilisation_ratio",
    help: "Share of an endpoint's slot time in use over the window (1m, 15m, or since start).",
    labelNames: ["endpoint", "window"],
    registers,
    collect() {
      this.reset();
      for (const stats of modelStats()) {
        if (!stats.utilisation) continue;
        for (const [key, window] of Object.entries(UTILISATION_WINDOWS)) {
          this.set(
            { endpoint: stats.endpoint, window },
            stats.utilisation[key as keyof typeof UTILISATION_WINDOWS],
          );
        }
      }
    },
  });
  new Counter({
    name: "briefbot_model_busy_seconds_total",
    help: "Slot time spent serving requests, per endpoint and role (rate() / slots = utilisation).",
    labelNames: ["endpoint", "role"],
    registers,
    collect() {
      this.reset();
      for (const stats of modelStats()) {
        for (const [role, ms] of Object.entries(stats.busyMsByRole ?? {})) {
          this.inc({ endpoint: stats.endpoint, role }, ms / 1000);
        }
      }
    },
  });
  new Counter({
    name: "briefbot_model_spilled_total",
    help: "Requests served on an endpoint other than their route's own (work-conserving routing).",
    labelNames: ["endpoint", "role"],
    registers,
    collect() {
      this.reset();
      for (const stats of modelStats()) {
        for (const [role, count] of Object.entries(stats.spilledIn ?? {})) {
          this.inc({ endpoint: stats.endpoint, role }, count);
        }
      }
    },
  });

  new Counter({
    name: "briefbot_flood_gate_pauses_total",
    help: "Scopes paused by a platform's 429 answers (global, chat, method, channel); one 429 may pause two.",
    labelNames: ["platform", "scope"],
    registers,
    collect() {
      this.reset();
      for (const stats of gateStats()) {
        for (const [scope, count] of Object.entries(stats.pausesByScope)) {
          this.inc({ platform: stats.platform, scope }, count);
        }
      }
    },
  });
  new Counter({
    name: "briefbot_flood_gate_held_total",
    help: "Platform requests held back until a 429's retry_after had elapsed for their scope.",
    labelNames: ["platform"],
    registers,
    collect() {
      this.reset();
      for (const stats of gateStats()) this.inc({ platform: stats.platform }, stats.heldRequests);
    },
  });
  new Counter({
    name: "briefbot_flood_gate_paced_seconds_total",
    help: "Total time platform requests waited for the gate's pace (per chat and overall rate).",
    labelNames: ["platform"],
    registers,
    collect() {
      this.reset();
      for (const stats of gateStats()) this.inc({ platform: stats.platform }, stats.pacedMs / 1000);
    },
  });
  new Counter({
    name: "briefbot_flood_gate_held_seconds_total",
    help: "Total time platform requests were held back by a 429's retry_after.",
    labelNames: ["platform"],
    registers,
    collect() {
      this.reset();
      for (const stats of gateStats()) this.inc({ platform: stats.platform }, stats.heldMs / 1000);
    },
  });

  new Gauge({
    name: "briefbot_scheduler_last_tick_timestamp_seconds",
    help: "When the scheduler last finished a tick (Unix seconds); 0 before the first.",
    registers,
    collect() {
      const at = sources.scheduler?.lastTickAt;
      this.set(at ? at.getTime() / 1000 : 0);
    },
  });

  // The worst stall since the previous scrape, not a mean: one 2-s stall (a sync parse, a GC pause) is what
  // makes webhook answers late and Slack re-send, and an average over minutes hides it.
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  new Gauge({
    name: "briefbot_event_loop_delay_max_seconds",
    help: "Longest event-loop delay since the previous scrape (reset at every scrape).",
    registers,
    collect() {
      // max is 0 until a sample lands (a scrape right after the previous one).
      this.set(loopDelay.max / 1e9);
      loopDelay.reset();
    },
  });

  const generation = new Histogram({
    name: "briefbot_generation_seconds",
    help: "Scheduled briefing generation time (queue wait, tool loop, grounding), by the state it ended in.",
    labelNames: ["state"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const delivery = new Histogram({
    name: "briefbot_delivery_seconds",
    help: "Platform send calls of the outbox, by platform and outcome (see briefbot_delivery_sends_total).",
    labelNames: ["platform", "outcome"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const sends = new Counter({
    name: "briefbot_delivery_sends_total",
    help:
      "Outbox send attempts by outcome: sent; not_sent (certainly never reached the platform, retried in the " +
      "slot's window); unknown (may have reached it: not re-sent, so never a duplicate); refused (permanent).",
    labelNames: ["platform", "outcome"],
    registers,
  });
  const lag = new Histogram({
    name: "briefbot_delivery_lag_seconds",
    help: "Claim to confirmed post: for a scheduled briefing, from the tick its slot came due in.",
    labelNames: ["platform"],
    buckets: LAG_BUCKETS,
    registers,
  });

  function gateStats(): FloodGateStats[] {
    const stats: FloodGateStats[] = [];
    for (const gate of sources.floodGates ?? []) {
      try {
        stats.push(gate.stats());
      } catch {
        collectErrors.inc({ source: "flood_gate" });
      }
    }
    return stats;
  }

  function modelStats(): ModelQueueStats[] {
    if (!sources.model) return [];
    try {
      return sources.model.stats();
    } catch {
      collectErrors.inc({ source: "model" });
      return [];
    }
  }

  return {
    registry,
    generation(seconds, state) {
      generation.observe({ state }, seconds);
    },
    deliveryAttempt(platform, seconds, outcome) {
      delivery.observe({ platform, outcome }, seconds);
      sends.inc({ platform, outcome });
    },
    deliveryLag(platform, seconds) {
      lag.observe({ platform }, seconds);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
