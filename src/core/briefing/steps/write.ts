/**
 * Step 3: the model writes a draft. Agentic: the model starts from the runner's receipts and may call any
 * other briefing tool (projects, notes, topic news, other days) within the turn cap; legacy: the runner
 * gathers the remaining sections, then the model synthesises once. When the model fails or writes nothing,
 * the result is a fallback to the digest, carrying every receipt stored so far.
 */
import { MODEL_LIST_LIMITS } from "../../tools/model-view.ts";
import { chatOrModelError, isStepCount, runToolLoop } from "../../tools/tool-loop.ts";
import type { Trace } from "../../trace.ts";
import {
  type Draft,
  type Fallback,
  noteModelCall,
  type RunContext,
  recordStep,
  runnerCalls,
} from "../context.ts";
import { missingCoverage } from "../coverage.ts";
import { legacyCalls, legacyDataPrompt, legacySystemPrompt } from "../legacy.ts";
import { briefingSystemPrompt, triggerInstruction } from "../slot-prompts.ts";
import { emptyReply, modelFailed } from "./fallbacks.ts";
import type { Seeded } from "./receipts.ts";

export const MAX_BRIEFING_TURNS = 8;

interface Plan {
  mode: "agentic" | "legacy";
  /** Why the run is not agentic, when it is not. */
  reason: string | null;
}

export async function write(context: RunContext, seeded: Seeded): Promise<Draft | Fallback> {
  const plan = await choosePlan(context);
  return plan.mode === "legacy" ? legacy(context, seeded, plan) : agentic(context, seeded, plan);
}

/** Agentic unless the user chose legacy or the briefing model cannot call tools. */
async function choosePlan(context: RunContext): Promise<Plan> {
  const { deps, user, run } = context;
  if (user.briefingMode === "legacy") return { mode: "legacy", reason: "briefing_mode is legacy" };
  const verdict = await deps.model.canRunAgentic("briefing").catch(() => undefined);
  if (!verdict || verdict.ok) return { mode: "agentic", reason: null };
  deps.logger.warn(
    {
      userId: user.id,
      runId: run.id,
      model: verdict.model,
      endpoint: verdict.endpoint,
      reason: verdict.reason,
    },
    "briefing model cannot run agentic briefings; falling back to legacy mode",
  );
  return { mode: "legacy", reason: `agentic mode unavailable: ${verdict.reason ?? "unknown reason"}` };
}

/**
 * The tool loop over the receipts: at most MAX_BRIEFING_TURNS model turns, every step stored before the next
 * request. A model that needs nothing more answers in its first turn.
 */
async function agentic(context: RunContext, seeded: Seeded, plan: Plan): Promise<Draft | Fallback> {
  const { deps, user, slot, run } = context;
  let trace = seeded.trace;
  try {
    const loop = await runToolLoop({
      model: deps.model,
      role: "briefing",
      messages: [
        {
          role: "system",
          content: briefingSystemPrompt(slot, user, deps.clock.now(), { changesTool: seeded.changesTool }),
        },
        { role: "user", content: triggerInstruction(slot) },
        ...seeded.messages,
      ],
      tools: context.tools,
      context: context.toolContext,
      stopWhen: isStepCount(MAX_BRIEFING_TURNS),
      timer: deps.timer,
      budget: context.budget,
      promptBudget: context.promptBudget,
      onStep: async (step) => {
        trace = await recordStep(context, trace, step);
      },
    });
    const capped = loop.text === null;
    if (capped) {
      deps.logger.warn(
        { userId: user.id, runId: run.id, turns: MAX_BRIEFING_TURNS },
        "briefing hit the turn cap; using the last prose or a digest",
      );
    }
    const reason = capped ? `tool loop hit the ${MAX_BRIEFING_TURNS}-turn cap` : plan.reason;
    const draft = capped ? loop.lastProse : loop.text;
    if (!draft) return emptyReply({ trace, changes: seeded.changes }, capped ? reason : null);
    return {
      kind: "draft",
      draft,
      messages: loop.messages,
      mode: "agentic",
      reason,
      listCaps: loop.listCaps,
      trace,
      changes: seeded.changes,
    };
  } catch (error) {
    return modelFailed(context, error, { trace, changes: seeded.changes });
  }
}

/** Legacy mode: the runner gathers the sections its receipts lack, then the model writes once from the data block. */
async function legacy(context: RunContext, seeded: Seeded, plan: Plan): Promise<Draft | Fallback> {
  const { deps, user, slot } = context;
  let trace: Trace = seeded.trace;
  try {
    const missing = missingCoverage(legacyCalls(slot), trace.receipts);
    if (missing.length > 0) trace = (await runnerCalls(context, trace, missing)).trace;
    const messages = [
      { role: "system" as const, content: legacySystemPrompt(slot, user, deps.clock.now()) },
      {
        role: "user" as const,
        content: legacyDataPrompt(trace.receipts, context.localDate, seeded.changes),
      },
    ];
    const result = await chatOrModelError(deps.model, { role: "briefing", messages }, context.budget);
    trace = noteModelCall(context, trace, result);
    const draft = result.content.trim();
    if (!draft) return emptyReply({ trace, changes: seeded.changes }, null);
    return {
      kind: "draft",
      draft,
      messages: [...messages, { role: "assistant", content: result.content }],
      mode: "legacy",
      reason: plan.reason,
      listCaps: MODEL_LIST_LIMITS,
      trace,
      changes: seeded.changes,
    };
  } catch (error) {
    return modelFailed(context, error, { trace, changes: seeded.changes });
  }
}
