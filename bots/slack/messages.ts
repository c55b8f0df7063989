/**
 * Messages from people: a reply in a briefing's thread is a follow-up on that run (answered in the thread);
 * any other DM is ordinary chat; in channels the bot speaks when mentioned or in a briefing thread. A
 * briefing thread in a channel answers only its owner: anyone else who writes in it gets one line, only
 * for them, saying whose it is. Bot messages (ours or anyone's) are never answered, so two bots can't talk
 * each other into a loop.
 */
import type { App, webApi } from "@slack/bolt";
import { answersInBriefingThread, type LinkedAccount } from "../../src/core/index.ts";
import type { UpdateProgress } from "../durable-intake.ts";
import { findLinkedUser, refusalText } from "./access.ts";
import { answer, type IncomingText } from "./conversation.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";
import { progressOf } from "./intake.ts";
import { linkFromDirectMessage } from "./linking.ts";
import { helpText } from "./settings.ts";
import { briefingThreadOwner, spaceOf, tellWhoseBriefing } from "./spaces.ts";
import { briefingThreadKey, directMessageKey, runOfThread } from "./threads.ts";

interface UserMessage {
  user: string;
  channel: string;
  channelType: string | undefined;
  text: string;
  ts: string;
  threadTs: string | undefined;
}

export function registerMessages(app: App, deps: SlackHandlerDeps): void {
  app.event("message", async ({ event, client, context }) => {
    // Edits, deletions, joins and bot posts carry a subtype; only plain human messages are conversation.
    if (event.subtype !== undefined || event.bot_id !== undefined) return;
    const message: UserMessage = {
      user: event.user,
      channel: event.channel,
      channelType: event.channel_type,
      text: event.text ?? "",
      ts: event.ts,
      threadTs: event.thread_ts && event.thread_ts !== event.ts ? event.thread_ts : undefined,
    };
    if (message.channelType === "im") {
      const { linking } = deps;
      const teamId = context.teamId;
      if (linking && (await linkFromDirectMessage({ ...deps, linking }, client, { ...message, teamId })))
        return;
      await handleDirectMessage(deps, client, message, progressOf(context));
      return;
    }
    // A mention arrives twice (message + app_mention); the app_mention listener answers it.
    if (context.botUserId && message.text.includes(`<@${context.botUserId}>`)) return;
    if (message.threadTs)
      await handleChannelThreadReply(
        deps,
        client,
        { ...message, threadTs: message.threadTs },
        progressOf(context),
      );
  });

  app.event("app_mention", async ({ event, client, context }) => {
    if (event.bot_id !== undefined || !event.user) return;
    const mention = context.botUserId ? new RegExp(`<@${context.botUserId}>\\s*`, "g") : /^$/;
    const message: UserMessage = {
      user: event.user,
      channel: event.channel,
      channelType: "channel",
      text: event.text.replace(mention, "").trim(),
      ts: event.ts,
      threadTs: event.thread_ts && event.thread_ts !== event.ts ? event.thread_ts : undefined,
    };
    const owner = message.threadTs
      ? await briefingThreadOwner(deps, message.channel, message.threadTs)
      : undefined;
    const linked = await findLinkedUser(deps, message.user, message.channel);
    if (owner && message.threadTs && !answersInBriefingThread(owner.userId, linked?.user.id)) {
      await tellWhoseBriefing(client, { ...message, threadTs: message.threadTs }, owner);
      return;
    }
    if (!linked) {
      await refuse(client, message);
      return;
    }
    // A top-level mention is answered in a thread under it.
    const threadTs = message.threadTs ?? message.ts;
    await answer(deps, client, inThread(deps, linked, message, threadTs, owner?.runId), progressOf(context));
  });
}

async function handleDirectMessage(
  deps: SlackHandlerDeps,
  client: webApi.WebClient,
  message: UserMessage,
  progress: UpdateProgress,
): Promise<void> {
  const linked = await findLinkedUser(deps, message.user, message.channel);
  if (!linked) {
    await refuse(client, message);
    return;
  }
  if (message.threadTs) {
    const runId = await runOfThread(deps.platformState, linked.user.id, message.channel, message.threadTs);
    await answer(deps, client, inThread(deps, linked, message, message.threadTs, runId), progress);
    return;
  }
  if (/^\s*help\s*$/i.test(message.text)) {
    await client.chat.postMessage({ channel: message.channel, text: helpText() });
    return;
  }
  await answer(
    deps,
    client,
    {
      linked,
      channel: message.channel,
      space: "direct",
      threadTs: undefined,
      writtenInThread: undefined,
      thread: { platform: "slack", threadKey: directMessageKey(message.channel), runId: undefined },
      text: message.text,
    },
    progress,
  );
}

/**
 * In a channel only briefing threads are followed without a mention: their owner is answered, anyone else
 * is told whose briefing it is. Other threads are people talking among themselves.
 */
async function handleChannelThreadReply(
  deps: SlackHandlerDeps,
  client: webApi.WebClient,
  message: UserMessage & { threadTs: string },
  progress: UpdateProgress,
): Promise<void> {
  const owner = await briefingThreadOwner(deps, message.channel, message.threadTs);
  if (!owner) return;
  const linked = await findLinkedUser(deps, message.user);
  if (!linked || !answersInBriefingThread(owner.userId, linked.user.id)) {
    await tellWhoseBriefing(client, message, owner);
    return;
  }
  await answer(deps, client, inThread(deps, linked, message, message.threadTs, owner.runId), progress);
}

/** An unlinked person is told, privately, how to link; nothing else. */
async function refuse(client: webApi.WebClient, message: UserMessage): Promise<void> {
  await client.chat.postEphemeral({
    channel: message.channel,
    user: message.user,
    text: refusalText(message.user),
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
  });
}

/** A message answered in `threadTs`, which may hold a briefing (`runId` when it is this person's). */
function inThread(
  deps: SlackHandlerDeps,
  linked: LinkedAccount,
  message: UserMessage,
  threadTs: string,
  runId: number | undefined,
): IncomingText {
  const space = spaceOf(deps, message.channel);
  return {
    linked,
    channel: message.channel,
    space,
    threadTs,
    writtenInThread: message.threadTs,
    thread: { platform: "slack", threadKey: briefingThreadKey(message.channel, threadTs), runId, space },
    text: message.text,
  };
}
