/**
 * The bot's DM with each linked user. Scheduled briefings go to the DM, so it is opened (conversations.open)
 * and remembered whenever it is missing.
 */
import type { webApi } from "@slack/bolt";
import type { Identity, Logger, PlatformState } from "../../src/core/index.ts";

/** The bot's DM with a linked account: the one known, or one opened now and remembered on the account. */
export async function dmChannelOf(
  deps: { client: webApi.WebClient; platformState: PlatformState },
  identity: Pick<Identity, "id" | "externalUserId" | "chatId">,
): Promise<string> {
  if (identity.chatId) return identity.chatId;
  const opened = await deps.client.conversations.open({ users: identity.externalUserId });
  const channel = opened.channel?.id;
  if (!channel) throw new Error(`conversations.open gave no channel for ${identity.externalUserId}`);
  await deps.platformState.rememberChat(identity.id, channel);
  return channel;
}

/** Opens DMs for linked users who never wrote to the bot. Best effort: a failure only delays their briefing. */
export async function openMissingDmChannels(
  platformState: PlatformState,
  client: webApi.WebClient,
  logger: Logger,
): Promise<void> {
  for (const identity of await platformState.identitiesWithoutChat("slack")) {
    try {
      await dmChannelOf({ client, platformState }, identity);
    } catch (error) {
      logger.warn({ err: error, slackUser: identity.externalUserId }, "slack: could not open a DM");
    }
  }
}
