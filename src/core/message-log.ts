/**
 * Writes a run's or a thread's messages as they happen: each tool-calling turn and each tool result (the
 * receipts) is stored before the next model request. Every write returns what it added to the trace.
 */

import type { MessageMetadata, NewLoggedMessage, ToolCall } from "./domain.ts";
import type { ReceiptLog } from "./ports.ts";
import { storableJson, storableText } from "./storable-text.ts";
import { resultContent, type ToolOutcome } from "./tools/dispatch.ts";
import type { Step } from "./tools/tool-loop.ts";
import type { Trace } from "./trace.ts";

export interface LogOwner {
  userId: number;
  runId: number | null;
  conversationId: number | null;
}

export type TracePart = Partial<Trace>;

export interface MessageLog {
  /** A model step: always counted; its assistant turn and results stored when it called tools. */
  modelStep(step: Step): Promise<TracePart>;
  /** Calls the runner made itself (coverage, legacy gathering, digest, check-in): receipts like any other. */
  runnerCalls(outcomes: readonly ToolOutcome[]): Promise<TracePart & { calls: ToolCall[] }>;
  /** A message of the run or thread that is not a tool call: the user's text, the prose, an answer. */
  text(role: "user" | "assistant", content: string, at: Date, metadata?: MessageMetadata): Promise<TracePart>;
}

export function messageLog(log: ReceiptLog, owner: LogOwner, timer: () => number): MessageLog {
  const store = async (rows: NewLoggedMessage[]): Promise<TracePart> => {
    const startedAt = timer();
    const receipts = await log.append(rows.map(storable));
    return { receipts, storageMs: timer() - startedAt };
  };

  const recordCalls = async (
    calls: readonly ToolCall[],
    content: string,
    outcomes: readonly ToolOutcome[],
    by: "model" | "runner",
  ): Promise<TracePart> => {
    const at = outcomes[0]?.at ?? new Date(0);
    const stored = await store([
      {
        ...owner,
        role: "assistant",
        content,
        toolCalls: [...calls],
        metadata: { kind: "tool_calls", by },
        createdAt: at,
      },
      ...outcomes.map(
        (outcome): NewLoggedMessage => ({
          ...owner,
          role: "tool",
          content: resultContent(outcome),
          toolName: outcome.name,
          toolCallId: outcome.callId ?? null,
          metadata: {
            kind: "receipt",
            by,
            arguments: outcome.arguments,
            error: outcome.error,
            ...(outcome.pending ? { pending_id: outcome.pending.id } : {}),
            ...(outcome.mutation ? { mutation: outcome.mutation.report } : {}),
            ...(outcome.untrusted ? { untrusted: true } : {}),
          },
          createdAt: outcome.at,
        }),
      ),
    ]);
    return {
      ...stored,
      toolCalls: outcomes.length,
      // Calls of one turn ran concurrently: the turn took as long as its slowest call.
      toolsMs: Math.max(0, ...outcomes.map((outcome) => outcome.durationMs)),
    };
  };

  return {
    async modelStep(step) {
      if (step.outcomes.length === 0) return { modelCalls: [step.result] };
      const recorded = await recordCalls(step.calls, step.result.content, step.outcomes, "model");
      return { ...recorded, modelCalls: [step.result] };
    },
    async runnerCalls(outcomes) {
      const calls: ToolCall[] = outcomes.map((outcome, index) => ({
        ...(outcome.callId ? { id: outcome.callId } : {}),
        function: { index, name: outcome.name, arguments: outcome.arguments },
      }));
      return { ...(await recordCalls(calls, "", outcomes, "runner")), calls };
    },
    text(role, content, at, metadata = {}) {
      return store([{ ...owner, role, content, metadata: { ...metadata }, createdAt: at }]);
    },
  };
}

/**
 * Every message as it may be stored, whatever the model wrote: PostgreSQL refuses NUL in text and jsonb,
 * and a model's arguments may be nested without end (the per-turn screen bounds them first; this is the
 * last line).
 */
function storable(message: NewLoggedMessage): NewLoggedMessage {
  const metadata = storableJson(message.metadata);
  return {
    ...message,
    content: storableText(message.content),
    ...(message.toolCalls ? { toolCalls: storableJson(message.toolCalls) as ToolCall[] } : {}),
    ...(message.toolName ? { toolName: storableText(message.toolName) } : {}),
    ...(message.toolCallId ? { toolCallId: storableText(message.toolCallId) } : {}),
    metadata: isRecord(metadata) ? metadata : {},
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
