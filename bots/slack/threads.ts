/**
 * Slack thread keys as stored in `conversations.threadKey`, and which run a thread follows up on.
 * A briefing thread is `slack:<channel>:<parent ts>`; a DM outside any thread is `slack:<channel>`.
 */

import type { Database } from "../../db/client.ts";
import { findConversation } from "../../db/queries/conversations.ts";

export function briefingThreadKey(channel: string, threadTs: string): string {
  return `slack:${channel}:${threadTs}`;
}

export function directMessageKey(channel: string): string {
  return `slack:${channel}`;
}

/**
 * The run a Slack thread is about, for this user only: in a shared channel another person's briefing thread
 * must not hand their receipts to someone else.
 */
export async function runOfThread(
  db: Database,
  userId: number,
  channel: string,
  threadTs: string,
): Promise<number | undefined> {
  const conversation = await findConversation(db, "slack", briefingThreadKey(channel, threadTs));
  if (!conversation || conversation.userId !== userId) return undefined;
  return conversation.runId ?? undefined;
}
