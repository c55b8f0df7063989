/**
 * Slack's conversations as the core's kinds of space: the bot's DM with a person (`D…`) is `direct`; a
 * channel, private channel or group DM is `shared`, unless the operator listed it under
 * `slack.team_channels`, which makes it `team`. Whose a briefing thread in a channel is, and the one line
 * anyone else who writes in it gets, come from the core as well.
 */
import type { webApi } from "@slack/bolt";
import { type MessageOwner, othersBriefingText, type SpaceKind } from "../../src/core/index.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";
import { briefingThreadKey } from "./threads.ts";

export function spaceOf(deps: Pick<SlackHandlerDeps, "teamChannels">, channel: string): SpaceKind {
  if (channel.startsWith("D")) return "direct";
  return deps.teamChannels.has(channel) ? "team" : "shared";
}

/** The owner of the briefing whose thread this is, or undefined when it is no briefing's thread. */
export async function briefingThreadOwner(
  deps: Pick<SlackHandlerDeps, "platformState">,
  channel: string,
  threadTs: string,
): Promise<(MessageOwner & { runId: number }) | undefined> {
  const owner = await deps.platformState.messageOwner("slack", briefingThreadKey(channel, threadTs));
  return owner && owner.runId !== null ? { ...owner, runId: owner.runId } : undefined;
}

/** Tells `user`, and only them, whose briefing the thread is; nothing of it. */
export async function tellWhoseBriefing(
  client: webApi.WebClient,
  where: { channel: string; threadTs: string; user: string },
  owner: MessageOwner,
): Promise<void> {
  // A mention renders as the owner's Slack name; in an ephemeral message it notifies nobody.
  const name = owner.externalUserId ? `<@${owner.externalUserId}>` : owner.name;
  await client.chat.postEphemeral({
    channel: where.channel,
    user: where.user,
    thread_ts: where.threadTs,
    text: othersBriefingText(name),
  });
}
