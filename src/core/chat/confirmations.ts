/**
 * Confirm / Cancel on a destructive tool call. Only the user who owns the pending action may resolve it,
 * only before it expires, and only once; the tool then runs as that owner.
 */
import {
  claimPendingAction,
  expirePendingAction,
  getPendingAction,
  recordPendingResult,
} from "../../../db/queries/pending-actions.ts";
import { getUser } from "../../../db/queries/users.ts";
import type { ConfirmationOutcome } from "../assistant.ts";
import { RunRecorder } from "../briefing/run-recorder.ts";
import type { BriefingDeps } from "../briefing/types.ts";
import { chatToolSet } from "../tools/allowlists.ts";
import { dispatchToolCall, resultContent } from "../tools/dispatch.ts";

export async function resolveConfirmation(
  deps: BriefingDeps,
  userId: number,
  pendingId: number,
  confirmed: boolean,
): Promise<ConfirmationOutcome> {
  const action = await getPendingAction(deps.db, pendingId);
  if (!action) return { kind: "not-found", text: "That request no longer exists." };
  if (action.userId !== userId)
    return { kind: "not-yours", text: "Only the person who asked can confirm that." };
  if (action.state !== "pending")
    return { kind: "already-resolved", text: `Already ${action.state}: ${action.summary}` };
  const now = deps.clock.now();
  if (action.expiresAt <= now) {
    await expirePendingAction(deps.db, action.id, now);
    return {
      kind: "expired",
      text: `That request expired, nothing was changed. Ask again if you still want it: ${action.summary}`,
    };
  }
  const claimed = await claimPendingAction(
    deps.db,
    action.id,
    userId,
    confirmed ? "confirmed" : "cancelled",
    now,
  );
  if (!claimed) return { kind: "already-resolved", text: `Already handled: ${action.summary}` };

  const timer = deps.timer ?? (() => performance.now());
  const recorder = new RunRecorder(
    deps.db,
    { userId, runId: null, conversationId: claimed.conversationId },
    timer,
  );
  if (!confirmed) {
    const text = `Cancelled, nothing was changed: ${claimed.summary}`;
    await recordPendingResult(deps.db, claimed.id, JSON.stringify({ cancelled: true }));
    if (claimed.conversationId !== null)
      await recorder.recordAssistantText(text, now, { kind: "confirmation", pending_id: claimed.id });
    return { kind: "cancelled", text };
  }

  const user = await getUser(deps.db, userId);
  if (!user) return { kind: "not-found", text: "That request no longer exists." };
  const outcome = await dispatchToolCall(
    chatToolSet(deps.tools),
    { id: `confirmed_${claimed.id}`, function: { name: claimed.toolName, arguments: claimed.arguments } },
    { user, db: deps.db, clock: deps.clock },
    { confirmed: true, timer },
  );
  await recordPendingResult(deps.db, claimed.id, resultContent(outcome));
  const text = outcome.error
    ? `Could not do it: ${errorText(outcome.result)}`
    : `Done: ${claimed.summary.replace(/\?$/, "")}.`;
  if (claimed.conversationId !== null) {
    await recorder.recordRunnerCalls([outcome]);
    await recorder.recordAssistantText(text, deps.clock.now(), {
      kind: "confirmation",
      pending_id: claimed.id,
    });
  }
  return { kind: "done", text };
}

function errorText(result: unknown): string {
  if (typeof result === "object" && result !== null && "error" in result) return String(result.error);
  return "unknown error";
}
