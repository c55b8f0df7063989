/**
 * The facade platforms and the CLI call: `brief`, `receipts`, `reply`, `resolveConfirmation`. It resolves
 * users and runs (always scoped to the acting user) and hands the work to the briefing runner and chat.
 */
import { findConversation } from "../../db/queries/conversations.ts";
import { listRunReceipts } from "../../db/queries/messages.ts";
import { getArchivedReceipts } from "../../db/queries/retention.ts";
import { getUserRun, latestFinishedRun } from "../../db/queries/runs.ts";
import { getUser, NotFoundError } from "../../db/queries/users.ts";
import type { BriefingRun, User } from "../../db/schema/index.ts";
import type { SlotName } from "../../db/schema/users.ts";
import type { Assistant, ReceiptsView } from "./assistant.ts";
import { runBriefing } from "./briefing/run-briefing.ts";
import type { BriefingDeps } from "./briefing/types.ts";
import { resolveConfirmation } from "./chat/confirmations.ts";
import { answerInThread, chatReply } from "./chat/converse.ts";
import { localTime } from "./local-time.ts";

export type AssistantDeps = BriefingDeps;

export function createAssistant(deps: AssistantDeps): Assistant {
  const requireUser = async (userId: number): Promise<User> => {
    const user = await getUser(deps.db, userId);
    if (!user) throw new NotFoundError(`no user with id ${userId}`);
    return user;
  };

  return {
    async brief(userId, options = {}) {
      const user = await requireUser(userId);
      const slot = options.slot ?? slotAt(localTime(deps.clock.now(), user.timeZone));
      return runBriefing(deps, { user, slot, trigger: "manual", onProgress: options.onProgress });
    },

    async receipts(userId, runId) {
      const run =
        runId === undefined
          ? await latestFinishedRun(deps.db, userId)
          : await getUserRun(deps.db, userId, runId);
      if (!run) return undefined;
      return receiptsView(deps, run);
    },

    async reply(userId, thread, text, options = {}) {
      const user = await requireUser(userId);
      // A thread remembers which briefing it follows, so later replies need not repeat it.
      const runId =
        thread.runId ??
        (await findConversation(deps.db, thread.platform, thread.threadKey))?.runId ??
        undefined;
      // Another user's run id finds nothing and the message is answered as plain chat.
      const run = runId === undefined ? undefined : await getUserRun(deps.db, user.id, runId);
      if (run) return answerInThread(deps, user, run, thread, text, options);
      return chatReply(deps, user, { ...thread, runId: undefined }, text, options);
    },

    resolveConfirmation(userId, pendingId, confirmed) {
      return resolveConfirmation(deps, userId, pendingId, confirmed);
    },
  };
}

export async function receiptsView(deps: Pick<AssistantDeps, "db">, run: BriefingRun): Promise<ReceiptsView> {
  const archived = run.archivedAt !== null;
  const receipts = archived
    ? ((await getArchivedReceipts(deps.db, run.id)) ?? [])
    : await listRunReceipts(deps.db, run.id);
  return {
    run: { id: run.id, slot: run.slot, localDate: run.localDate, createdAt: run.claimedAt, archived },
    receipts,
  };
}

/** The slot a manual briefing gets from the user's wall clock. */
export function slotAt(time: string): SlotName {
  if (time < "11:00") return "morning";
  if (time < "15:00") return "midday";
  if (time < "18:30") return "afternoon";
  return "evening";
}
