/** The `ReceiptLog` port in memory: every logged message in order; tool results read back as receipts. */
import type { LoggedMessage, Receipt } from "../../../src/core/domain.ts";
import type { ReceiptLog } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

export function createMemoryReceiptLog(tables: MemoryTables): ReceiptLog {
  const ofRun = (runId: number) => tables.messages.filter((message) => message.runId === runId);
  return {
    async append(messages) {
      const stored = messages.map(
        (message): LoggedMessage => ({
          id: tables.nextId("messages"),
          userId: message.userId,
          conversationId: message.conversationId,
          runId: message.runId,
          role: message.role,
          content: message.content,
          toolCalls: message.toolCalls ?? null,
          toolName: message.toolName ?? null,
          toolCallId: message.toolCallId ?? null,
          metadata: message.metadata,
          createdAt: message.createdAt,
        }),
      );
      tables.messages.push(...stored.map(copyRow));
      return stored.filter((message) => message.role === "tool").map(receiptOf);
    },
    runMessages: async (runId) => ofRun(runId).map(copyRow),
    threadMessages: async (conversationId, limit) => {
      const thread = tables.messages.filter((message) => message.conversationId === conversationId);
      return limit <= 0 ? [] : thread.slice(-limit).map(copyRow);
    },
    runReceipts: async (runId) =>
      ofRun(runId)
        .filter((message) => message.role === "tool")
        .map(receiptOf),
    archivedReceipts: async (runId) => {
      const archive = tables.runArchives.find((row) => row.runId === runId);
      return archive?.receipts.map((receipt) => ({ ...copyRow(receipt), at: new Date(receipt.at) }));
    },
  };
}

/** A tool result as evidence: the call's arguments, its parsed result, and when it ran. */
export function receiptOf(message: LoggedMessage): Receipt {
  const metadata = message.metadata ?? {};
  const args = metadata.arguments;
  return {
    id: message.id,
    runId: message.runId,
    toolName: message.toolName ?? "unknown",
    arguments: typeof args === "object" && args !== null && !Array.isArray(args) ? copyRow(args) : {},
    result: parseContent(message.content),
    error: metadata.error === true,
    at: new Date(message.createdAt),
  };
}

function parseContent(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}
