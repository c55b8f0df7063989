/**
 * Runs one model-requested tool call and turns every outcome (refused, invalid, thrown, waiting for
 * confirmation, done) into a value the model sees next turn. Nothing here throws: the loop goes on.
 */
import type { z } from "zod";
import { FAILED_CALL_FACTS, type ToolCall } from "../domain.ts";
import { errorCode, errorMessage, factsOf } from "../errors.ts";
import { storableJson } from "../storable-text.ts";
import { isMutationResult, type PendingHandle, type ToolContext, type UndoStep } from "./define-tool.ts";
import { argumentProblem, screenToolCalls, TOOL_CALL_LIMITS, type ToolCallLimits } from "./limits.ts";
import type { ToolSet } from "./registry.ts";

/** An executed change, as the reply reports it and the Undo button reverses it. */
export interface MutationRecord {
  /** Past tense, from the stored row: `Created task 12 "Book dentist" (due 2025-06-06)`. */
  report: string;
  undo?: UndoStep;
}

export interface ToolOutcome {
  /** The model's call id, echoed as `tool_call_id`. */
  callId: string | undefined;
  name: string;
  /** The validated arguments (unknown keys such as `user_id` stripped), or the raw ones when invalid. */
  arguments: Record<string, unknown>;
  /** What the model sees, as JSON; `{ error }` when `error` is true. */
  result: unknown;
  error: boolean;
  /** Set when the call became a pending action instead of running. */
  pending?: PendingHandle;
  /** Set when the call changed the user's data. */
  mutation?: MutationRecord;
  /** The result carries text from outside the user's own records (see `ToolDefinition.untrusted`). */
  untrusted?: boolean;
  /** A failed call's `BriefbotError` code (`conflict`, `not_found`), for callers that branch on it. */
  errorCode?: string;
  /** When the tool ran: the receipt's "as of". */
  at: Date;
  durationMs: number;
}

export interface DispatchOptions {
  /** The user already confirmed this call (a resolved pending action): run it directly. */
  confirmed?: boolean;
  /**
   * Every change waits for the user's Confirm, not only deletions: the turn's context holds text from
   * outside the user, or the change was not asked for.
   */
  confirmChanges?: boolean;
  /** Monotonic milliseconds for durations. */
  timer?: () => number;
  limits?: ToolCallLimits;
}

export async function dispatchToolCall(
  tools: ToolSet,
  call: ToolCall,
  context: ToolContext,
  options: DispatchOptions = {},
): Promise<ToolOutcome> {
  const timer = options.timer ?? (() => performance.now());
  const startedAt = timer();
  const at = context.clock.now();
  const given = isRecord(call.function.arguments) ? call.function.arguments : {};
  const problem = argumentProblem(given, options.limits ?? TOOL_CALL_LIMITS);
  const rawArguments = problem === undefined ? given : {};
  const base = { callId: call.id, name: call.function.name, at };
  const finish = (
    fields: Pick<ToolOutcome, "arguments" | "result" | "error"> &
      Partial<Pick<ToolOutcome, "pending" | "mutation" | "untrusted" | "errorCode">>,
  ): ToolOutcome => ({
    ...base,
    ...fields,
    durationMs: timer() - startedAt,
  });
  if (problem !== undefined) {
    return finish({ arguments: {}, error: true, result: { error: `Not run: ${problem}.` } });
  }

  const tool = tools.get(call.function.name);
  if (!tool) {
    const known = tools.names();
    return finish({
      arguments: rawArguments,
      error: true,
      result: {
        error: `Tool "${call.function.name}" is not available here (${tools.label}). Available tools: ${known.join(", ") || "none"}.`,
      },
    });
  }

  const parsed = tool.input.safeParse(rawArguments);
  if (!parsed.success) {
    return finish({
      arguments: rawArguments,
      error: true,
      result: { error: `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}` },
    });
  }
  const args = parsed.data;
  const validArguments = isRecord(args) ? args : rawArguments;

  try {
    const waits = !tool.readOnly && !options.confirmed && (tool.alwaysConfirm || options.confirmChanges);
    if (waits) {
      if (!context.requestConfirmation || !tool.describe) {
        return finish({
          arguments: validArguments,
          error: true,
          result: { error: `${tool.name} needs the user's confirmation, which cannot be asked for here.` },
        });
      }
      const summary = `${await tool.describe(args, context)}?`;
      const pending = await context.requestConfirmation({
        toolName: tool.name,
        arguments: validArguments,
        summary,
      });
      return finish({
        arguments: validArguments,
        error: false,
        pending,
        result: {
          status: "waiting_for_confirmation",
          pending_id: pending.id,
          summary,
          note: tool.alwaysConfirm
            ? "Nothing has been changed yet. Ask the user to confirm; it runs only after they press Confirm."
            : "Nothing has been changed yet: this conversation holds text from outside the user (a feed, a calendar) or the user did not ask for this change, so it waits for the user's Confirm.",
        },
      });
    }
    const returned = await tool.handler(args, context);
    if (isMutationResult(returned)) {
      return finish({
        arguments: validArguments,
        error: false,
        result: returned.result ?? null,
        mutation: { report: returned.report, ...(returned.undo ? { undo: returned.undo } : {}) },
      });
    }
    const result = returned ?? null;
    return finish({
      arguments: validArguments,
      error: false,
      result,
      ...(tool.untrusted?.(result) ? { untrusted: true } : {}),
    });
  } catch (error) {
    const facts = factsOf(error);
    const code = errorCode(error);
    return finish({
      arguments: validArguments,
      error: true,
      result: { error: errorMessage(error), ...(facts ? { [FAILED_CALL_FACTS]: facts } : {}) },
      ...(code ? { errorCode: code } : {}),
    });
  }
}

/** Several calls of one turn run at once; results come back in call order. */
export function dispatchAll(
  tools: ToolSet,
  calls: readonly ToolCall[],
  context: ToolContext,
  options: DispatchOptions = {},
): Promise<ToolOutcome[]> {
  return Promise.all(calls.map((call) => dispatchToolCall(tools, call, context, options)));
}

/**
 * A model turn's calls: screened against the limits (how many, how deep, how long), then run. Returns the
 * calls as they may be stored and shown to the model again, with one outcome each.
 */
export async function dispatchTurn(
  tools: ToolSet,
  raw: readonly ToolCall[],
  context: ToolContext,
  options: DispatchOptions = {},
): Promise<{ calls: ToolCall[]; outcomes: ToolOutcome[] }> {
  const { calls, refusals } = screenToolCalls(raw, options.limits ?? TOOL_CALL_LIMITS);
  const outcomes = await Promise.all(
    calls.map((call, index) => {
      const refusal = refusals.get(index);
      if (refusal === undefined) return dispatchToolCall(tools, call, context, options);
      return Promise.resolve<ToolOutcome>({
        callId: call.id,
        name: call.function.name,
        arguments: {},
        result: { error: refusal },
        error: true,
        at: context.clock.now(),
        durationMs: 0,
      });
    }),
  );
  return { calls, outcomes };
}

/** Compact JSON, as the model and the grounding check read it; cleaned so it can always be stored. */
export function resultContent(outcome: Pick<ToolOutcome, "result">): string {
  return JSON.stringify(storableJson(outcome.result ?? null)) ?? "null";
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
