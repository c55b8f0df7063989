/**
 * What every step of one briefing run reads: the run, the user, the briefing tool set, where messages go and
 * where progress is reported. Built once per run; steps hand their results on as values.
 */
import { type Budget, createBudget } from "../budget.ts";
import type { CoreDeps } from "../deps.ts";
import type { BriefingRun, GroundingVerdict, RunMode, SlotName, ToolCall, User } from "../domain.ts";
import type { BriefingObserver } from "../events.ts";
import { type MessageLog, messageLog } from "../message-log.ts";
import { type ChatMessage, type ChatResult, withPreferredModel } from "../model.ts";
import { briefingToolSet } from "../tools/allowlists.ts";
import type { ToolContext } from "../tools/define-tool.ts";
import { dispatchAll, type ToolOutcome } from "../tools/dispatch.ts";
import type { ListCaps } from "../tools/model-view.ts";
import { type PromptBudget, promptBudget } from "../tools/prompt-budget.ts";
import type { ToolSet } from "../tools/registry.ts";
import type { Step } from "../tools/tool-loop.ts";
import { addTrace, type Trace } from "../trace.ts";
import type { RequiredCall } from "./coverage.ts";

export interface RunContext {
  /** The core's dependencies, with the model set to the user's preferred one. */
  readonly deps: CoreDeps;
  readonly user: User;
  readonly slot: SlotName;
  readonly run: BriefingRun;
  /** The user's local date the run is for. */
  readonly localDate: string;
  readonly tools: ToolSet;
  readonly toolContext: ToolContext;
  readonly log: MessageLog;
  readonly emit: BriefingObserver;
  /** The run's overall deadline (`runDeadlineSeconds`): every model request gets what is left of it. */
  readonly budget: Budget;
  /** The share of the briefing route's num_ctx every request must fit; undefined without an estimator. */
  readonly promptBudget: PromptBudget | undefined;
}

export function runContext(
  given: CoreDeps,
  user: User,
  slot: SlotName,
  run: BriefingRun,
  emit: BriefingObserver,
): RunContext {
  const deps = { ...given, model: withPreferredModel(given.model, user.preferredModel) };
  return {
    deps,
    user,
    slot,
    run,
    localDate: run.localDate,
    tools: briefingToolSet(deps.tools),
    toolContext: {
      user,
      clock: deps.clock,
      records: deps.ports.records,
      sources: deps.ports.sources,
    },
    log: messageLog(
      deps.ports.receipts,
      { userId: user.id, runId: run.id, conversationId: null },
      deps.timer,
    ),
    emit,
    budget: createBudget(deps.timer, deps.config.runDeadlineSeconds * 1000, `the ${slot} briefing`),
    promptBudget: deps.estimatePromptTokens
      ? promptBudget(deps.config.contextTokens.briefing, deps.estimatePromptTokens)
      : undefined,
  };
}

/** What every step hands on: the trace so far and the check-in's "what changed" line, if there was one. */
export interface Carried {
  readonly trace: Trace;
  readonly changes: string | undefined;
}

/** A draft the model wrote, with the conversation that produced it. */
export interface Draft extends Carried {
  readonly kind: "draft";
  readonly draft: string;
  readonly messages: readonly ChatMessage[];
  readonly mode: "agentic" | "legacy";
  readonly reason: string | null;
  /** How far each kind of list was shown to the model when it wrote the draft. */
  readonly listCaps: ListCaps;
}

/** No usable prose from the model: the digest writes the briefing, with this note. */
export interface Fallback extends Carried {
  readonly kind: "fallback";
  readonly note: string;
  readonly verdict: GroundingVerdict | null;
  readonly reason: string | null;
}

/** The briefing's final prose and how it came about. */
export interface Produced extends Carried {
  readonly kind: "produced";
  readonly prose: string;
  readonly mode: RunMode;
  readonly grounding: GroundingVerdict | null;
  readonly reason: string | null;
}

/** Calls the runner makes itself; stored as receipts like the model's own, and reported as progress. */
export async function runnerCalls(
  context: RunContext,
  trace: Trace,
  required: readonly RequiredCall[],
): Promise<{ trace: Trace; calls: ToolCall[]; outcomes: ToolOutcome[] }> {
  const { deps } = context;
  const calls: ToolCall[] = required.map((call, index) => ({
    id: deps.ids(),
    function: { index, name: call.name, arguments: { ...call.arguments } },
  }));
  const outcomes = await dispatchAll(context.tools, calls, context.toolContext, { timer: deps.timer });
  const recorded = await context.log.runnerCalls(outcomes);
  reportResults(context, outcomes, "runner");
  return { trace: addTrace(trace, recorded), calls: recorded.calls, outcomes };
}

/** Stores a model step (its receipts when it called tools) and reports it. */
export async function recordStep(context: RunContext, trace: Trace, step: Step): Promise<Trace> {
  const next = addTrace(trace, await context.log.modelStep(step));
  reportTurn(context, next, step.result, step.outcomes.length);
  reportResults(context, step.outcomes, "model");
  return next;
}

/** Counts a model request that made no tool calls (a correction, the legacy synthesis). */
export function noteModelCall(context: RunContext, trace: Trace, result: ChatResult): Trace {
  const next = addTrace(trace, { modelCalls: [result] });
  reportTurn(context, next, result, 0);
  return next;
}

export function reportResults(
  context: RunContext,
  outcomes: readonly ToolOutcome[],
  by: "model" | "runner",
): void {
  for (const outcome of outcomes)
    context.emit({ type: "tool-result", tool: outcome.name, ok: !outcome.error, by });
}

function reportTurn(context: RunContext, trace: Trace, result: ChatResult, toolCalls: number): void {
  context.emit({
    type: "model-turn",
    turn: trace.modelCalls.length,
    toolCalls,
    model: result.model,
    endpoint: result.endpoint,
  });
}
