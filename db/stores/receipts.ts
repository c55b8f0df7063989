/** The message log of runs and threads; tool results read back as receipts. */
import type { Database } from "../client.ts";
import {
  insertMessages,
  listConversationMessages,
  listRunMessages,
  listRunReceipts,
  receiptFromMessage,
} from "../queries/messages.ts";
import { getArchivedReceipts } from "../queries/retention.ts";
import type { NewStoredMessage } from "../schema/index.ts";

export function createReceiptLog(db: Database) {
  return {
    async append(messages: readonly NewStoredMessage[]) {
      const stored = await insertMessages(db, [...messages]);
      return stored.filter((message) => message.role === "tool").map(receiptFromMessage);
    },
    runMessages: (runId: number) => listRunMessages(db, runId),
    threadMessages: (conversationId: number, limit: number) =>
      listConversationMessages(db, conversationId, limit),
    runReceipts: (runId: number) => listRunReceipts(db, runId),
    archivedReceipts: (runId: number) => getArchivedReceipts(db, runId),
  };
}
