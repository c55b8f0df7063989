/**
 * Step 2, receipts first: before the first model request the runner makes the slot's coverage calls itself
 * (the same allowlisted tools, concurrently, through the same dispatch) and, for a check-in, works out
 * what changed since the morning. All of it is stored as one runner-made tool turn of the
 * run, and handed to the model as exactly that: an assistant turn with `tool_calls`, then the results. The
 * model can write at once; it calls a tool only for what these do not cover.
 */
import { errorMessage } from "../../errors.ts";
import type { ChatMessage } from "../../model.ts";
import { dispatchAll, type ToolOutcome } from "../../tools/dispatch.ts";
import { toolMessage } from "../../tools/tool-loop.ts";
import { addTrace, EMPTY_TRACE } from "../../trace.ts";
import {
  CHANGES_SINCE_MORNING_TOOL,
  changesSinceMorning as computeChanges,
} from "../changes-since-morning.ts";
import { type Carried, type RunContext, reportResults } from "../context.ts";
import { COVERAGE } from "../coverage.ts";

export interface Seeded extends Carried {
  /** The runner's tool turn as the model will see it: one assistant turn with the calls, then each result. */
  readonly messages: readonly ChatMessage[];
  /** The tool name of the "what changed since the morning" receipt, when a check-in has one. */
  readonly changesTool: string | undefined;
}

export async function receipts(context: RunContext): Promise<Seeded> {
  const { deps } = context;
  const required = COVERAGE[context.slot];
  // Ids in the order the calls are shown: what changed first, then the coverage calls.
  const checkInId = context.slot !== "morning" ? deps.ids() : undefined;
  const calls = required.map((call, index) => ({
    id: deps.ids(),
    function: { index, name: call.name, arguments: { ...call.arguments } },
  }));
  const [checkIn, coverage] = await Promise.all([
    checkInId === undefined ? undefined : changesSinceMorning(context, checkInId),
    dispatchAll(context.tools, calls, context.toolContext, { timer: deps.timer }),
  ]);
  const outcomes = checkIn ? [checkIn, ...coverage] : coverage;
  const recorded = await context.log.runnerCalls(outcomes);
  reportResults(context, outcomes, "runner");
  return {
    trace: addTrace(EMPTY_TRACE, recorded),
    changes: checkIn ? changesText(checkIn) : undefined,
    changesTool: checkIn?.name,
    messages: [{ role: "assistant", content: "", tool_calls: recorded.calls }, ...outcomes.map(toolMessage)],
  };
}

/**
 * A check-in's "what changed since the morning", computed from the receipts and stored as a runner-made
 * call. A failure costs the check-in this context, never the check-in itself.
 */
async function changesSinceMorning(context: RunContext, callId: string): Promise<ToolOutcome | undefined> {
  const { deps, user, run } = context;
  const now = deps.clock.now();
  const startedAt = deps.timer();
  try {
    const result = await computeChanges(deps.ports, user, context.localDate, now);
    return {
      callId,
      name: CHANGES_SINCE_MORNING_TOOL,
      arguments: { local_date: context.localDate },
      result,
      error: false,
      at: now,
      durationMs: deps.timer() - startedAt,
    };
  } catch (error) {
    deps.logger.warn(
      { userId: user.id, runId: run.id, error: errorMessage(error) },
      "could not work out what changed since the morning; the check-in goes ahead without it",
    );
    return undefined;
  }
}

/** The receipt's own one-line summary when it has one, else its result as JSON. */
function changesText(outcome: ToolOutcome): string {
  const result = outcome.result;
  if (typeof result === "object" && result !== null && "summary" in result) {
    const summary = (result as { summary: unknown }).summary;
    if (typeof summary === "string" && summary.trim()) return summary.trim();
  }
  return JSON.stringify(result ?? null);
}
