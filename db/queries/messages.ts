/**
 * Messages are every turn of a run or thread. Tool results are the receipts: what a tool returned, with
 * what arguments, and when. Their `createdAt` is the run's clock at the call, so "as of" is exact.
 */
import { and, asc, desc, eq } from "drizzle-orm";
import type { Receipt } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import {
  type MessageMetadata,
  messages,
  type NewStoredMessage,
  type StoredMessage,
} from "../schema/index.ts";

export type { Receipt };

export async function insertMessages(db: Database, rows: NewStoredMessage[]): Promise<StoredMessage[]> {
  if (rows.length === 0) return [];
  return db.insert(messages).values(rows).returning();
}

/** Every message of a run in the order written. */
export async function listRunMessages(db: Database, runId: number): Promise<StoredMessage[]> {
  return db.select().from(messages).where(eq(messages.runId, runId)).orderBy(asc(messages.id));
}

/** The last `limit` messages of a thread, oldest first. */
export async function listConversationMessages(
  db: Database,
  conversationId: number,
  limit = 60,
): Promise<StoredMessage[]> {
  const newest = await db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(desc(messages.id))
    .limit(limit);
  return newest.reverse();
}

export async function listRunReceipts(db: Database, runId: number): Promise<Receipt[]> {
  const rows = await db
    .select()
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.role, "tool")))
    .orderBy(asc(messages.id));
  return rows.map(receiptFromMessage);
}

export function receiptFromMessage(message: StoredMessage) {
  const metadata: MessageMetadata = message.metadata ?? {};
  return {
    id: message.id,
    runId: message.runId,
    toolName: message.toolName ?? "unknown",
    arguments: isRecord(metadata.arguments) ? metadata.arguments : {},
    result: parseContent(message.content),
    error: metadata.error === true,
    at: message.createdAt,
  };
}

function parseContent(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
