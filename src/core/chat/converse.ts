/**
 * Chat turns: a follow-up in a briefing's thread (answered from that run's receipts, and only that run's)
 * or plain chat with the full tool set. Both use the `interactive` route; both store the user's text, every
 * fresh tool call and result (new receipts, on the thread) and the reply.
 */
import type { ChatReply, PendingConfirmation, ThreadRef } from "../assistant.ts";
import { triggerInstruction } from "../briefing/slot-prompts.ts";
import type { CoreDeps } from "../deps.ts";
import type { BriefingRun, Receipt, User } from "../domain.ts";
import { messageLog } from "../message-log.ts";
import { type ChatMessage, ModelError, withPreferredModel } from "../model.ts";
import { CHAT_TOOLS, chatToolSet, READ_ONLY_CHAT_TOOLS } from "../tools/allowlists.ts";
import type { ToolContext } from "../tools/define-tool.ts";
import { createToolSet, type ToolSet } from "../tools/registry.ts";
import { isStepCount, runToolLoop } from "../tools/tool-loop.ts";
import { addTrace, EMPTY_TRACE, type Trace } from "../trace.ts";
import { chatSystemPrompt, followUpSystemPrompt } from "./chat-prompt.ts";
import { toChatMessages } from "./history.ts";

export const MAX_CHAT_TURNS = 6;
const HISTORY_LIMIT = 60;

/** Words that ask about the present rather than the briefing's moment, or about what the briefing did not look at. */
const ASKS_ABOUT_NOW =
  /\b(now|right now|currently|current|at the moment|latest|still|any ?more|anything new|update[sd]?|changed?|since|tomorrow|next week|this week|upcoming|later)\b/i;

export interface ChatOptions {
  onToken?: ((fragment: string) => void) | undefined;
}

/** A reply in the thread of `run`: its receipts and prose, the thread's own turns, nothing of other runs. */
export async function answerInThread(
  deps: CoreDeps,
  user: User,
  run: BriefingRun,
  thread: ThreadRef,
  text: string,
  options: ChatOptions = {},
): Promise<ChatReply> {
  if (run.userId !== user.id) throw new Error(`run ${run.id} belongs to another user`);
  const { config } = deps;
  const now = deps.clock.now();
  const archived = run.archivedAt !== null;
  const runMessages = archived ? [] : await deps.ports.receipts.runMessages(run.id);
  const receiptTimes = runMessages
    .filter((message) => message.role === "tool")
    .map((message) => message.createdAt.getTime());
  const asOf = receiptTimes.length > 0 ? new Date(Math.max(...receiptTimes)) : undefined;
  const stale = asOf === undefined || now.getTime() - asOf.getTime() > config.receiptMaxAgeMinutes * 60_000;
  const refreshAllowed = archived || stale || ASKS_ABOUT_NOW.test(text);
  const prefix: ChatMessage[] = archived
    ? []
    : [{ role: "user", content: triggerInstruction(run.slot) }, ...toChatMessages(runMessages)];
  const system = followUpSystemPrompt(user, now, {
    run,
    asOf,
    refreshAllowed,
    archived,
    retentionDays: config.retentionDays,
  });
  const tools = refreshAllowed
    ? chatToolSet(deps.tools)
    : createToolSet(
        deps.tools,
        "follow-up (receipts are fresh)",
        CHAT_TOOLS.filter((name) => !(READ_ONLY_CHAT_TOOLS as readonly string[]).includes(name)),
      );
  return converse(deps, user, { ...thread, runId: run.id }, text, { system, prefix, tools }, options);
}

/** Plain chat: the full tool set, mutations included (destructive ones wait for confirmation). */
export async function chatReply(
  deps: CoreDeps,
  user: User,
  thread: ThreadRef,
  text: string,
  options: ChatOptions = {},
): Promise<ChatReply> {
  const system = chatSystemPrompt(user, deps.clock.now());
  return converse(deps, user, thread, text, { system, prefix: [], tools: chatToolSet(deps.tools) }, options);
}

interface Frame {
  system: string;
  prefix: ChatMessage[];
  tools: ToolSet;
}

async function converse(
  given: CoreDeps,
  user: User,
  thread: ThreadRef,
  text: string,
  frame: Frame,
  options: ChatOptions,
): Promise<ChatReply> {
  const deps: CoreDeps = { ...given, model: withPreferredModel(given.model, user.preferredModel) };
  const { ports, config } = deps;
  const message = text.trim();
  if (!message) return { text: "Say something and I'll help.", receipts: [], pending: [] };
  const conversation = await ports.conversations.findOrCreate({
    userId: user.id,
    platform: thread.platform,
    threadKey: thread.threadKey,
    runId: thread.runId ?? null,
    at: deps.clock.now(),
  });
  // Briefing prose tagged with a slot never enters chat history: a thread sees only its own run's briefing.
  const history = (await ports.receipts.threadMessages(conversation.id, HISTORY_LIMIT)).filter(
    (stored) => stored.metadata?.briefing_slot === undefined,
  );
  const log = messageLog(
    ports.receipts,
    { userId: user.id, runId: null, conversationId: conversation.id },
    deps.timer,
  );
  await log.text("user", message, deps.clock.now());

  const pending: PendingConfirmation[] = [];
  const context: ToolContext = {
    user,
    clock: deps.clock,
    records: ports.records,
    sources: ports.sources,
    requestConfirmation: async (request) => {
      const at = deps.clock.now();
      const row = await ports.confirmations.create({
        userId: user.id,
        conversationId: conversation.id,
        toolName: request.toolName,
        arguments: request.arguments,
        summary: request.summary,
        at,
        expiresAt: new Date(at.getTime() + config.confirmationMinutes * 60_000),
      });
      const handle = { id: row.id, summary: row.summary, expiresAt: row.expiresAt };
      pending.push(handle);
      return handle;
    },
  };
  const messages: ChatMessage[] = [
    { role: "system", content: frame.system },
    ...frame.prefix,
    ...toChatMessages(history),
    { role: "user", content: message },
  ];

  let trace: Trace = EMPTY_TRACE;
  let reply: string;
  try {
    const loop = await runToolLoop({
      model: deps.model,
      role: "interactive",
      messages,
      tools: frame.tools,
      context,
      stopWhen: isStepCount(MAX_CHAT_TURNS),
      timer: deps.timer,
      onStep: async (step) => {
        trace = addTrace(trace, await log.modelStep(step));
      },
      ...(options.onToken ? { onToken: options.onToken } : {}),
    });
    reply = loop.text || loop.lastProse || fallbackReply(trace.receipts, pending);
    if (loop.text === null) {
      deps.logger.warn({ userId: user.id, conversationId: conversation.id }, "chat hit the turn cap");
    }
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    deps.logger.warn({ userId: user.id, code: error.code, error: error.message }, "chat model failed");
    reply = `${fallbackReply(trace.receipts, pending)} (The assistant model is unavailable right now; your message is saved, try again in a moment.)`;
  }
  // A pending action the model forgot to mention must still reach the user, who has to press the button.
  for (const handle of pending) {
    if (!reply.includes(handle.summary))
      reply = `${reply}\n${handle.summary} (waiting for your confirmation)`;
  }
  await log.text("assistant", reply, deps.clock.now(), { kind: "reply" });
  return { text: reply, receipts: [...trace.receipts], pending };
}

function fallbackReply(receipts: readonly Receipt[], pending: readonly PendingConfirmation[]): string {
  if (pending.length > 0) return "That needs your confirmation.";
  if (receipts.length > 0) return "I looked that up but could not put an answer together.";
  return "Sorry, I could not answer that.";
}
