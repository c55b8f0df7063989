/**
 * Runs one model-requested tool call and turns every outcome (refused, invalid, thrown, waiting for
 * confirmation, done) into a value the model sees next turn. Nothing here throws: the loop goes on.
 */
import type { z } from "zod";
import type { ToolCall } from "../domain.ts";
import { errorMessage } from "../errors.ts";
import type { PendingHandle, ToolContext } from "./define-tool.ts";
import type { ToolSet } from "./registry.ts";

export interface ToolOutcome {
  /** The model's call id, echoed as `tool_call_id`. */
  callId: string | undefined;
  name: string;
  /** The validated arguments (unknown keys such as `user_id` stripped), or the raw ones when invalid. */
  arguments: Record<string, unknown>;
  /** What the model sees, as JSON; `{ error }` when `error` is true. */
  result: unknown;
  error: boolean;
  /** Set when a destructive call became a pending action instead of running. */
  pending?: PendingHandle;
  /** When the tool ran: the receipt's "as of". */
  at: Date;
  durationMs: number;
}

export interface DispatchOptions {
  /** The user already confirmed this call (a resolved pending action): run destructive tools directly. */
  confirmed?: boolean;
  /** Monotonic milliseconds for durations. */
  timer?: () => number;
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
  const rawArguments = isRecord(call.function.arguments) ? call.function.arguments : {};
  const base = { callId: call.id, name: call.function.name, at };
  const finish = (
    fields: Pick<ToolOutcome, "arguments" | "result" | "error"> & { pending?: PendingHandle },
  ): ToolOutcome => ({
    ...base,
    ...fields,
    durationMs: timer() - startedAt,
  });

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
    if (tool.confirm && !options.confirmed) {
      if (!context.requestConfirmation) {
        return finish({
          arguments: validArguments,
          error: true,
          result: { error: `${tool.name} needs the user's confirmation, which cannot be asked for here.` },
        });
      }
      const summary = await tool.confirm(args, context);
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
          note: "Nothing has been changed yet. Ask the user to confirm; it runs only after they press Confirm.",
        },
      });
    }
    const result = await tool.handler(args, context);
    return finish({ arguments: validArguments, error: false, result: result ?? null });
  } catch (error) {
    return finish({ arguments: validArguments, error: true, result: { error: errorMessage(error) } });
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

/** Compact JSON, as the model and the grounding check read it. */
export function resultContent(outcome: Pick<ToolOutcome, "result">): string {
  return JSON.stringify(outcome.result ?? null);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
