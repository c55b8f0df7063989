/** The `Confirmations` port in memory: pending actions, each taken out of "pending" once. */
import type { PendingAction } from "../../../src/core/domain.ts";
import type { Confirmations } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

export function createMemoryConfirmations(tables: MemoryTables): Confirmations {
  const find = (id: number) => tables.pendingActions.find((row) => row.id === id);
  return {
    async create(action) {
      const row: PendingAction = {
        id: tables.nextId("pending_actions"),
        kind: action.kind ?? "confirm",
        userId: action.userId,
        conversationId: action.conversationId,
        toolName: action.toolName,
        arguments: copyRow(action.arguments),
        summary: action.summary,
        state: "pending",
        result: null,
        expiresAt: action.expiresAt,
        createdAt: action.at,
        resolvedAt: null,
      };
      tables.pendingActions.push(row);
      return copyRow(row);
    },
    get: async (id) => {
      const row = find(id);
      return row && copyRow(row);
    },
    async claim(id, userId, state, at) {
      const row = find(id);
      if (!row || row.userId !== userId || row.state !== "pending" || !(row.expiresAt > at)) return undefined;
      row.state = state;
      row.resolvedAt = at;
      return copyRow(row);
    },
    async expire(id, at) {
      const row = find(id);
      if (row && row.state === "pending" && row.expiresAt <= at) {
        row.state = "expired";
        row.resolvedAt = at;
      }
    },
    async recordResult(id, result) {
      const row = find(id);
      if (row) row.result = result;
    },
  };
}
