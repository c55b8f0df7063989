/**
 * Step 4: the grounding gate. Every time, date, number, named item and claim of absence in the draft must
 * be backed by a receipt of the run. One corrective turn names what is not; it is offered the same
 * read-only briefing tools, so it can look rather than guess, and its calls become receipts of the run.
 * A rewrite that still fails, or that drops what the draft rightly named, loses to the earlier draft with
 * a digest of the receipts; when nothing backed is left, the digest alone.
 */
import { groundAnswer } from "../../grounding/gate.ts";
import { gateOptions } from "../../grounding/options.ts";
import { ModelError } from "../../model.ts";
import { withShown } from "../../tools/model-view.ts";
import { isStepCount, runToolLoop } from "../../tools/tool-loop.ts";
import { addTrace } from "../../trace.ts";
import type { Draft, Fallback, Produced, RunContext } from "../context.ts";
import { recordStep } from "../context.ts";
import { buildDigest } from "../digest.ts";
import { remainderSentences } from "../long-lists.ts";
import { correctionInstruction } from "../slot-prompts.ts";

export const UNGROUNDED_NOTE =
  "(The assistant's draft stated things your data does not show, so this is a plain digest instead.)";

/** A corrective turn may look up a few things before it rewrites. */
const MAX_CORRECTION_TURNS = 3;

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
  // The gate reads each list the budget shortened as the model was shown it ("and 37 more" of 8 shown).
  const gate = await groundAnswer({
    draft: written.draft,
    receipts: withShown(trace.receipts, written.listCaps),
    options: gateOptions(user, deps.clock.now(), context.localDate),
    rewrite: async (description) => {
      const before = deps.timer();
      const receiptsBefore = trace.receipts.length;
      try {
        const loop = await runToolLoop({
          model: deps.model,
          role: "briefing",
          messages: [...messages, { role: "user", content: correctionInstruction(description) }],
          tools: context.tools,
          context: context.toolContext,
          stopWhen: isStepCount(MAX_CORRECTION_TURNS),
          timer: deps.timer,
          budget: context.budget,
          promptBudget: context.promptBudget,
          listCaps: written.listCaps,
          onStep: async (step) => {
            trace = await recordStep(context, trace, step);
          },
        });
        return {
          text: loop.text ?? undefined,
          receipts: withShown(trace.receipts.slice(receiptsBefore), loop.listCaps),
        };
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        deps.logger.warn(
          { runId: run.id, error: error.message },
          "corrective turn failed; trimming the draft",
        );
        return { text: undefined, receipts: trace.receipts.slice(receiptsBefore) };
      } finally {
        modelTime += deps.timer() - before;
      }
    },
  });
  trace = addTrace(trace, { groundingMs: deps.timer() - startedAt - modelTime });
  if (gate.kind === "backed" || gate.kind === "draft") {
    // A list the model saw shortened is said to be longer than what the briefing names.
    const remainder = remainderSentences(gate.text, trace.receipts, written.listCaps);
    const text = remainder.length > 0 ? `${gate.text}\n\n${remainder.join(" ")}` : gate.text;
    const prose =
      gate.kind === "backed"
        ? text
        : `${text}\n\n${buildDigest(trace.receipts, { heading: "What your data shows:", changes: written.changes })}`;
    if (gate.kind === "draft") {
      deps.logger.warn(
        { userId: user.id, runId: run.id, unbacked: gate.verdict.unbacked },
        "the corrected briefing denied or dropped what the receipts hold; keeping the first draft with a digest",
      );
    }
    return {
      kind: "produced",
      prose,
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
