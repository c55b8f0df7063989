/**
 * The agent loop shared by briefings and chat: ask the model, run the tool calls it made (concurrently,
 * results in call order), feed the results back, until it answers in prose or the turn cap is hit.
 * Every turn is handed to `onTurn` before the next request, so receipts are stored in the main path.
 */
import { type ChatMessage, type ChatResult, type ModelClient, ModelError, type ModelRole } from "../model.ts";
import type { ToolContext } from "./define-tool.ts";
import { dispatchAll, resultContent, type ToolOutcome } from "./dispatch.ts";
import type { ToolSet } from "./registry.ts";

export interface LoopTurn {
  result: ChatResult;
  outcomes: ToolOutcome[];
}

export interface ToolLoopOptions {
  model: ModelClient;
  role: ModelRole;
  /** The conversation so far; the loop appends each assistant turn and tool result to it. */
  messages: ChatMessage[];
  /** Undefined: the model is offered no tools and must answer in prose. */
  tools: ToolSet | undefined;
  context: ToolContext;
  maxTurns: number;
  onTurn?: (turn: LoopTurn) => Promise<void>;
  onToken?: (fragment: string) => void;
  timer?: () => number;
}

export interface ToolLoopResult {
  /** The prose of the turn that made no tool calls; null when the cap was hit first. */
  final: string | null;
  /** The last non-empty prose any turn wrote, tool-calling turns included. */
  lastProse: string | null;
  turns: LoopTurn[];
  hitCap: boolean;
}

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const turns: LoopTurn[] = [];
  let lastProse: string | null = null;
  const schemas = options.tools?.schemas();
  for (let turn = 0; turn < options.maxTurns; turn++) {
    const result = await chatOrModelError(options.model, {
      role: options.role,
      messages: options.messages,
      ...(schemas && schemas.length > 0 ? { tools: schemas } : {}),
      ...(options.onToken ? { onToken: options.onToken } : {}),
    });
    const content = result.content.trim();
    if (content) lastProse = content;
    // Calls made without tools on offer are the model imagining tools; they are not run.
    const calls = options.tools ? result.toolCalls : [];
    options.messages.push({
      role: "assistant",
      content: result.content,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    });
    if (calls.length === 0 || !options.tools) {
      const finished: LoopTurn = { result, outcomes: [] };
      turns.push(finished);
      await options.onTurn?.(finished);
      return { final: content, lastProse, turns, hitCap: false };
    }
    const outcomes = await dispatchAll(
      options.tools,
      calls,
      options.context,
      options.timer ? { timer: options.timer } : {},
    );
    for (const outcome of outcomes) options.messages.push(toolMessage(outcome));
    const done: LoopTurn = { result, outcomes };
    turns.push(done);
    await options.onTurn?.(done);
  }
  return { final: null, lastProse, turns, hitCap: true };
}

export function toolMessage(outcome: ToolOutcome): ChatMessage {
  return {
    role: "tool",
    content: resultContent(outcome),
    tool_name: outcome.name,
    ...(outcome.callId ? { tool_call_id: outcome.callId } : {}),
  };
}

/**
 * Every failure of the model call becomes a `ModelError`, so callers can tell "the model let us down" (fall
 * back to a digest) from a bug or a database failure (let it surface).
 */
export async function chatOrModelError(
  model: ModelClient,
  request: Parameters<ModelClient["chat"]>[0],
): Promise<ChatResult> {
  try {
    return await model.chat(request);
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError(
      `model request failed: ${error instanceof Error ? error.message : String(error)}`,
      "MODEL_UNAVAILABLE",
      {
        cause: error,
      },
    );
  }
}
