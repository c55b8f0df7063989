/**
 * The facade platforms and the CLI call: `brief`, `receipts`, `reply`, `resolveConfirmation`. It resolves
 * users and runs (always scoped to the acting user) and hands the work to the briefing runner and chat.
 */
import type { Assistant, ReceiptsView } from "./assistant.ts";
import { runBriefing } from "./briefing/run-briefing.ts";
import { resolveConfirmation } from "./chat/confirmations.ts";
import { answerInThread, chatReply } from "./chat/converse.ts";
import { undoChange } from "./chat/undo.ts";
import type { CoreDeps } from "./deps.ts";
import type { BriefingRun, SlotName, User } from "./domain.ts";
import { NotFoundError } from "./errors.ts";
import { localTime } from "./local-time.ts";
import type { ReceiptLog } from "./ports.ts";

export function createAssistant(deps: CoreDeps): Assistant {
  const { ports } = deps;
  const requireUser = async (userId: number): Promise<User> => {
    const user = await ports.users.get(userId);
    if (!user) throw new NotFoundError(`no user with id ${userId}`);
    return user;
  };

  return {
    async brief(userId, options = {}) {
      const user = await requireUser(userId);
      const slot = options.slot ?? slotAt(localTime(deps.clock.now(), user.timeZone));
      return runBriefing(deps, { user, slot, onEvent: options.onEvent });
    },

    async receipts(userId, runId) {
      const run =
        runId === undefined
          ? await ports.runs.latestFinished(userId)
          : await ports.runs.ofUser(userId, runId);
      if (!run) return undefined;
      return receiptsView(ports.receipts, run);
    },

    async reply(userId, thread, text, options = {}) {
      const user = await requireUser(userId);
      // A thread remembers which briefing it follows, so later replies need not repeat it.
      const runId =
        thread.runId ??
        (await ports.conversations.find(thread.platform, thread.threadKey))?.runId ??
        undefined;
      // Another user's run id finds nothing and the message is answered as plain chat.
      const run = runId === undefined ? undefined : await ports.runs.ofUser(user.id, runId);
      if (run) return answerInThread(deps, user, run, thread, text, options);
      return chatReply(deps, user, { ...thread, runId: undefined }, text, options);
    },

    resolveConfirmation(userId, pendingId, confirmed) {
      return resolveConfirmation(deps, userId, pendingId, confirmed);
    },

    undo(userId, undoId) {
      return undoChange(deps, userId, undoId);
    },
  };
}

export async function receiptsView(log: ReceiptLog, run: BriefingRun): Promise<ReceiptsView> {
  const archived = run.archivedAt !== null;
  const receipts = archived ? ((await log.archivedReceipts(run.id)) ?? []) : await log.runReceipts(run.id);
  return {
    run: { id: run.id, slot: run.slot, localDate: run.localDate, createdAt: run.claimedAt, archived },
    receipts,
    grounding: run.grounding,
  };
}

/** The slot a manual briefing gets from the user's wall clock. */
export function slotAt(time: string): SlotName {
  if (time < "11:00") return "morning";
  if (time < "15:00") return "midday";
  if (time < "18:30") return "afternoon";
  return "evening";
}
