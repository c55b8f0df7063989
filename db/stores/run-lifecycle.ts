/** The run's state machine (`RunLifecycle`) and what the scheduler and outbox read (`RunQueue`). */
import type { Database } from "../client.ts";
import { acquireLease, leaseHolder, releaseLease, voidLeasesOfOthers } from "../queries/leases.ts";
import { rollUpOldRuns } from "../queries/retention.ts";
import {
  beginDeliveryAttempt,
  beginRunDelivery,
  claimRun,
  createManualRun,
  failDelivery,
  failInterruptedSends,
  failRun,
  finishRun,
  markDelivered,
  type NewDelivery,
  orphanedRuns,
  type RunResult,
  reclaimRun,
  recordDeliveryProgress,
  retryDeliveryLater,
  type SlotClaim,
  settleRun,
  skipRun,
  startRun,
} from "../queries/run-lifecycle.ts";
import { deliveriesOfRun, dueDeliveries, runsInStates, scheduledKeys } from "../queries/run-queue.ts";
import { getRunWithTimeZone } from "../queries/runs.ts";
import type { Delivery, RunState, SlotName } from "../schema/index.ts";

export function createRunLifecycle(db: Database) {
  return {
    claim: (slot: SlotClaim, owner: string, at: Date) => claimRun(db, slot, owner, at),
    skipMissed: (slot: SlotClaim, owner: string, reason: string, at: Date) =>
      claimRun(db, slot, owner, at, { state: "skipped", reason }),
    createManual: (run: { userId: number; slot: SlotName; localDate: string; owner: string; at: Date }) =>
      createManualRun(db, run),
    start: (runId: number, userId: number, owner: string, at: Date) => startRun(db, runId, userId, owner, at),
    finish: (runId: number, owner: string, result: RunResult, at: Date) =>
      finishRun(db, runId, owner, result, at),
    fail: (runId: number, owner: string, reason: string, at: Date) => failRun(db, runId, owner, reason, at),
    reclaim: (runId: number, previousOwner: string, owner: string, at: Date) =>
      reclaimRun(db, runId, previousOwner, owner, at),
    skip: (runId: number, reason: string, at: Date) => skipRun(db, runId, reason, at),
    beginDelivery: (runId: number, rows: readonly NewDelivery[], at: Date) =>
      beginRunDelivery(db, runId, rows, at),
    settle: (runId: number, at: Date, reason?: string) => settleRun(db, runId, at, reason),
    beginAttempt: (deliveryId: number, owner: string, at: Date, target?: string) =>
      beginDeliveryAttempt(db, deliveryId, owner, at, target),
    recordProgress: (deliveryId: number, owner: string, progress: unknown) =>
      recordDeliveryProgress(db, deliveryId, owner, progress),
    delivered: (
      deliveryId: number,
      owner: string,
      receipt: { platformMessageId: string; target: string },
      at: Date,
    ) => markDelivered(db, deliveryId, owner, receipt, at),
    retryLater: (deliveryId: number, owner: string, error: string, nextAttemptAt: Date) =>
      retryDeliveryLater(db, deliveryId, owner, error, nextAttemptAt),
    failDelivery: (deliveryId: number, reason: string) => failDelivery(db, deliveryId, reason),
    failInterruptedSends: (owner: string, at: Date, everyOtherOwner: boolean) =>
      failInterruptedSends(db, owner, at, everyOtherOwner),
    archiveOld: async (options: { now: Date; retentionDays: number; userId?: number }) =>
      (await rollUpOldRuns(db, options)).archivedRuns,
  };
}

export function createRunQueue(db: Database) {
  return {
    scheduledKeys: (localDates: readonly string[]) => scheduledKeys(db, localDates),
    orphaned: (options: { owner: string; at: Date; everyOtherOwner: boolean }) => orphanedRuns(db, options),
    get: (runId: number) => getRunWithTimeZone(db, runId),
    inStates: (states: readonly RunState[]) => runsInStates(db, states),
    dueDeliveries: (options: {
      at: Date;
      platforms: readonly Delivery["platform"][];
      limit: number;
      excludeIds: readonly number[];
    }) => dueDeliveries(db, options),
    deliveriesOf: (runId: number) => deliveriesOfRun(db, runId),
  };
}

export function createLeases(db: Database) {
  return {
    acquire: (name: string, holder: string, ttlMs: number, at: Date) =>
      acquireLease(db, name, holder, ttlMs, at),
    release: (name: string, holder: string) => releaseLease(db, name, holder),
    holder: (name: string, at: Date) => leaseHolder(db, name, at),
    voidOthers: (holder: string) => voidLeasesOfOthers(db, holder),
  };
}
