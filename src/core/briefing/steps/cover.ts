/**
 * The coverage step: a briefing must have looked at what its slot requires (today's tasks and calendar, and
 * the weather in the morning) before it may speak. The runner makes the calls the model skipped; unless
 * the turn cap was hit, the model then finishes with every result in front of it.
 */
import type { ChatMessage } from "../../model.ts";
import { chatOrModelError, toolMessage } from "../../tools/tool-loop.ts";
import {
  type Carried,
  type Draft,
  type Fallback,
  noteModelCall,
  type RunContext,
  runnerCalls,
} from "../context.ts";
import { COVERAGE, missingCoverage, type RequiredCall } from "../coverage.ts";
import { coverageInstruction } from "../slot-prompts.ts";
import { emptyReply, modelFailed } from "./fallbacks.ts";

/** What the tool loop left: its conversation and draft (the last prose, after a cap). */
export interface Asked extends Carried {
  readonly kind: "asked";
  readonly messages: readonly ChatMessage[];
  readonly draft: string | null;
  /** The loop stopped at the turn cap rather than with an answer. */
  readonly capped: boolean;
  readonly reason: string | null;
}

export async function cover(context: RunContext, asked: Asked): Promise<Draft | Fallback> {
  const { deps } = context;
  let { trace, draft, messages } = asked;
  const missing = missingCoverage(COVERAGE[context.slot], trace.receipts);
  try {
    if (missing.length > 0) {
      const made = await runnerCalls(context, trace, missing);
      trace = made.trace;
      if (!asked.capped) {
        // The draft was written without these results: drop it and let the model finish with everything.
        const withoutDraft = messages.at(-1)?.role === "assistant" ? messages.slice(0, -1) : messages;
        const finishing: ChatMessage[] = [
          ...withoutDraft,
          { role: "assistant", content: "", tool_calls: made.calls },
          ...made.outcomes.map(toolMessage),
          { role: "user", content: coverageInstruction(missing.map(describeCall)) },
        ];
        const result = await chatOrModelError(deps.model, { role: "briefing", messages: finishing });
        trace = noteModelCall(context, trace, result);
        draft = result.content.trim() || draft;
        messages = [...finishing, { role: "assistant", content: result.content }];
      }
    }
  } catch (error) {
    return modelFailed(context, error, { trace, changes: asked.changes });
  }
  if (!draft) return emptyReply({ trace, changes: asked.changes }, asked.capped ? asked.reason : null);
  return {
    kind: "draft",
    draft,
    messages,
    mode: "agentic",
    reason: asked.reason,
    trace,
    changes: asked.changes,
  };
}

function describeCall(call: RequiredCall): string {
  const args = Object.entries(call.arguments)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(", ");
  return `${call.name}(${args})`;
}
