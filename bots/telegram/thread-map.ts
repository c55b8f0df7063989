/**
 * Telegram's keys in the platform state, and which briefing a message belongs to.
 *
 * Every bot message of a briefing's reply chain (the briefing itself, receipts, follow-up answers) is linked
 * under the chain's root, `telegram:<chat>:<first message>`, with the run it follows up on, so a reply to any
 * of them finds the run and continues one conversation (the core keeps its turns under the root key).
 */
import type { PlatformState } from "../../src/core/index.ts";

/** A message's key: `telegram:<chat>:<message>`. A chain's root message key is also the chain's thread key. */
export function messageKeyOf(chatId: number | string, messageId: number | string): string {
  return `telegram:${chatId}:${messageId}`;
}

/** The rolling conversation of a DM's plain (non-reply) messages. */
export function directThreadKeyOf(chatId: number | string): string {
  return `telegram:${chatId}`;
}

export interface RunThread {
  runId: number;
  /** The chain's thread key (its root message's key). */
  threadKey: string;
}

/**
 * Links bot messages to a run's chain in this chat: the chain `threadKey` when they continue one, otherwise a
 * new chain rooted at the first of them.
 */
export async function linkToChain(
  state: PlatformState,
  entry: {
    userId: number;
    chatId: number | string;
    runId: number;
    messageIds: readonly number[];
    threadKey?: string | undefined;
    at: Date;
  },
): Promise<void> {
  const [first] = entry.messageIds;
  if (first === undefined) return;
  await state.linkMessages({
    platform: "telegram",
    userId: entry.userId,
    runId: entry.runId,
    threadKey: entry.threadKey ?? messageKeyOf(entry.chatId, first),
    messageKeys: entry.messageIds.map((messageId) => messageKeyOf(entry.chatId, messageId)),
    at: entry.at,
  });
}

/** The run chain a message belongs to, for this user only; undefined when it is not part of one. */
export async function findRunThread(
  state: PlatformState,
  entry: { userId: number; chatId: number | string; messageId: number },
): Promise<RunThread | undefined> {
  const link = await state.findMessage("telegram", messageKeyOf(entry.chatId, entry.messageId), entry.userId);
  if (!link || link.runId === null) return undefined;
  return { runId: link.runId, threadKey: link.threadKey };
}
