/**
 * The bot's DM with each linked user. The outbox only delivers to identities with a known chat, so the DM is
 * opened (conversations.open) and recorded whenever it is missing.
 */
import type { webApi } from "@slack/bolt";
import type { Database } from "../../db/client.ts";
import { findUserByIdentity, identitiesWithoutChat, setIdentityChat } from "../../db/queries/users.ts";
import type { Logger } from "../../src/logger.ts";

/** A Slack user id (U…/W…) rather than a conversation id. */
export function isUserId(target: string): boolean {
  return /^[UW][A-Z0-9]+$/.test(target);
}

/** The bot's DM with a user, opened if needed and recorded on the identity. */
export async function dmChannelFor(
  deps: { client: webApi.WebClient; db: Database },
  slackUserId: string,
  known?: { identityId: number; chatId: string | null },
): Promise<string> {
  if (known?.chatId) return known.chatId;
  const opened = await deps.client.conversations.open({ users: slackUserId });
  const channel = opened.channel?.id;
  if (!channel) throw new Error(`conversations.open gave no channel for ${slackUserId}`);
  const identityId =
    known?.identityId ?? (await findUserByIdentity(deps.db, "slack", slackUserId))?.identity.id;
  if (identityId !== undefined) await setIdentityChat(deps.db, identityId, channel);
  return channel;
}

/** Opens DMs for linked users who never wrote to the bot. Best effort: a failure only delays their briefing. */
export async function openMissingDmChannels(
  db: Database,
  client: webApi.WebClient,
  logger: Logger,
): Promise<void> {
  const missing = await identitiesWithoutChat(db, "slack");
  for (const identity of missing) {
    try {
      await dmChannelFor({ client, db }, identity.externalUserId, { identityId: identity.id, chatId: null });
    } catch (error) {
      logger.warn({ err: error, slackUser: identity.externalUserId }, "slack: could not open a DM");
    }
  }
}
