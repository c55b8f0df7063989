/**
 * Confirm / Cancel on a change the model proposed (a deletion, or any change from a turn that held outside
 * text or that the user did not ask for). Only the user who owns the pending action may resolve it, only
 * before it expires, and only once; the tool then runs as that owner, and what it did gets an Undo.
 *
 * A Confirm pressed on a version the object's server has moved past writes nothing: the reply says what
 * changed there and the same change, described against the server's version, waits for a new Confirm.
 */
import { ASK_AGAIN_TEXT } from "../accounts/ports.ts";
import type { ConfirmationOutcome, PendingConfirmation } from "../assistant.ts";
import type { CoreDeps } from "../deps.ts";
import { FAILED_CALL_FACTS, type PendingAction, type User } from "../domain.ts";
import { messageLog } from "../message-log.ts";
import { chatToolSet } from "../tools/allowlists.ts";
import type { PendingRequest, ToolContext } from "../tools/define-tool.ts";
import { dispatchToolCall, resultContent, type ToolOutcome } from "../tools/dispatch.ts";
import { offerUndo } from "./undo.ts";

/** Files a change for the user's Confirm, expiring after the configured minutes. */
export async function holdForConfirmation(
  deps: Pick<CoreDeps, "ports" | "clock" | "config">,
  owner: { userId: number; conversationId: number | null },
  request: PendingRequest,
): Promise<PendingConfirmation> {
  const at = deps.clock.now();
  const row = await deps.ports.confirmations.create({
    kind: "confirm",
    userId: owner.userId,
    conversationId: owner.conversationId,
    toolName: request.toolName,
    arguments: request.arguments,
    summary: request.summary,
    at,
    expiresAt: new Date(at.getTime() + deps.config.confirmationMinutes * 60_000),
  });
  return { id: row.id, summary: row.summary, expiresAt: row.expiresAt };
}

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
  const context: ToolContext = {
    user,
    clock: deps.clock,
    records: deps.ports.records,
    sources: deps.ports.sources,
  };
  const outcome = await dispatchToolCall(chatToolSet(deps.tools), callOf(claimed), context, {
    confirmed: true,
    timer: deps.timer,
  });
  await confirmations.recordResult(claimed.id, resultContent(outcome));
  const again = stale(outcome) ? await askAgain(deps, user, claimed, context) : undefined;
  const text = again
    ? `${errorText(outcome.result).replace(ASK_AGAIN_TEXT, "").trim()} Confirm again if you still want it: ${again.summary}`
    : outcome.error
      ? `Could not do it: ${errorText(outcome.result)}`
      : `Done: ${claimed.summary.replace(/\?$/, "")}.`;
  if (claimed.conversationId !== null) {
    await log.runnerCalls([outcome]);
    await log.text("assistant", text, deps.clock.now(), {
      kind: "confirmation",
      pending_id: claimed.id,
      ...(again ? { asked_again: again.id } : {}),
    });
  }
  if (again) return { kind: "asked-again", text, pending: [again] };
  const undo = outcome.mutation
    ? await offerUndo(deps, { userId, conversationId: claimed.conversationId }, outcome.mutation)
    : undefined;
  return { kind: "done", text, ...(undo ? { undo } : {}) };
}

const callOf = (action: PendingAction) => ({
  id: `confirmed_${action.id}`,
  function: { name: action.toolName, arguments: action.arguments },
});

/**
 * The server refused the write because its copy moved on and still holds the object (its facts came
 * back): the change may be asked for again. One deleted there has no facts, and nothing is asked.
 */
function stale(outcome: ToolOutcome): boolean {
  return (
    outcome.errorCode === "conflict" &&
    typeof outcome.result === "object" &&
    outcome.result !== null &&
    FAILED_CALL_FACTS in outcome.result
  );
}

/**
 * The same call held again: the tool describes it from the mirror, which the conflict brought up to the
 * server's version, so the new summary names what the user would now confirm.
 */
async function askAgain(
  deps: CoreDeps,
  user: User,
  action: PendingAction,
  context: ToolContext,
): Promise<PendingConfirmation | undefined> {
  let held: PendingConfirmation | undefined;
  const holding: ToolContext = {
    ...context,
    requestConfirmation: async (request) => {
      held = await holdForConfirmation(
        deps,
        { userId: user.id, conversationId: action.conversationId },
        request,
      );
      return held;
    },
  };
  await dispatchToolCall(chatToolSet(deps.tools), callOf(action), holding, {
    confirmChanges: true,
    timer: deps.timer,
  });
  return held;
}

function errorText(result: unknown): string {
  if (typeof result === "object" && result !== null && "error" in result) return String(result.error);
  return "unknown error";
}
