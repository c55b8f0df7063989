/**
 * What the steps of a run did, as a value each step hands on: the receipts so far, every model request,
 * and where the time went. The run row's counters and timings are read from it at the end.
 */
import type { Receipt } from "./domain.ts";
import type { ChatResult } from "./model.ts";

export interface Trace {
  /** Every receipt of the run so far, in the order stored. */
  readonly receipts: readonly Receipt[];
  /** Every model request: loop steps, corrections, legacy synthesis. */
  readonly modelCalls: readonly ChatResult[];
  readonly toolCalls: number;
  /** Calls of one batch run concurrently, so a batch costs its slowest call. */
  readonly toolsMs: number;
  readonly storageMs: number;
  /** The grounding check's own time, its corrective model turn excluded. */
  readonly groundingMs: number;
}

export const EMPTY_TRACE: Trace = Object.freeze({
  receipts: [],
  modelCalls: [],
  toolCalls: 0,
  toolsMs: 0,
  storageMs: 0,
  groundingMs: 0,
});

export function addTrace(trace: Trace, more: Partial<Trace>): Trace {
  return Object.freeze({
    receipts: [...trace.receipts, ...(more.receipts ?? [])],
    modelCalls: [...trace.modelCalls, ...(more.modelCalls ?? [])],
    toolCalls: trace.toolCalls + (more.toolCalls ?? 0),
    toolsMs: trace.toolsMs + (more.toolsMs ?? 0),
    storageMs: trace.storageMs + (more.storageMs ?? 0),
    groundingMs: trace.groundingMs + (more.groundingMs ?? 0),
  });
}

/** The run row's counters, as `RunStore.finish` stores them. */
export function runCounters(trace: Trace) {
  const last = trace.modelCalls.at(-1);
  return {
    endpoint: last?.endpoint ?? null,
    model: last?.model ?? null,
    turns: trace.modelCalls.length,
    toolCalls: trace.toolCalls,
    promptTokens: sum(trace.modelCalls.map((call) => call.promptEvalCount ?? 0)),
    evalTokens: sum(trace.modelCalls.map((call) => call.evalCount ?? 0)),
  };
}

export function modelTimings(trace: Trace): { modelMs: number; queueWaitMs: number } {
  return {
    modelMs: sum(trace.modelCalls.map((call) => call.durationMs)),
    queueWaitMs: sum(trace.modelCalls.map((call) => call.queueWaitMs)),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
