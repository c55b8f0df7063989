/**
 * Who may talk to briefbot on Slack: only accounts linked to a briefbot user (`briefbot user link --slack`).
 * Everyone else learns their id and how to get linked, and nothing else: no data, no model call.
 */

import type { Database } from "../../db/client.ts";
import { findUserByIdentity, setIdentityChat } from "../../db/queries/users.ts";
import type { Identity, User } from "../../db/schema/index.ts";

export interface LinkedUser {
  user: User;
  identity: Identity;
}

export function findLinkedUser(db: Database, slackUserId: string): Promise<LinkedUser | undefined> {
  return findUserByIdentity(db, "slack", slackUserId);
}

export function refusalText(slackUserId: string): string {
  return (
    `Sorry, I only talk to people linked to briefbot. Your Slack id is ${slackUserId}; ` +
    `ask the owner to run: briefbot user link <name> --slack ${slackUserId}`
  );
}

/** Records the bot's DM with this user the first time we see it, so scheduled briefings can find it. */
export async function rememberDmChannel(db: Database, linked: LinkedUser, channel: string): Promise<void> {
  if (!channel.startsWith("D") || linked.identity.chatId === channel) return;
  await setIdentityChat(db, linked.identity.id, channel);
  linked.identity.chatId = channel;
}
