/**
 * The agent loop shared by briefings and chat: ask the model, run the tool calls it made (concurrently,
 * results in call order), feed the results back, until a step makes no calls or a stop condition holds.
 *
 * It returns immutable steps and the conversation it built; the caller's messages are never changed. Each
 * step is handed to `onStep` before the next request, so receipts are stored in the main path.
 */
import type { Budget } from "../budget.ts";
import type { ToolCall } from "../domain.ts";
import { errorMessage } from "../errors.ts";
import {
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type ModelClient,
  ModelError,
  type ModelRole,
} from "../model.ts";
import type { ToolContext } from "./define-tool.ts";
import { dispatchTurn, resultContent, type ToolOutcome } from "./dispatch.ts";
import { cleanModelReply } from "./limits.ts";
import { type ListCaps, MODEL_LIST_LIMITS } from "./model-view.ts";
import { fitPrompt, type PromptBudget } from "./prompt-budget.ts";
import type { ToolSet } from "./registry.ts";

/** One model request and what came of it. */
export interface Step {
  /** The reply, cleaned; its `toolCalls` are the screened `calls`. */
  readonly result: ChatResult;
  /**
   * The calls as screened (at most the per-turn cap plus one that answers for the rest): none when the model
   * answered in prose, or when no tools were on offer.
   */
  readonly calls: readonly ToolCall[];
  readonly outcomes: readonly ToolOutcome[];
}

/** Ends the loop after a step that made tool calls; the steps so far decide (vercel/ai's `stopWhen`). */
export type StopCondition = (state: { readonly steps: readonly Step[] }) => boolean;

/** Stop once `count` steps have run: the turn cap. */
export function isStepCount(count: number): StopCondition {
  return ({ steps }) => steps.length >= count;
}

/** Stop right after a step that called one of these tools. */
export function hasToolCall(...names: string[]): StopCondition {
  return ({ steps }) => steps.at(-1)?.calls.some((call) => names.includes(call.function.name)) ?? false;
}

export interface ToolLoopOptions {
  model: ModelClient;
  role: ModelRole;
  /** The conversation so far. */
  messages: readonly ChatMessage[];
  /** Undefined: the model is offered no tools and must answer in prose. */
  tools: ToolSet | undefined;
  context: ToolContext;
  /** At least one condition that ends a model's run of tool calls, e.g. `isStepCount(8)`. */
  stopWhen: StopCondition | readonly StopCondition[];
  onStep?: (step: Step) => Promise<void>;
  onToken?: (fragment: string) => void;
  timer?: () => number;
  /**
   * Whether every change the model proposes in the next step waits for the user's Confirm (deletions always
   * do): asked before each step's calls run, with the steps so far.
   */
  confirmChanges?: (state: { readonly steps: readonly Step[] }) => boolean;
  /** The run's time budget: each request gets what is left, and none starts once it is spent. */
  budget?: Budget;
  /** The prompt budget every request is cut to fit; without it lists are cut at the usual limits only. */
  promptBudget?: PromptBudget | undefined;
  /** The caps an earlier loop of the same run sent its lists at: a later request never shows more. */
  listCaps?: ListCaps | undefined;
}

export interface ToolLoopResult {
  readonly steps: readonly Step[];
  /** The caller's messages followed by every assistant turn and tool result of the loop. */
  readonly messages: readonly ChatMessage[];
  /** The prose of the step that made no tool calls; null when a stop condition ended the loop first. */
  readonly text: string | null;
  /** The last non-empty prose any step wrote, tool-calling steps included. */
  readonly lastProse: string | null;
  /** The caps the last request's lists were shown at: what the model saw of each long list. */
  readonly listCaps: ListCaps;
}

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const stopConditions = [options.stopWhen].flat();
  const schemas = options.tools?.schemas();
  const steps: Step[] = [];
  let messages: readonly ChatMessage[] = [...options.messages];
  let listCaps = options.listCaps ?? MODEL_LIST_LIMITS;
  for (;;) {
    // The conversation keeps every result whole; the request shows each long list only as far as fits.
    const fitted = fitPrompt(messages, schemas, options.promptBudget, listCaps);
    listCaps = fitted.caps;
    const reply = await chatOrModelError(
      options.model,
      {
        role: options.role,
        messages: fitted.messages,
        ...(schemas && schemas.length > 0 ? { tools: schemas } : {}),
        ...(options.onToken ? { onToken: options.onToken } : {}),
      },
      options.budget,
    );
    // Calls made without tools on offer are the model imagining tools; they are not run.
    const { calls, outcomes } =
      options.tools && reply.toolCalls.length > 0
        ? await dispatchTurn(options.tools, reply.toolCalls, options.context, {
            ...timerOption(options.timer),
            ...(options.confirmChanges?.({ steps }) ? { confirmChanges: true } : {}),
          })
        : { calls: [], outcomes: [] };
    const step: Step = Object.freeze({
      result: { ...reply, toolCalls: calls },
      calls: Object.freeze([...calls]),
      outcomes: Object.freeze(outcomes),
    });
    steps.push(step);
    messages = [...messages, ...stepMessages(step)];
    await options.onStep?.(step);
    const answered = calls.length === 0;
    if (answered || stopConditions.some((stop) => stop({ steps }))) {
      return {
        steps: Object.freeze([...steps]),
        messages,
        text: answered ? reply.content.trim() : null,
        lastProse: lastProse(steps),
        listCaps,
      };
    }
  }
}

/** What a step adds to the conversation: the assistant turn, then one tool message per result. */
export function stepMessages(step: Pick<Step, "result" | "calls" | "outcomes">): ChatMessage[] {
  return [
    {
      role: "assistant",
      content: step.result.content,
      ...(step.calls.length > 0 ? { tool_calls: [...step.calls] } : {}),
    },
    ...step.outcomes.map(toolMessage),
  ];
}

/** A result whole, as stored; each request shows a long list shortened (`fitPrompt`). */
export function toolMessage(outcome: ToolOutcome): ChatMessage {
  return {
    role: "tool",
    content: resultContent(outcome),
    tool_name: outcome.name,
    ...(outcome.callId ? { tool_call_id: outcome.callId } : {}),
  };
}

function lastProse(steps: readonly Step[]): string | null {
  for (let index = steps.length - 1; index >= 0; index--) {
    const content = steps[index]?.result.content.trim();
    if (content) return content;
  }
  return null;
}

function timerOption(timer: (() => number) | undefined): { timer?: () => number } {
  return timer ? { timer } : {};
}

/**
 * Every failure of the model call becomes a `ModelError`, so callers can tell "the model let us down" (fall
 * back to a digest) from a bug or a database failure (let it surface). The reply comes back cleaned, and
 * within the budget: no request starts once it is spent, and each is given only what is left.
 */
export async function chatOrModelError(
  model: ModelClient,
  request: ChatRequest,
  budget?: Budget,
): Promise<ChatResult> {
  budget?.ensure("the next model request");
  const limited = budget
    ? { ...request, timeoutMs: Math.min(request.timeoutMs ?? Infinity, budget.remainingMs()) }
    : request;
  try {
    return cleanModelReply(await model.chat(limited));
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError(`model request failed: ${errorMessage(error)}`, "MODEL_UNAVAILABLE", {
      cause: error,
    });
  }
}
