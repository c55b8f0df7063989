/** The `PlatformState` port in memory: linked accounts, thread links and handled platform events. */
import type { PlatformState } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

export function createMemoryPlatformState(tables: MemoryTables): PlatformState {
  const byId = <ROW extends { id: number }>(a: ROW, b: ROW) => a.id - b.id;
  return {
    findAccount: async (platform, externalUserId) => {
      const identity = tables.identities.find(
        (row) => row.platform === platform && row.externalUserId === externalUserId,
      );
      const user = identity && tables.users.find((row) => row.id === identity.userId);
      return identity && user ? { user: copyRow(user), identity: copyRow(identity) } : undefined;
    },
    accountsOf: async (userId) =>
      tables.identities
        .filter((row) => row.userId === userId)
        .sort(byId)
        .map(copyRow),
    async rememberChat(identityId, chatId) {
      const identity = tables.identities.find((row) => row.id === identityId);
      if (identity) identity.chatId = chatId;
    },
    identitiesWithoutChat: async (platform) =>
      tables.identities
        .filter((row) => row.platform === platform && row.chatId === null)
        .sort(byId)
        .map(copyRow),
    async linkMessages(link) {
      for (const messageKey of link.messageKeys) {
        // A message belongs to one thread: a key already linked keeps its first link.
        if (
          tables.platformMessages.some(
            (row) => row.platform === link.platform && row.messageKey === messageKey,
          )
        )
          continue;
        tables.platformMessages.push({
          platform: link.platform,
          messageKey,
          userId: link.userId,
          runId: link.runId,
          threadKey: link.threadKey,
          createdAt: link.at,
        });
      }
    },
    findMessage: async (platform, messageKey, userId) => {
      const row = tables.platformMessages.find(
        (message) =>
          message.platform === platform && message.messageKey === messageKey && message.userId === userId,
      );
      return row ? { userId: row.userId, runId: row.runId, threadKey: row.threadKey } : undefined;
    },
    messageOwner: async (platform, messageKey) => {
      const row = tables.platformMessages.find(
        (message) => message.platform === platform && message.messageKey === messageKey,
      );
      const user = row && tables.users.find((candidate) => candidate.id === row.userId);
      if (!row || !user) return undefined;
      const account = tables.identities
        .filter((identity) => identity.userId === row.userId && identity.platform === platform)
        .sort(byId)[0];
      return {
        userId: row.userId,
        runId: row.runId,
        name: user.name,
        externalUserId: account?.externalUserId,
      };
    },
  };
}
