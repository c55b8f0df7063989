/** Updates a poller fetched or a webhook received, kept until handled: the core's `InboundUpdates` port. */
import type { Database } from "../client.ts";
import {
  markInboundHandled,
  pruneInboundUpdates,
  reclaimInboundOrphans,
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
    reclaimOrphans: (source: string, options: { owner: string; at: Date; everyOtherOwner: boolean }) =>
      reclaimInboundOrphans(db, source, options),
    prune: (source: string, before: Date) => pruneInboundUpdates(db, source, before),
  };
}
