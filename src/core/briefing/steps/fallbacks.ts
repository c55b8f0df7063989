/** When the model gives the briefing nothing usable, the digest speaks instead; these say why. */
import { ModelError } from "../../model.ts";
import type { Carried, Fallback, RunContext } from "../context.ts";
import { modelFailureNote } from "../digest.ts";

export const EMPTY_REPLY_NOTE =
  "(The assistant model returned no briefing, so this is a plain digest of your data.)";

export function emptyReply(carried: Carried, reason: string | null): Fallback {
  return {
    kind: "fallback",
    note: EMPTY_REPLY_NOTE,
    verdict: null,
    reason: reason ?? "the model wrote no prose",
    ...carried,
  };
}

/** The model let us down (unreachable, refused, cut off): the digest speaks instead. Anything else surfaces. */
export function modelFailed(context: RunContext, error: unknown, carried: Carried): Fallback {
  if (!(error instanceof ModelError)) throw error;
  context.deps.logger.warn(
    { userId: context.user.id, runId: context.run.id, code: error.code, error: error.message },
    "briefing model failed; sending a digest",
  );
  return {
    kind: "fallback",
    note: modelFailureNote(error.code),
    verdict: null,
    reason: `${error.code === "MODEL_UNAVAILABLE" ? "model unavailable" : error.code.toLowerCase().replace(/_/g, " ")}: ${error.message}`,
    ...carried,
  };
}
