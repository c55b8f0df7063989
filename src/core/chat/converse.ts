/**
 * Chat turns: a follow-up in a briefing's thread (answered from that run's receipts, and only that run's)
 * or plain chat. Both use the `interactive` route with the read-only tools (for anything the receipts do
 * not cover) and the write tools; both store the user's text, every fresh tool call and result (new
 * receipts, on the thread) and the reply.
 *
 * Every answer passes the grounding gate against the receipts in its context (the run's, the thread's,
 * and its own fresh calls). Every change the model makes is stated in the reply from its receipt and gets
 * an Undo; a change waits for the user's Confirm when it is a deletion, when the turn's context holds text
 * from outside the user (feed items, subscribed calendars), or, in a follow-up, when the user did not ask
 * for a change.
 */
import type { ChangeNotice, ChatReply, PendingConfirmation, ThreadRef } from "../assistant.ts";
import { readsPersonalData } from "../audience.ts";
import { triggerInstruction } from "../briefing/slot-prompts.ts";
import { type Budget, createBudget } from "../budget.ts";
import type { CoreDeps } from "../deps.ts";
import type { BriefingRun, GroundingVerdict, Receipt, User } from "../domain.ts";
import { checkGrounding } from "../grounding/check.ts";
import { groundAnswer } from "../grounding/gate.ts";
import { gateOptions } from "../grounding/options.ts";
import { messageLog } from "../message-log.ts";
import { type ChatMessage, ModelError, withPreferredModel } from "../model.ts";
import { chatToolSet, readOnlyChatToolSet } from "../tools/allowlists.ts";
import type { ToolContext } from "../tools/define-tool.ts";
import type { ToolOutcome } from "../tools/dispatch.ts";
import { withShown } from "../tools/model-view.ts";
import { type PromptBudget, promptBudget } from "../tools/prompt-budget.ts";
import { isStepCount, runToolLoop, type Step, type ToolLoopResult } from "../tools/tool-loop.ts";
import { addTrace, EMPTY_TRACE, type Trace } from "../trace.ts";
import { asksForChange } from "./change-request.ts";
import { chatSystemPrompt, correctionRequest, followUpSystemPrompt } from "./chat-prompt.ts";
import { holdForConfirmation } from "./confirmations.ts";
import { carriesOutsideText, receiptsOfMessages } from "./context-receipts.ts";
import { groundedStream } from "./grounded-stream.ts";
import { toChatMessages, withoutUnansweredAttempt } from "./history.ts";
import { plainAnswer } from "./plain-answer.ts";
import { todayReceipts } from "./today-receipts.ts";
import { offerUndo } from "./undo.ts";

export const MAX_CHAT_TURNS = 6;
/** A corrective turn may look up a few things before it answers again. */
const MAX_CORRECTION_TURNS = 3;
const HISTORY_LIMIT = 60;

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
  const runReceipts = receiptsOfMessages(runMessages);
  const receiptTimes = runReceipts.map((receipt) => receipt.at.getTime());
  const asOf = receiptTimes.length > 0 ? new Date(Math.max(...receiptTimes)) : undefined;
  const prefix: ChatMessage[] = archived
    ? []
    : [{ role: "user", content: triggerInstruction(run.slot) }, ...toChatMessages(runMessages)];
  const system = followUpSystemPrompt(user, now, {
    run,
    asOf,
    archived,
    retentionDays: config.retentionDays,
    maxAgeMinutes: config.receiptMaxAgeMinutes,
  });
  return converse(
    deps,
    user,
    { ...thread, runId: run.id },
    text,
    { system, prefix, receipts: runReceipts, followUp: true },
    options,
  );
}

/** Plain chat: the full tool set, changes included (each reported, some waiting for a Confirm). */
export async function chatReply(
  deps: CoreDeps,
  user: User,
  thread: ThreadRef,
  text: string,
  options: ChatOptions = {},
): Promise<ChatReply> {
  const system = chatSystemPrompt(user, deps.clock.now());
  return converse(deps, user, thread, text, { system, prefix: [], receipts: [], followUp: false }, options);
}

interface Frame {
  system: string;
  /** The followed-up run's messages, as the model sees them. */
  prefix: ChatMessage[];
  /** The followed-up run's receipts: evidence for the answer, and possibly outside text. */
  receipts: Receipt[];
  /** A follow-up to a briefing: a change the user did not ask for waits for their Confirm. */
  followUp: boolean;
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
  if (!message) {
    return {
      text: "Say something and I'll help.",
      receipts: [],
      pending: [],
      changes: [],
      grounding: null,
      personal: false,
    };
  }
  const conversation = await ports.conversations.findOrCreate({
    userId: user.id,
    platform: thread.platform,
    threadKey: thread.threadKey,
    runId: thread.runId ?? null,
    at: deps.clock.now(),
  });
  // Briefing prose tagged with a slot never enters chat history: a thread sees only its own run's briefing.
  const { history, repeated } = withoutUnansweredAttempt(
    (await ports.receipts.threadMessages(conversation.id, HISTORY_LIMIT)).filter(
      (stored) => stored.metadata?.briefing_slot === undefined,
    ),
    message,
  );
  const owner = { userId: user.id, runId: null, conversationId: conversation.id };
  const log = messageLog(ports.receipts, owner, deps.timer);
  if (!repeated) await log.text("user", message, deps.clock.now());

  // Filed as the calls run (concurrently); reported in call order, from the outcomes.
  const filed: PendingConfirmation[] = [];
  const context: ToolContext = {
    user,
    clock: deps.clock,
    records: ports.records,
    sources: ports.sources,
    requestConfirmation: async (request) => {
      const handle = await holdForConfirmation(
        deps,
        { userId: user.id, conversationId: conversation.id },
        request,
      );
      filed.push(handle);
      return handle;
    },
  };
  const earlier = [...frame.receipts, ...receiptsOfMessages(history)];
  // With nothing looked at yet, today's receipts come first: a question about today is one request.
  // A change request goes straight to the model: its context stays the user's own words.
  // In a space others read, nothing of the person's is looked at unless the model asks for it: an answer
  // that needs none (a greeting, help) stays in the channel instead of going to them alone.
  const today =
    earlier.length === 0 && !frame.followUp && !asksForChange(message) && thread.space !== "shared"
      ? await todayReceipts(deps, context, log)
      : undefined;
  const messages: ChatMessage[] = [
    { role: "system", content: frame.system },
    ...frame.prefix,
    ...toChatMessages(history),
    { role: "user", content: message },
    ...(today?.messages ?? []),
  ];
  const outsideTextEarlier = [...earlier, ...(today?.recorded.receipts ?? [])].some((receipt) =>
    carriesOutsideText(deps.tools, receipt),
  );
  const unrequested = frame.followUp && !asksForChange(message);
  const budget = createBudget(deps.timer, config.chatDeadlineSeconds * 1000, "the chat answer");
  const prompt = deps.estimatePromptTokens
    ? promptBudget(config.contextTokens.interactive, deps.estimatePromptTokens)
    : undefined;

  let trace: Trace = today ? addTrace(EMPTY_TRACE, today.recorded) : EMPTY_TRACE;
  const outcomes: ToolOutcome[] = [];
  const record = async (step: Step) => {
    trace = addTrace(trace, await log.modelStep(step));
    outcomes.push(...step.outcomes);
  };
  let answer: string;
  let grounding: GroundingVerdict | null = null;
  let failure: ModelError | undefined;
  try {
    const loop = await runToolLoop({
      model: deps.model,
      role: "interactive",
      messages,
      tools: chatToolSet(deps.tools),
      context,
      stopWhen: isStepCount(MAX_CHAT_TURNS),
      timer: deps.timer,
      budget,
      promptBudget: prompt,
      onStep: record,
      confirmChanges: ({ steps }) =>
        outsideTextEarlier ||
        unrequested ||
        steps.some((step) => step.outcomes.some((outcome) => outcome.untrusted === true)),
      // What streams is only what the gate backs so far: a lie never shows, even before the reply settles.
      ...(options.onToken
        ? {
            onToken: groundedStream(options.onToken, (text) =>
              checkGrounding(text, [...earlier, ...trace.receipts], gateOptions(user, deps.clock.now())),
            ),
          }
        : {}),
    });
    if (loop.text === null) {
      deps.logger.warn({ userId: user.id, conversationId: conversation.id }, "chat hit the turn cap");
    }
    const draft = loop.text || loop.lastProse || "";
    if (draft) {
      // Lists the prompt budget shortened are read as the model was shown them ("and 37 more").
      const gate = await groundAnswer({
        draft,
        receipts: withShown([...earlier, ...trace.receipts], loop.listCaps),
        subject: { text: "your answer", source: "this conversation" },
        options: gateOptions(user, deps.clock.now()),
        rewrite: async (description) => {
          const before = trace.receipts.length;
          const text = await correct(deps, { loop, draft, description, context, budget, prompt, record });
          return { text, receipts: withShown(trace.receipts.slice(before), loop.listCaps) };
        },
      });
      grounding = gate.verdict;
      answer = gate.kind === "unbacked" ? plainAnswer(gate.receipts) : gate.text;
      if (gate.verdict.action !== "none") {
        deps.logger.warn(
          { userId: user.id, conversationId: conversation.id, grounding: gate.verdict },
          "chat answer was not backed by its receipts as written",
        );
      }
    } else {
      answer = quietReply(trace.receipts, filed, outcomes);
    }
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    failure = error;
    deps.logger.warn({ userId: user.id, code: error.code, error: error.message }, "chat model failed");
    answer = apology(error);
  }

  const pending = outcomes.flatMap((outcome) => (outcome.pending ? [outcome.pending] : []));
  const changes = await reportChanges(deps, owner, outcomes);
  const reply = withNotices(answer, changes, pending);
  await log.text("assistant", reply, deps.clock.now(), {
    kind: "reply",
    ...(grounding ? { grounding } : {}),
    ...(changes.length > 0 ? { changes: changes.map((change) => change.report) } : {}),
    ...(failure ? { failure: { code: failure.code, message: failure.message } } : {}),
  });
  const personal = readsPersonalData({
    followsUpBriefing: frame.followUp,
    receipts: earlier.length + trace.receipts.length,
    changes: changes.length + pending.length,
  });
  return { text: reply, receipts: [...trace.receipts], pending, changes, grounding, personal };
}

/**
 * The corrective turn of a chat answer: the conversation so far, the draft, and the instruction naming what
 * is unbacked, with the read-only tools to look it up. Undefined when the model could not answer.
 */
async function correct(
  deps: CoreDeps,
  turn: {
    loop: ToolLoopResult;
    draft: string;
    description: string;
    context: ToolContext;
    budget: Budget;
    prompt: PromptBudget | undefined;
    record: (step: Step) => Promise<void>;
  },
): Promise<string | undefined> {
  try {
    const correction = await runToolLoop({
      model: deps.model,
      role: "interactive",
      messages: [
        ...turn.loop.messages,
        // After a turn cap the last message is a tool result; the correction must follow the draft.
        ...(turn.loop.text === null ? [{ role: "assistant" as const, content: turn.draft }] : []),
        { role: "user", content: correctionRequest(turn.description) },
      ],
      tools: readOnlyChatToolSet(deps.tools),
      context: turn.context,
      stopWhen: isStepCount(MAX_CORRECTION_TURNS),
      timer: deps.timer,
      budget: turn.budget,
      promptBudget: turn.prompt,
      listCaps: turn.loop.listCaps,
      onStep: turn.record,
    });
    return correction.text ?? undefined;
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return undefined;
  }
}

/** Each executed change, from its receipt, with the Undo button filed for it. */
async function reportChanges(
  deps: CoreDeps,
  owner: { userId: number; conversationId: number },
  outcomes: readonly ToolOutcome[],
): Promise<ChangeNotice[]> {
  const notices: ChangeNotice[] = [];
  for (const outcome of outcomes) {
    if (!outcome.mutation || outcome.error) continue;
    const undo = await offerUndo(deps, owner, outcome.mutation);
    notices.push({ report: outcome.mutation.report, ...(undo ? { undo } : {}) });
  }
  return notices;
}

/**
 * The answer, then every change made (nothing changes silently, whatever the model said) and every change
 * waiting for a Confirm (the user has to press the button, so they must see it).
 */
function withNotices(
  answer: string,
  changes: readonly ChangeNotice[],
  pending: readonly PendingConfirmation[],
): string {
  const lines = [
    ...changes.map((change) => `✓ ${change.report}.`),
    ...pending
      .filter((handle) => !answer.includes(handle.summary))
      .map((handle) => `${handle.summary} (waiting for your confirmation)`),
  ];
  return [answer.trim(), ...lines].filter(Boolean).join("\n");
}

/** A turn that ended without prose: say what happened rather than nothing. */
function quietReply(
  receipts: readonly Receipt[],
  pending: readonly PendingConfirmation[],
  outcomes: readonly ToolOutcome[],
): string {
  if (pending.length > 0) return "That needs your confirmation.";
  if (outcomes.some((outcome) => outcome.mutation)) return "";
  if (receipts.length > 0) return "I looked that up but could not put an answer together.";
  return "Sorry, I could not answer that.";
}

/** A plain apology that says what went wrong, never a guess. */
function apology(error: ModelError): string {
  switch (error.code) {
    case "DEADLINE_EXCEEDED":
      return "Sorry, the assistant model took too long to answer. Your message is saved; try again in a moment.";
    case "OUTPUT_CAPPED":
      return "Sorry, the assistant model's answer ran on past its limit, so I stopped it. Your message is saved; try asking again.";
    default:
      return "Sorry, I could not answer that. (The assistant model is unavailable right now; your message is saved, try again in a moment.)";
  }
}
