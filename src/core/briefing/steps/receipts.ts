/**
 * Step 2: the receipts the runner provides before the model speaks. For a check-in that is what changed
 * since the morning, asked of the composition root and stored as a runner-made call of the run. A failure
 * costs the check-in this context, never the check-in itself.
 */
import type { ToolCall } from "../../domain.ts";
import { errorMessage } from "../../errors.ts";
import type { ToolOutcome } from "../../tools/dispatch.ts";
import { addTrace, EMPTY_TRACE } from "../../trace.ts";
import { type Carried, type RunContext, reportResults } from "../context.ts";
import type { CheckInReceipt } from "../types.ts";

export interface Seeded extends Carried {
  /** The "what changed since the morning" receipt, with the call that stands for it. */
  readonly checkIn: { call: ToolCall; outcome: ToolOutcome } | undefined;
}

export async function receipts(context: RunContext): Promise<Seeded> {
  const none: Seeded = { trace: EMPTY_TRACE, changes: undefined, checkIn: undefined };
  const { deps, user, run } = context;
  if (context.slot === "morning" || !deps.checkInContext) return none;
  const now = deps.clock.now();
  const startedAt = deps.timer();
  let given: CheckInReceipt | undefined;
  try {
    given = await deps.checkInContext(user, context.localDate, now);
  } catch (error) {
    deps.logger.warn(
      { userId: user.id, runId: run.id, error: errorMessage(error) },
      "could not work out what changed since the morning; the check-in goes ahead without it",
    );
    return none;
  }
  if (!given) return none;
  const outcome: ToolOutcome = {
    callId: deps.ids(),
    name: given.name,
    arguments: { ...given.arguments },
    result: given.result,
    error: false,
    at: now,
    durationMs: deps.timer() - startedAt,
  };
  const recorded = await context.log.runnerCalls([outcome]);
  reportResults(context, [outcome], "runner");
  const [call] = recorded.calls;
  return {
    trace: addTrace(EMPTY_TRACE, recorded),
    changes: changesText(outcome),
    checkIn: call ? { call, outcome } : undefined,
  };
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
