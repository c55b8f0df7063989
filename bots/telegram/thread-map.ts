/**
 * Maps Telegram messages to the briefing they belong to, through the `conversations` table.
 *
 * Every bot message of a briefing's reply chain (the briefing itself, receipts, follow-up answers) gets a
 * row `telegram:<chat>:<message>` carrying the run id, so a reply to any of them finds the run. The chain's
 * conversation (where the core keeps the thread's turns) is the first such row for that run in that chat:
 * replies anywhere in the chain continue one conversation.
 */
import { and, asc, eq, like } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { findConversation, findOrCreateConversation } from "../../db/queries/conversations.ts";
import { conversations } from "../../db/schema/index.ts";

export function threadKeyOf(chatId: number | string, messageId: number | string): string {
  return `telegram:${chatId}:${messageId}`;
}

/** The rolling conversation of a DM's plain (non-reply) messages. */
export function directThreadKeyOf(chatId: number | string): string {
  return `telegram:${chatId}`;
}

/** Records that these bot messages belong to the run's chain in this chat. */
export async function rememberRunMessages(
  db: Database,
  entry: { userId: number; chatId: number | string; runId: number; messageIds: number[]; at: Date },
): Promise<void> {
  for (const messageId of entry.messageIds) {
    await findOrCreateConversation(db, {
      userId: entry.userId,
      platform: "telegram",
      threadKey: threadKeyOf(entry.chatId, messageId),
      runId: entry.runId,
      at: entry.at,
    });
  }
}

export interface RunThread {
  runId: number;
  /** The chain's conversation key (its first message). */
  threadKey: string;
}

/** The run a replied-to message belongs to, or undefined when it is not part of a briefing's chain. */
export async function findRunThread(
  db: Database,
  entry: { userId: number; chatId: number | string; messageId: number },
): Promise<RunThread | undefined> {
  const row = await findConversation(db, "telegram", threadKeyOf(entry.chatId, entry.messageId));
  if (!row || row.userId !== entry.userId || row.runId === null) return undefined;
  const [root] = await db
    .select({ threadKey: conversations.threadKey })
    .from(conversations)
    .where(
      and(
        eq(conversations.userId, entry.userId),
        eq(conversations.platform, "telegram"),
        eq(conversations.runId, row.runId),
        like(conversations.threadKey, `${threadKeyOf(entry.chatId, "")}%`),
      ),
    )
    .orderBy(asc(conversations.id))
    .limit(1);
  return { runId: row.runId, threadKey: root?.threadKey ?? row.threadKey };
}
