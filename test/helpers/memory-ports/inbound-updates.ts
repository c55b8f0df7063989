/** The `InboundUpdates` port in memory: one row per (source, update id), claimed and handled as the store does. */

import { arrivalOrder } from "../../../db/queries/inbound-updates.ts";
import type { InboundUpdates } from "../../../src/core/ports.ts";
import { ownerIsGone } from "./leases.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

const key = (source: string, updateId: string) => `${source}|${updateId}`;

export function createMemoryInboundUpdates(tables: MemoryTables): InboundUpdates {
  const rowsOf = (source: string) =>
    [...tables.inboundUpdates.values()].filter((row) => row.source === source).sort(arrivalOrder);
  return {
    async store(source, updates, owner, at) {
      const stored: string[] = [];
      for (const update of updates) {
        if (tables.inboundUpdates.has(key(source, update.updateId))) continue;
        tables.inboundUpdates.set(key(source, update.updateId), {
          source,
          updateId: update.updateId,
          // As jsonb keeps it: a copy, not the caller's object.
          payload: structuredClone(update.payload),
          receivedAt: at,
          claimedBy: owner,
          handledAt: null,
          progress: null,
        });
        stored.push(update.updateId);
      }
      return stored
        .map((updateId) => ({ updateId, receivedAt: at }))
        .sort(arrivalOrder)
        .map((row) => row.updateId);
    },
    async markHandled(source, updateId, owner, at) {
      const row = tables.inboundUpdates.get(key(source, updateId));
      if (!row || row.claimedBy !== owner || row.handledAt !== null) return false;
      row.handledAt = at;
      row.payload = null;
      return true;
    },
    async recordProgress(source, updateId, owner, progress) {
      const row = tables.inboundUpdates.get(key(source, updateId));
      if (!row || row.claimedBy !== owner || row.handledAt !== null) return false;
      row.progress = structuredClone(progress);
      return true;
    },
    async reclaimOrphans(source, { owner, at, everyOtherOwner }) {
      const taken = rowsOf(source).filter(
        (row) => row.handledAt === null && ownerIsGone(tables, row.claimedBy, owner, at, everyOtherOwner),
      );
      for (const row of taken) row.claimedBy = owner;
      return taken.map(({ source: _source, ...update }) => copyRow(update));
    },
    async prune(source, before) {
      let pruned = 0;
      for (const row of rowsOf(source)) {
        if (row.handledAt !== null && row.handledAt < before) {
          tables.inboundUpdates.delete(key(source, row.updateId));
          pruned += 1;
        }
      }
      return pruned;
    },
  };
}
