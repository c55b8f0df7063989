/**
 * The `RunLifecycle` port in memory: the run's state machine as guarded transitions. Each one checks the
 * states it leaves (and the owner, where the database's statement does) before it changes anything, and
 * nothing awaits in between, so like the single statement it stands for it is all or nothing.
 */
import type { BriefingRun, Delivery, DeliveryState, RunState } from "../../../src/core/domain.ts";
import type { RunLifecycle } from "../../../src/core/ports.ts";
import { ownerIsGone } from "./leases.ts";
import { receiptOf } from "./receipts.ts";
import { copyRow, type MemoryTables, type RunRow, removeWhere } from "./tables.ts";

/** What a send judged interrupted records; the same words as the database's. */
export const INTERRUPTED_SEND_REASON = "interrupted mid-send; not re-sent to avoid a duplicate";
const RECLAIMED_REASON = "generation restarted after an interruption";
const DAY_MS = 86_400_000;

export function createMemoryRunLifecycle(tables: MemoryTables): RunLifecycle {
  function move(
    runId: number,
    from: readonly RunState[],
    guard: (run: RunRow) => boolean,
    changes: (run: RunRow) => Partial<RunRow>,
    at: Date,
  ): BriefingRun | undefined {
    const run = tables.runs.find((row) => row.id === runId);
    if (!run || !from.includes(run.state) || !guard(run)) return undefined;
    Object.assign(run, changes(run), { updatedAt: at });
    return copyRow(run);
  }

  function moveDelivery(
    deliveryId: number,
    from: readonly DeliveryState[],
    guard: (row: Delivery) => boolean,
    changes: (row: Delivery) => Partial<Delivery>,
  ): Delivery | undefined {
    const row = tables.deliveries.find((delivery) => delivery.id === deliveryId);
    if (!row || !from.includes(row.state) || !guard(row)) return undefined;
    Object.assign(row, changes(row));
    return copyRow(row);
  }

  function insertRun(values: Partial<RunRow> & Pick<RunRow, "userId" | "slot" | "localDate">): RunRow {
    if (!tables.users.some((user) => user.id === values.userId))
      throw new Error(`insert of a run of user ${values.userId}, who does not exist (foreign key)`);
    const at = values.claimedAt ?? tables.now();
    const run: RunRow = {
      id: tables.nextId("briefing_runs"),
      trigger: "manual",
      state: "claimed",
      reason: null,
      mode: null,
      route: null,
      endpoint: null,
      model: null,
      turns: 0,
      toolCalls: 0,
      promptTokens: 0,
      evalTokens: 0,
      timings: {},
      grounding: null,
      prose: null,
      checks: null,
      conversationId: null,
      claimedBy: null,
      claimedAt: at,
      notAfter: null,
      generatedAt: null,
      deliveredAt: null,
      updatedAt: at,
      archivedAt: null,
      ...values,
    };
    tables.runs.push(run);
    return run;
  }

  /** The partial unique index on (user, slot, local date) of scheduled runs: one claim wins. */
  function claimOnce(
    slot: Parameters<RunLifecycle["claim"]>[0],
    owner: string,
    at: Date,
    outcome: { state: "claimed" } | { state: "skipped"; reason: string },
  ): BriefingRun | undefined {
    const taken = tables.runs.some(
      (run) =>
        run.trigger === "schedule" &&
        run.userId === slot.userId &&
        run.slot === slot.slot &&
        run.localDate === slot.localDate,
    );
    if (taken) return undefined;
    return copyRow(
      insertRun({
        userId: slot.userId,
        slot: slot.slot,
        localDate: slot.localDate,
        trigger: "schedule",
        state: outcome.state,
        reason: outcome.state === "skipped" ? outcome.reason : null,
        claimedBy: owner,
        claimedAt: at,
        notAfter: slot.notAfter,
        updatedAt: at,
      }),
    );
  }

  const rowsOf = (runId: number) => tables.deliveries.filter((row) => row.runId === runId);

  return {
    claim: async (slot, owner, at) => claimOnce(slot, owner, at, { state: "claimed" }),
    skipMissed: async (slot, owner, reason, at) => claimOnce(slot, owner, at, { state: "skipped", reason }),
    createManual: async (run) =>
      copyRow(
        insertRun({
          userId: run.userId,
          slot: run.slot,
          localDate: run.localDate,
          trigger: "manual",
          state: "generating",
          claimedBy: run.owner,
          claimedAt: run.at,
          updatedAt: run.at,
        }),
      ),
    async start(runId, userId, owner, at) {
      const run = move(
        runId,
        ["claimed"],
        (row) => row.userId === userId && row.claimedBy === owner,
        () => ({ state: "generating" }),
        at,
      );
      // What an interrupted attempt logged goes with the retake, as in the database's transaction.
      if (run) removeWhere(tables.messages, (message) => message.runId === run.id);
      return run;
    },
    finish: async (runId, owner, result, at) =>
      move(
        runId,
        ["generating"],
        (row) => row.claimedBy === owner,
        () => ({ ...copyRow(result), state: "generated", generatedAt: at }),
        at,
      ),
    fail: async (runId, owner, reason, at) =>
      move(
        runId,
        ["claimed", "generating"],
        (row) => row.claimedBy === owner,
        () => ({ state: "failed", reason }),
        at,
      ),
    reclaim: async (runId, previousOwner, owner, at) =>
      move(
        runId,
        ["claimed", "generating"],
        (row) => row.claimedBy === previousOwner,
        () => ({ state: "claimed", claimedBy: owner, reason: RECLAIMED_REASON }),
        at,
      ),
    skip: async (runId, reason, at) =>
      move(
        runId,
        ["generated"],
        () => true,
        () => ({ state: "skipped", reason }),
        at,
      ),
    async beginDelivery(runId, rows, at) {
      const run = move(
        runId,
        ["generated"],
        () => true,
        () => ({ state: "delivering" }),
        at,
      );
      if (!run) return undefined;
      for (const row of rows) {
        // The unique index on (run, platform): a second row for one platform is dropped.
        if (rowsOf(runId).some((existing) => existing.platform === row.platform)) continue;
        tables.deliveries.push({
          id: tables.nextId("deliveries"),
          runId,
          userId: run.userId,
          platform: row.platform,
          identityId: row.identityId,
          target: null,
          state: row.state ?? "pending",
          attempts: 0,
          lastError: row.lastError ?? null,
          platformMessageId: null,
          nextAttemptAt: at,
          sendingAt: null,
          sendingBy: null,
          progress: null,
          sentAt: row.state === "sent" ? at : null,
        });
      }
      return run;
    },
    async settle(runId, at, reason) {
      const rows = [...rowsOf(runId)].sort((a, b) => a.id - b.id);
      const open = rows.some((row) => row.state === "pending" || row.state === "sending");
      const anySent = rows.some((row) => row.state === "sent");
      const failed = rows.filter((row) => row.state === "failed");
      const failures =
        failed.length > 0
          ? failed.map((row) => `${row.platform}: ${row.lastError ?? "failed"}`).join("; ")
          : null;
      return move(
        runId,
        ["delivering"],
        () => rows.length > 0 && !open,
        () => ({
          state: anySent ? "delivered" : "failed",
          deliveredAt: anySent ? at : null,
          reason: !anySent
            ? failures
            : failures !== null
              ? `partly delivered; ${failures}`
              : (reason ?? null),
        }),
        at,
      );
    },
    beginAttempt: async (deliveryId, owner, at, target) =>
      moveDelivery(
        deliveryId,
        ["pending"],
        (row) => row.nextAttemptAt <= at,
        (row) => ({
          ...(target !== undefined ? { target } : {}),
          state: "sending",
          sendingAt: at,
          sendingBy: owner,
          attempts: row.attempts + 1,
        }),
      ),
    async recordProgress(deliveryId, owner, progress) {
      moveDelivery(
        deliveryId,
        ["sending"],
        (row) => row.sendingBy === owner,
        () => ({ progress: copyRow(progress) }),
      );
    },
    delivered: async (deliveryId, owner, receipt, at) =>
      moveDelivery(
        deliveryId,
        ["sending", "failed"],
        (row) => row.sendingBy === owner,
        () => ({
          state: "sent",
          platformMessageId: receipt.platformMessageId,
          target: receipt.target,
          sentAt: at,
          lastError: null,
        }),
      ),
    retryLater: async (deliveryId, owner, error, nextAttemptAt) =>
      moveDelivery(
        deliveryId,
        ["sending"],
        (row) => row.sendingBy === owner,
        () => ({ state: "pending", lastError: error, nextAttemptAt, sendingAt: null, sendingBy: null }),
      ),
    failDelivery: async (deliveryId, reason) =>
      moveDelivery(
        deliveryId,
        ["pending", "sending"],
        () => true,
        () => ({ state: "failed", lastError: reason }),
      ),
    async failInterruptedSends(owner, at, everyOtherOwner) {
      const runIds = new Set<number>();
      for (const row of tables.deliveries) {
        if (
          row.state === "sending" &&
          row.platformMessageId === null &&
          ownerIsGone(tables, row.sendingBy, owner, at, everyOtherOwner)
        ) {
          row.state = "failed";
          row.lastError = INTERRUPTED_SEND_REASON;
          runIds.add(row.runId);
        }
      }
      return [...runIds];
    },
    async archiveOld(options) {
      const before = new Date(options.now.getTime() - options.retentionDays * DAY_MS);
      const due = tables.runs
        .filter(
          (run) =>
            run.archivedAt === null &&
            run.claimedAt < before &&
            (options.userId === undefined || run.userId === options.userId),
        )
        .sort((a, b) => a.id - b.id);
      for (const run of due) {
        const receipts = tables.messages
          .filter((message) => message.runId === run.id && message.role === "tool")
          .sort((a, b) => a.id - b.id)
          .map((message) => {
            const receipt = receiptOf(message);
            return { ...receipt, at: receipt.at.toISOString() };
          });
        if (!tables.runArchives.some((archive) => archive.runId === run.id))
          tables.runArchives.push({ runId: run.id, userId: run.userId, receipts, archivedAt: options.now });
        removeWhere(tables.messages, (message) => message.runId === run.id);
        run.archivedAt = options.now;
      }
      return due.map((run) => run.id);
    },
  };
}
