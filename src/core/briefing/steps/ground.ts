/**
 * Step 4: the grounding check. Every time, date, number and named item in the draft must be backed by a
 * receipt of the run; one corrective turn names what is not, then unbacked sentences go, then the digest.
 */
import { ModelError } from "../../model.ts";
import { chatOrModelError } from "../../tools/tool-loop.ts";
import { addTrace } from "../../trace.ts";
import type { Draft, Fallback, Produced, RunContext } from "../context.ts";
import { noteModelCall } from "../context.ts";
import { groundDraft } from "../grounding-gate.ts";
import { correctionInstruction } from "../slot-prompts.ts";

export const UNGROUNDED_NOTE =
  "(The assistant's draft stated things your data does not show, so this is a plain digest instead.)";

export async function ground(context: RunContext, written: Draft): Promise<Produced | Fallback> {
  const { deps, user, run } = context;
  const startedAt = deps.timer();
  let { trace } = written;
  // The correction must follow the draft it corrects (after a turn cap the last message is a tool result).
  const last = written.messages.at(-1);
  const messages =
    last?.role === "assistant" && last.content.trim() === written.draft
      ? written.messages
      : [...written.messages, { role: "assistant" as const, content: written.draft }];
  let modelTime = 0;
  const gate = await groundDraft(
    written.draft,
    trace.receipts,
    { timeZone: user.timeZone, localDate: context.localDate, knownNames: [user.name] },
    async (description) => {
      const before = deps.timer();
      try {
        const result = await chatOrModelError(deps.model, {
          role: "briefing",
          messages: [...messages, { role: "user", content: correctionInstruction(description) }],
        });
        trace = noteModelCall(context, trace, result);
        return result.content;
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        deps.logger.warn(
          { runId: run.id, error: error.message },
          "corrective turn failed; trimming the draft",
        );
        return undefined;
      } finally {
        modelTime += deps.timer() - before;
      }
    },
  );
  trace = addTrace(trace, { groundingMs: deps.timer() - startedAt - modelTime });
  if (gate.kind === "backed") {
    return {
      kind: "produced",
      prose: gate.prose,
      mode: written.mode,
      grounding: gate.verdict,
      reason: written.reason,
      trace,
      changes: written.changes,
    };
  }
  deps.logger.warn(
    { userId: user.id, runId: run.id, unbacked: gate.verdict.unbacked },
    "briefing stayed ungrounded after correction; sending a digest",
  );
  return {
    kind: "fallback",
    note: UNGROUNDED_NOTE,
    verdict: gate.verdict,
    reason: written.reason,
    trace,
    changes: written.changes,
  };
}
