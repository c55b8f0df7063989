/**
 * Step 3: the model writes a draft. Agentic: the tool loop over the read-only briefing tools, then the
 * coverage step; legacy: gather the data first, synthesise once. When the model fails or writes nothing,
 * the result is a fallback to the digest, carrying every receipt stored so far.
 */
import { chatOrModelError, isStepCount, runToolLoop, toolMessage } from "../../tools/tool-loop.ts";
import type { Trace } from "../../trace.ts";
import {
  type Draft,
  type Fallback,
  noteModelCall,
  type RunContext,
  recordStep,
  runnerCalls,
} from "../context.ts";
import { legacyCalls, legacyDataPrompt, legacySystemPrompt } from "../legacy.ts";
import { briefingSystemPrompt, triggerInstruction } from "../slot-prompts.ts";
import { type Asked, cover } from "./cover.ts";
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
  if (plan.mode === "legacy") return legacy(context, seeded, plan);
  const asked = await ask(context, seeded, plan);
  return asked.kind === "asked" ? cover(context, asked) : asked;
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

/** The tool loop: at most MAX_BRIEFING_TURNS model turns, every step stored before the next request. */
async function ask(context: RunContext, seeded: Seeded, plan: Plan): Promise<Asked | Fallback> {
  const { deps, user, slot, run } = context;
  const { checkIn } = seeded;
  let trace = seeded.trace;
  try {
    const loop = await runToolLoop({
      model: deps.model,
      role: "briefing",
      messages: [
        {
          role: "system",
          content: briefingSystemPrompt(slot, user, deps.clock.now(), { changesTool: checkIn?.outcome.name }),
        },
        { role: "user", content: triggerInstruction(slot) },
        ...(checkIn
          ? [
              { role: "assistant" as const, content: "", tool_calls: [checkIn.call] },
              toolMessage(checkIn.outcome),
            ]
          : []),
      ],
      tools: context.tools,
      context: context.toolContext,
      stopWhen: isStepCount(MAX_BRIEFING_TURNS),
      timer: deps.timer,
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
    return {
      kind: "asked",
      messages: loop.messages,
      draft: capped ? loop.lastProse : loop.text,
      capped,
      reason: capped ? `tool loop hit the ${MAX_BRIEFING_TURNS}-turn cap` : plan.reason,
      trace,
      changes: seeded.changes,
    };
  } catch (error) {
    return modelFailed(context, error, { trace, changes: seeded.changes });
  }
}

/** Legacy mode: the runner gathers every section, then the model writes once from the data block. */
async function legacy(context: RunContext, seeded: Seeded, plan: Plan): Promise<Draft | Fallback> {
  const { deps, user, slot } = context;
  let trace: Trace = seeded.trace;
  try {
    trace = (await runnerCalls(context, trace, legacyCalls(slot))).trace;
    const messages = [
      { role: "system" as const, content: legacySystemPrompt(slot, user, deps.clock.now()) },
      {
        role: "user" as const,
        content: legacyDataPrompt(trace.receipts, context.localDate, seeded.changes),
      },
    ];
    const result = await chatOrModelError(deps.model, { role: "briefing", messages });
    trace = noteModelCall(context, trace, result);
    const draft = result.content.trim();
    if (!draft) return emptyReply({ trace, changes: seeded.changes }, null);
    return {
      kind: "draft",
      draft,
      messages: [...messages, { role: "assistant", content: result.content }],
      mode: "legacy",
      reason: plan.reason,
      trace,
      changes: seeded.changes,
    };
  } catch (error) {
    return modelFailed(context, error, { trace, changes: seeded.changes });
  }
}
