/** The `Conversations` port in memory: one conversation per (platform, thread key), and per user. */
import type { Conversation } from "../../../src/core/domain.ts";
import type { Conversations } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

export function createMemoryConversations(tables: MemoryTables): Conversations {
  const find = (platform: Conversation["platform"], threadKey: string) =>
    tables.conversations.find((row) => row.platform === platform && row.threadKey === threadKey);
  return {
    find: async (platform, threadKey) => {
      const found = find(platform, threadKey);
      return found && copyRow(found);
    },
    async findOrCreate(thread) {
      // Another user's thread of the same key (two people in one Slack thread) gets a key of its own.
      const own = find(thread.platform, thread.threadKey);
      const key =
        own && own.userId !== thread.userId ? `${thread.threadKey}#user:${thread.userId}` : thread.threadKey;
      const existing = find(thread.platform, key);
      if (existing) {
        if (thread.runId != null && existing.runId == null) existing.runId = thread.runId;
        return copyRow(existing);
      }
      const created: Conversation = {
        id: tables.nextId("conversations"),
        userId: thread.userId,
        platform: thread.platform,
        threadKey: key,
        runId: thread.runId ?? null,
        createdAt: thread.at,
      };
      tables.conversations.push(created);
      return copyRow(created);
    },
  };
}
