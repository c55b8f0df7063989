/** What the platform adapters keep between updates: linked accounts, thread links. */
import type { Database } from "../client.ts";
import { findMessageOwner, findPlatformMessage, linkPlatformMessages } from "../queries/platform-messages.ts";
import {
  findUserByIdentity,
  identitiesWithoutChat,
  listIdentities,
  setIdentityChat,
} from "../queries/users.ts";
import type { Platform } from "../schema/index.ts";

export function createPlatformState(db: Database) {
  return {
    findAccount: (platform: Platform, externalUserId: string) =>
      findUserByIdentity(db, platform, externalUserId),
    accountsOf: (userId: number) => listIdentities(db, userId),
    rememberChat: (identityId: number, chatId: string) => setIdentityChat(db, identityId, chatId),
    identitiesWithoutChat: (platform: Platform) => identitiesWithoutChat(db, platform),
    linkMessages: (link: Parameters<typeof linkPlatformMessages>[1]) => linkPlatformMessages(db, link),
    async findMessage(platform: Platform, messageKey: string, userId: number) {
      const row = await findPlatformMessage(db, platform, messageKey, userId);
      return row ? { userId: row.userId, runId: row.runId, threadKey: row.threadKey } : undefined;
    },
    async messageOwner(platform: Platform, messageKey: string) {
      const row = await findMessageOwner(db, platform, messageKey);
      return row ? { ...row, externalUserId: row.externalUserId ?? undefined } : undefined;
    },
  };
}
