/**
 * Confirm / Cancel on a change the model proposed (a deletion, or any change from a turn that held outside
 * text or that the user did not ask for). Only the user who owns the pending action may resolve it, only
 * before it expires, and only once; the tool then runs as that owner, and what it did gets an Undo.
 */
import type { ConfirmationOutcome } from "../assistant.ts";
import type { CoreDeps } from "../deps.ts";
import { messageLog } from "../message-log.ts";
import { chatToolSet } from "../tools/allowlists.ts";
import { dispatchToolCall, resultContent } from "../tools/dispatch.ts";
import { offerUndo } from "./undo.ts";

export async function resolveConfirmation(
  deps: CoreDeps,
  userId: number,
  pendingId: number,
  confirmed: boolean,
): Promise<ConfirmationOutcome> {
  const { confirmations } = deps.ports;
  const action = await confirmations.get(pendingId);
  if (action?.kind !== "confirm") return { kind: "not-found", text: "That request no longer exists." };
  if (action.userId !== userId)
    return { kind: "not-yours", text: "Only the person who asked can confirm that." };
  if (action.state !== "pending")
    return { kind: "already-resolved", text: `Already ${action.state}: ${action.summary}` };
  const now = deps.clock.now();
  if (action.expiresAt <= now) {
    await confirmations.expire(action.id, now);
    return {
      kind: "expired",
      text: `That request expired, nothing was changed. Ask again if you still want it: ${action.summary}`,
    };
  }
  const claimed = await confirmations.claim(action.id, userId, confirmed ? "confirmed" : "cancelled", now);
  if (!claimed) return { kind: "already-resolved", text: `Already handled: ${action.summary}` };

  const log = messageLog(
    deps.ports.receipts,
    { userId, runId: null, conversationId: claimed.conversationId },
    deps.timer,
  );
  if (!confirmed) {
    const text = `Cancelled, nothing was changed: ${claimed.summary}`;
    await confirmations.recordResult(claimed.id, JSON.stringify({ cancelled: true }));
    if (claimed.conversationId !== null)
      await log.text("assistant", text, now, { kind: "confirmation", pending_id: claimed.id });
    return { kind: "cancelled", text };
  }

  const user = await deps.ports.users.get(userId);
  if (!user) return { kind: "not-found", text: "That request no longer exists." };
  const outcome = await dispatchToolCall(
    chatToolSet(deps.tools),
    { id: `confirmed_${claimed.id}`, function: { name: claimed.toolName, arguments: claimed.arguments } },
    { user, clock: deps.clock, records: deps.ports.records, sources: deps.ports.sources },
    { confirmed: true, timer: deps.timer },
  );
  await confirmations.recordResult(claimed.id, resultContent(outcome));
  const text = outcome.error
    ? `Could not do it: ${errorText(outcome.result)}`
    : `Done: ${claimed.summary.replace(/\?$/, "")}.`;
  if (claimed.conversationId !== null) {
    await log.runnerCalls([outcome]);
    await log.text("assistant", text, deps.clock.now(), { kind: "confirmation", pending_id: claimed.id });
  }
  const undo = outcome.mutation
    ? await offerUndo(deps, { userId, conversationId: claimed.conversationId }, outcome.mutation)
    : undefined;
  return { kind: "done", text, ...(undo ? { undo } : {}) };
}

function errorText(result: unknown): string {
  if (typeof result === "object" && result !== null && "error" in result) return String(result.error);
  return "unknown error";
}
