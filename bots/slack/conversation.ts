/**
 * Answering a user's message: a "thinking…" placeholder right away, replaced in place by the answer,
 * then any destructive action the model wants as Confirm / Cancel buttons in the same place.
 */
import type { webApi } from "@slack/bolt";
import type { LinkedAccount, ThreadRef } from "../../src/core/index.ts";
import { confirmationMessage, MAX_BLOCKS_PER_MESSAGE, textMessages, undoBlock } from "./format.ts";
import { type SlackHandlerDeps, SORRY } from "./handler-deps.ts";

export const THINKING_TEXT = "_thinking…_";

export interface IncomingText {
  linked: LinkedAccount;
  channel: string;
  /** Reply in this thread; undefined answers at the top level of the DM. */
  threadTs: string | undefined;
  thread: ThreadRef;
  text: string;
}

export async function answer(
  deps: SlackHandlerDeps,
  client: webApi.WebClient,
  incoming: IncomingText,
): Promise<void> {
  const { channel, threadTs } = incoming;
  const placeholder = await client.chat.postMessage({
    channel,
    text: THINKING_TEXT,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });
  const placeholderTs = placeholder.ts;
  if (!placeholderTs) throw new Error("chat.postMessage answered without a ts");
  let reply: Awaited<ReturnType<SlackHandlerDeps["assistant"]["reply"]>>;
  try {
    reply = await deps.assistant.reply(incoming.linked.user.id, incoming.thread, incoming.text);
  } catch (error) {
    deps.logger.error({ err: error, thread: incoming.thread.threadKey }, "slack: reply failed");
    await client.chat.update({ channel, ts: placeholderTs, text: SORRY, blocks: [] });
    return;
  }
  const pages = textMessages(reply.text);
  // Every change the reply states gets its Undo, under the reply's last message.
  const undo = undoBlock(reply.changes);
  const last = pages.at(-1);
  if (undo && last) {
    if (last.blocks.length < MAX_BLOCKS_PER_MESSAGE) last.blocks.push(undo);
    else pages.push({ text: last.text, blocks: [undo] });
  }
  const [first, ...rest] = pages;
  if (first) await client.chat.update({ channel, ts: placeholderTs, text: first.text, blocks: first.blocks });
  for (const page of rest) {
    await client.chat.postMessage({
      channel,
      text: page.text,
      blocks: page.blocks,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
  }
  for (const pending of reply.pending) {
    const message = confirmationMessage(pending, incoming.linked.user.timeZone);
    await client.chat.postMessage({
      channel,
      text: message.text,
      blocks: message.blocks,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
  }
}
