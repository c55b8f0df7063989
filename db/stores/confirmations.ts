import type { Database } from "../client.ts";
import {
  claimPendingAction,
  createPendingAction,
  expirePendingAction,
  getPendingAction,
  recordPendingResult,
} from "../queries/pending-actions.ts";

export function createConfirmations(db: Database) {
  return {
    create: (action: Parameters<typeof createPendingAction>[1]) => createPendingAction(db, action),
    get: (id: number) => getPendingAction(db, id),
    claim: (id: number, userId: number, state: "confirmed" | "cancelled", at: Date) =>
      claimPendingAction(db, id, userId, state, at),
    expire: (id: number, at: Date) => expirePendingAction(db, id, at),
    recordResult: (id: number, result: string) => recordPendingResult(db, id, result),
  };
}
