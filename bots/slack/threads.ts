/**
 * Slack's keys in the platform state, and which run a thread follows up on. A briefing thread is
 * `slack:<channel>:<parent ts>` (the parent message's key is the thread's key); a DM outside any thread is
 * `slack:<channel>`.
 */
import type { PlatformState } from "../../src/core/index.ts";

export function briefingThreadKey(channel: string, threadTs: string): string {
  return `slack:${channel}:${threadTs}`;
}

export function directMessageKey(channel: string): string {
  return `slack:${channel}`;
}

/** Links a briefing's thread parent to its run, so replies in the thread are follow-ups on it. */
export async function linkBriefingThread(
  state: PlatformState,
  thread: { userId: number; runId: number; channel: string; ts: string; at: Date },
): Promise<void> {
  const key = briefingThreadKey(thread.channel, thread.ts);
  await state.linkMessages({
    platform: "slack",
    userId: thread.userId,
    runId: thread.runId,
    threadKey: key,
    messageKeys: [key],
    at: thread.at,
  });
}

/**
 * The run a Slack thread is about, for this user only: in a shared channel another person's briefing thread
 * must not hand their receipts to someone else.
 */
export async function runOfThread(
  state: PlatformState,
  userId: number,
  channel: string,
  threadTs: string,
): Promise<number | undefined> {
  const link = await state.findMessage("slack", briefingThreadKey(channel, threadTs), userId);
  return link?.runId ?? undefined;
}
