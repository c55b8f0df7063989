/** The `RunQueue` port in memory: what the scheduler and the outbox read; reads only. */
import type { RunQueue } from "../../../src/core/ports.ts";
import { ownerIsGone } from "./leases.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

export function createMemoryRunQueue(tables: MemoryTables): RunQueue {
  const byId = <ROW extends { id: number }>(a: ROW, b: ROW) => a.id - b.id;
  return {
    scheduledKeys: async (localDates) =>
      new Set(
        tables.runs
          .filter((run) => run.trigger === "schedule" && localDates.includes(run.localDate))
          .map((run) => `${run.userId}|${run.slot}|${run.localDate}`),
      ),
    orphaned: async ({ owner, at, everyOtherOwner }) =>
      tables.runs
        .filter(
          (run) =>
            (run.state === "claimed" || run.state === "generating") &&
            ownerIsGone(tables, run.claimedBy, owner, at, everyOtherOwner),
        )
        .sort(byId)
        .map(copyRow),
    get: async (runId) => {
      const run = tables.runs.find((row) => row.id === runId);
      const user = run && tables.users.find((row) => row.id === run.userId);
      return run && user ? { run: copyRow(run), timeZone: user.timeZone } : undefined;
    },
    inStates: async (states) =>
      tables.runs
        .filter((run) => states.includes(run.state))
        .sort(byId)
        .map(copyRow),
    async dueDeliveries({ at, platforms, limit, excludeIds }) {
      const due = tables.deliveries
        .filter(
          (row) =>
            row.state === "pending" &&
            row.nextAttemptAt <= at &&
            platforms.includes(row.platform) &&
            !excludeIds.includes(row.id),
        )
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.id - b.id);
      const rows = [];
      for (const delivery of due) {
        if (rows.length >= limit) break;
        const run = tables.runs.find((row) => row.id === delivery.runId);
        const user = tables.users.find((row) => row.id === delivery.userId);
        if (!run || !user) continue;
        const recipient = tables.identities.find((row) => row.id === delivery.identityId);
        rows.push({
          delivery: copyRow(delivery),
          run: copyRow(run),
          recipient: recipient && copyRow(recipient),
          timeZone: user.timeZone,
        });
      }
      return rows;
    },
    deliveriesOf: async (runId) =>
      tables.deliveries
        .filter((row) => row.runId === runId)
        .sort(byId)
        .map(copyRow),
  };
}
