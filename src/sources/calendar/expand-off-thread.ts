/**
 * Runs `expandCalendar` on a worker thread, so a calendar that costs seconds never stalls the bot, the
 * scheduler or `/healthz`. The budgets inside the expansion are what normally stop a hostile calendar;
 * this host is the backstop behind them: a hard deadline and a heap limit, after which the thread is
 * thrown away (and a fresh one started for the next calendar).
 *
 * One thread serves the process, one calendar at a time; it is started on first use and never keeps
 * the process alive while idle.
 */
import { Worker } from "node:worker_threads";
import { BriefbotError } from "../../core/errors.ts";
import { CalendarParseError } from "./calendar-parse-error.ts";
import type { ExpandOptions, ExpandResult } from "./expand-calendar.ts";

/** What crosses to the thread: everything but the callbacks. */
export type WorkerExpandOptions = Omit<ExpandOptions, "elapsedMs" | "onSeries">;

export interface ExpansionRequest {
  id: number;
  text: string;
  options: WorkerExpandOptions;
}

export type ExpansionReply =
  | { id: number; type: "started" }
  | { id: number; type: "series"; label: string }
  | { id: number; type: "done"; result: ExpandResult }
  | { id: number; type: "failed"; code: string | undefined; message: string };

export interface ExpanderLimits {
  /** The thread is stopped after expanding one calendar for this long, whatever it is doing. Default 30 s. */
  hardTimeoutMs: number;
  /** …or when it has not even started on the calendar after this long (a loaded machine, a broken build). */
  startTimeoutMs: number;
  /** V8 old-generation heap of the thread. Default 256 MB. */
  maxHeapMb: number;
}

export const DEFAULT_EXPANDER_LIMITS: ExpanderLimits = {
  hardTimeoutMs: 30_000,
  startTimeoutMs: 60_000,
  maxHeapMb: 256,
};

/** The thread had to be stopped (deadline, memory) or died; the calendar keeps its last good events. */
export class CalendarExpansionError extends BriefbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("calendar_expansion_failed", message, options);
  }
}

export interface CalendarExpander {
  expand(text: string, options: WorkerExpandOptions): Promise<ExpandResult>;
  /** Stops the thread (a running expansion fails). */
  close(): Promise<void>;
}

export function createCalendarExpander(limits: Partial<ExpanderLimits> = {}): CalendarExpander {
  const { hardTimeoutMs, startTimeoutMs, maxHeapMb } = { ...DEFAULT_EXPANDER_LIMITS, ...limits };
  let worker: Worker | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 1;

  const discard = (stale: Worker) => {
    if (worker === stale) worker = undefined;
    void stale.terminate();
  };

  const start = (): Worker => {
    const started = new Worker(workerEntry(), {
      // Flags of the parent (tsx's, vitest's) are not meant for this thread, and some are refused.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    });
    started.unref();
    // An idle thread that dies is replaced on next use; a busy one is handled by `run`.
    started.on("error", () => discard(started));
    started.on("exit", () => {
      if (worker === started) worker = undefined;
    });
    return started;
  };

  const run = (text: string, options: WorkerExpandOptions): Promise<ExpandResult> => {
    worker ??= start();
    const current = worker;
    const id = nextId++;
    current.ref();
    return new Promise<ExpandResult>((resolve, reject) => {
      let series: string | undefined;
      const during = () => (series ? ` while expanding ${series}` : "");
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        current.off("message", onMessage);
        current.off("error", onError);
        current.off("exit", onExit);
        current.unref();
        outcome();
      };
      const fail = (error: Error) =>
        settle(() => {
          discard(current);
          reject(error);
        });
      const onMessage = (reply: ExpansionReply) => {
        if (reply.id !== id) return;
        if (reply.type === "started") {
          // The deadline is for the expansion; starting the thread (loading the code) is not part of it.
          clearTimeout(timer);
          timer = setTimeout(
            () =>
              fail(
                new CalendarExpansionError(
                  `calendar expansion was stopped after ${Math.round(hardTimeoutMs / 100) / 10} s${during()}`,
                ),
              ),
            hardTimeoutMs,
          );
        } else if (reply.type === "series") series = reply.label;
        else if (reply.type === "done") settle(() => resolve(reply.result));
        else settle(() => reject(rebuildError(reply)));
      };
      const onError = (error: Error & { code?: string }) =>
        fail(
          new CalendarExpansionError(
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? `calendar expansion ran out of memory (limit ${maxHeapMb} MB)${during()}`
              : `calendar expansion failed: ${error.message}${during()}`,
            { cause: error },
          ),
        );
      const onExit = (code: number) =>
        fail(new CalendarExpansionError(`calendar expansion thread exited (code ${code})${during()}`));
      let timer = setTimeout(
        () =>
          fail(
            new CalendarExpansionError(
              `calendar expansion thread did not start within ${Math.round(startTimeoutMs / 1000)} s`,
            ),
          ),
        startTimeoutMs,
      );
      current.on("message", onMessage);
      current.on("error", onError);
      current.on("exit", onExit);
      current.postMessage({ id, text, options } satisfies ExpansionRequest);
    });
  };

  return {
    expand(text, options) {
      const result = queue.then(() => run(text, options));
      queue = result.catch(() => {});
      return result;
    },
    async close() {
      const stale = worker;
      worker = undefined;
      await stale?.terminate();
    },
  };
}

let shared: CalendarExpander | undefined;

/** The process-wide expander the syncs use. */
export function expandCalendarOffThread(text: string, options: WorkerExpandOptions): Promise<ExpandResult> {
  shared ??= createCalendarExpander();
  return shared.expand(text, options);
}

/** The thread's failure as the same error class: a calendar that does not parse stays a parse error. */
function rebuildError(reply: { code: string | undefined; message: string }): Error {
  if (reply.code === "calendar_unreadable") return new CalendarParseError(reply.message);
  return new CalendarExpansionError(reply.message);
}

/**
 * Compiled (dist/): the worker is the sibling .js file. From source (tsx in development, vitest in
 * tests) the thread has no TypeScript loader of its own, so a tiny module registers tsx first.
 */
function workerEntry(): URL {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./expansion-worker.js", here);
  const script = new URL("./expansion-worker.ts", here).href;
  const loader = `import { register } from ${JSON.stringify(import.meta.resolve("tsx/esm/api"))};
register();
await import(${JSON.stringify(script)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(loader)}`);
}
