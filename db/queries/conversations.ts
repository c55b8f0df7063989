import { and, eq } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type Conversation, conversations } from "../schema/index.ts";

export interface ThreadKey {
  userId: number;
  platform: "cli" | "telegram" | "slack";
  threadKey: string;
  runId?: number | null | undefined;
  at: Date;
}

/**
 * The conversation for a platform thread, created on first use. A thread is per user: when another user
 * already owns the key (two people replying in one Slack channel thread), each gets their own conversation,
 * so nobody's turns enter another user's context.
 */
export async function findOrCreateConversation(db: Database, thread: ThreadKey): Promise<Conversation> {
  const own = await findConversation(db, thread.platform, thread.threadKey);
  const key =
    own && own.userId !== thread.userId ? `${thread.threadKey}#user:${thread.userId}` : thread.threadKey;
  const existing = key === thread.threadKey ? own : await findConversation(db, thread.platform, key);
  if (existing) {
    if (thread.runId != null && existing.runId == null) {
      const [updated] = await db
        .update(conversations)
        .set({ runId: thread.runId })
        .where(eq(conversations.id, existing.id))
        .returning();
      return updated ?? existing;
    }
    return existing;
  }
  const [created] = await db
    .insert(conversations)
    .values({
      userId: thread.userId,
      platform: thread.platform,
      threadKey: key,
      runId: thread.runId ?? null,
      createdAt: thread.at,
    })
    .onConflictDoNothing({ target: [conversations.platform, conversations.threadKey] })
    .returning();
  if (created) return created;
  // Lost a race with a concurrent message in the same thread: theirs is ours.
  const raced = await findConversation(db, thread.platform, key);
  if (!raced) throw new Error(`conversation ${thread.platform}:${key} neither inserted nor found`);
  return raced;
}

export async function findConversation(
  db: Database,
  platform: Conversation["platform"],
  threadKey: string,
): Promise<Conversation | undefined> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.platform, platform), eq(conversations.threadKey, threadKey)))
    .limit(1);
  return row;
}
