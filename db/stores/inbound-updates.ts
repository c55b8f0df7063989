/** Updates a poller fetched or a webhook received, kept until handled: the core's `InboundUpdates` port. */
import type { InboundProgress } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import {
  markInboundHandled,
  pruneInboundUpdates,
  reclaimInboundOrphans,
  recordInboundProgress,
  storeInboundUpdates,
} from "../queries/inbound-updates.ts";

export function createInboundUpdates(db: Database) {
  return {
    store: (
      source: string,
      updates: readonly { updateId: string; payload: unknown }[],
      owner: string,
      at: Date,
    ) => storeInboundUpdates(db, source, updates, owner, at),
    markHandled: (source: string, updateId: string, owner: string, at: Date) =>
      markInboundHandled(db, source, updateId, owner, at),
    recordProgress: (source: string, updateId: string, owner: string, progress: InboundProgress) =>
      recordInboundProgress(db, source, updateId, owner, progress),
    reclaimOrphans: (source: string, options: { owner: string; at: Date; everyOtherOwner: boolean }) =>
      reclaimInboundOrphans(db, source, options),
    prune: (source: string, before: Date) => pruneInboundUpdates(db, source, before),
  };
}
