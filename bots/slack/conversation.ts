/**
 * Answering a user's message: a "thinking…" placeholder right away, replaced in place by the answer,
 * then any destructive action the model wants as Confirm / Cancel buttons in the same place. Where the
 * answer goes is the core's call (`audienceOf`): in a shared channel an answer that read the person's data
 * reaches only them (ephemeral, or their DM), so nothing is posted for the channel before the core has said
 * the answer may be read there; the placeholder is then theirs alone.
 *
 * The placeholder's ts and each answer message are recorded with the update as Slack accepts them
 * (`UpdateProgress`): a process taking the update over answers into that placeholder, or — the answer out
 * already — not at all.
 */
import { webApi } from "@slack/bolt";
import {
  audienceOf,
  type ChatReply,
  type LinkedAccount,
  type SpaceKind,
  type ThreadRef,
} from "../../src/core/index.ts";
import type { UpdateProgress } from "../durable-intake.ts";
import {
  confirmationMessage,
  MAX_BLOCKS_PER_MESSAGE,
  type SlackMessage,
  textMessages,
  undoBlock,
} from "./format.ts";
import { type SlackHandlerDeps, SORRY } from "./handler-deps.ts";
import { PrivateReplies } from "./private-replies.ts";

export const THINKING_TEXT = "_thinking…_";

export interface IncomingText {
  linked: LinkedAccount;
  channel: string;
  space: SpaceKind;
  /** Reply in this thread; undefined answers at the top level of the DM. */
  threadTs: string | undefined;
  /** The thread the person wrote in (undefined at a channel's top level): where what only they see goes. */
  writtenInThread: string | undefined;
  thread: ThreadRef;
  text: string;
}

export async function answer(
  deps: SlackHandlerDeps,
  client: webApi.WebClient,
  incoming: IncomingText,
  progress: UpdateProgress,
): Promise<void> {
  const privately = new PrivateReplies(deps, client, {
    linked: incoming.linked,
    channel: incoming.channel,
    threadTs: incoming.writtenInThread,
    pointerThreadTs: incoming.threadTs,
  });
  let placeholderTs: string | undefined;
  if (incoming.space === "shared") await privately.note(THINKING_TEXT);
  else if (progress.placeholder !== undefined) placeholderTs = progress.placeholder;
  else {
    placeholderTs = await postMessage(client, incoming, { text: THINKING_TEXT });
    await progress.showing(placeholderTs);
  }

  let reply: ChatReply;
  try {
    reply = await deps.assistant.reply(incoming.linked.user.id, incoming.thread, incoming.text);
  } catch (error) {
    deps.logger.error({ err: error, thread: incoming.thread.threadKey }, "slack: reply failed");
    // An apology reads nothing of anyone's: it goes where the question was asked.
    await publish(client, incoming, placeholderTs, [{ text: SORRY, blocks: [] }], progress);
    return;
  }
  const messages = replyMessages(reply, incoming.linked.user.timeZone);
  if (audienceOf(incoming.space, reply.personal) === "asker") {
    for (const message of messages) await progress.posted([await privately.post(message)]);
    return;
  }
  await publish(client, incoming, placeholderTs, messages, progress);
}

/** The answer's pages (the last carrying an Undo per change it made), then each change waiting for a Confirm. */
function replyMessages(reply: ChatReply, timeZone: string): SlackMessage[] {
  const pages = textMessages(reply.text);
  const undo = undoBlock(reply.changes);
  const last = pages.at(-1);
  if (undo && last) {
    if (last.blocks.length < MAX_BLOCKS_PER_MESSAGE) last.blocks.push(undo);
    else pages.push({ text: last.text, blocks: [undo] });
  }
  return [...pages, ...reply.pending.map((pending) => confirmationMessage(pending, timeZone))];
}

/** Messages for everyone in the conversation: the first replaces the placeholder when there is one. */
async function publish(
  client: webApi.WebClient,
  incoming: IncomingText,
  placeholderTs: string | undefined,
  messages: readonly SlackMessage[],
  progress: UpdateProgress,
): Promise<void> {
  let rest = messages;
  const [first] = messages;
  if (first && placeholderTs) {
    await progress.posted([await replacePlaceholder(client, incoming, placeholderTs, first)]);
    rest = messages.slice(1);
  }
  for (const message of rest) await progress.posted([await postMessage(client, incoming, message)]);
}

/** Slack's answers to an edit of a message that is no longer there to edit (the person deleted it). */
const PLACEHOLDER_GONE = new Set(["message_not_found", "cant_update_message", "edit_window_closed"]);

/** The placeholder edited into `message`; posted anew when it is gone (a taken-over answer is never lost). */
async function replacePlaceholder(
  client: webApi.WebClient,
  incoming: IncomingText,
  placeholderTs: string,
  message: SlackMessage,
): Promise<string> {
  try {
    // Blocks always go along, even none: the placeholder's must not survive the edit.
    await client.chat.update({ channel: incoming.channel, ts: placeholderTs, ...message });
    return placeholderTs;
  } catch (error) {
    if (!(error instanceof webApi.WebAPIPlatformError && PLACEHOLDER_GONE.has(error.data.error))) throw error;
    return postMessage(client, incoming, message);
  }
}

async function postMessage(
  client: webApi.WebClient,
  incoming: IncomingText,
  message: SlackMessage | { text: string },
): Promise<string> {
  const posted = await client.chat.postMessage({
    channel: incoming.channel,
    text: message.text,
    ...("blocks" in message && message.blocks.length > 0 ? { blocks: message.blocks } : {}),
    ...(incoming.threadTs ? { thread_ts: incoming.threadTs } : {}),
  });
  if (!posted.ts) throw new Error("chat.postMessage answered without a ts");
  return posted.ts;
}
