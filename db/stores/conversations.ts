import type { Database } from "../client.ts";
import { findConversation, findOrCreateConversation, type ThreadKey } from "../queries/conversations.ts";
import type { Conversation } from "../schema/index.ts";

export function createConversations(db: Database) {
  return {
    find: (platform: Conversation["platform"], threadKey: string) =>
      findConversation(db, platform, threadKey),
    findOrCreate: (thread: ThreadKey) => findOrCreateConversation(db, thread),
  };
}
