/**
 * A briefing is a scheduled agent run: a slot prompt, the read-only briefing tools, a plain trigger, and a
 * loop of at most 8 model turns. Every call and result is stored as a receipt of the run; the runner adds
 * the calls coverage requires, checks the prose against the receipts, and never goes silent: when the
 * model fails it writes a digest from the receipts itself.
 */
import { DateTime } from "luxon";
import { rollUpOldRuns } from "../../../db/queries/retention.ts";
import { createRun, failRun, finishRun, startClaimedRun } from "../../../db/queries/runs.ts";
import type { BriefingRun, GroundingVerdict } from "../../../db/schema/briefings.ts";
import type { BriefingOutcome } from "../assistant.ts";
import { localDate } from "../local-time.ts";
import { type ChatMessage, ModelError, type ToolCall, withPreferredModel } from "../model.ts";
import { briefingToolSet } from "../tools/allowlists.ts";
import type { ToolContext } from "../tools/define-tool.ts";
import { dispatchAll, type ToolOutcome } from "../tools/dispatch.ts";
import type { ToolSet } from "../tools/registry.ts";
import { chatOrModelError, runToolLoop, toolMessage } from "../tools/tool-loop.ts";
import { COVERAGE, DIGEST_EXTRAS, missingCoverage, type RequiredCall } from "./coverage.ts";
import { buildDigest, MODEL_UNAVAILABLE_NOTE } from "./digest.ts";
import { groundDraft } from "./grounding-gate.ts";
import { legacyCalls, legacyDataPrompt, legacySystemPrompt } from "./legacy.ts";
import { RunRecorder } from "./run-recorder.ts";
import {
  briefingSystemPrompt,
  correctionInstruction,
  coverageInstruction,
  slotTitle,
  triggerInstruction,
} from "./slot-prompts.ts";
import { statusChecks, statusRow } from "./status-row.ts";
import { type BriefingDeps, type CheckInReceipt, type RunBriefingInput, resolveConfig } from "./types.ts";

export const MAX_BRIEFING_TURNS = 8;

const EMPTY_REPLY_NOTE =
  "(The assistant model returned no briefing, so this is a plain digest of your data.)";
const UNGROUNDED_NOTE =
  "(The assistant's draft stated things your data does not show, so this is a plain digest instead.)";

interface Session {
  deps: BriefingDeps;
  input: RunBriefingInput;
  run: BriefingRun;
  recorder: RunRecorder;
  context: ToolContext;
  tools: ToolSet;
  date: string;
  timer: () => number;
  groundingMs: number;
  runnerCalls: number;
  /** The check-in's "what changed since the morning" receipt, with the call that stands for it. */
  checkIn: { call: ToolCall; outcome: ToolOutcome } | undefined;
}

interface Produced {
  prose: string;
  mode: "agentic" | "legacy" | "digest";
  grounding: GroundingVerdict | null;
  reason: string | null;
}

export async function runBriefing(given: BriefingDeps, input: RunBriefingInput): Promise<BriefingOutcome> {
  const deps: BriefingDeps = { ...given, model: withPreferredModel(given.model, input.user.preferredModel) };
  const timer = deps.timer ?? (() => performance.now());
  const startedAt = timer();
  const { user, slot } = input;
  const now = deps.clock.now();
  const date = localDate(now, user.timeZone);
  const run =
    input.runId !== undefined
      ? await startClaimedRun(deps.db, input.runId, now, { userId: user.id })
      : await createRun(deps.db, { userId: user.id, slot, localDate: date, trigger: input.trigger, at: now });
  if (run.userId !== user.id) throw new Error(`run ${run.id} belongs to another user`);

  try {
    await rollUp(deps, user.id);
    const session: Session = {
      deps,
      input,
      run,
      recorder: new RunRecorder(deps.db, { userId: user.id, runId: run.id, conversationId: null }, timer),
      context: { user, db: deps.db, clock: deps.clock },
      tools: briefingToolSet(deps.tools),
      date: run.localDate,
      timer,
      groundingMs: 0,
      runnerCalls: 0,
      checkIn: undefined,
    };
    const produced = await produce(session);
    const { recorder } = session;
    await recorder.recordAssistantText(produced.prose, deps.clock.now(), {
      kind: "briefing",
      briefing_slot: slot,
      run_id: run.id,
      mode: produced.mode,
    });
    const timings = {
      totalMs: round(timer() - startedAt),
      modelMs: round(recorder.stats.modelMs),
      queueWaitMs: round(recorder.stats.queueWaitMs),
      toolsMs: round(recorder.stats.toolsMs),
      storageMs: round(recorder.stats.storageMs),
      groundingMs: round(session.groundingMs),
    };
    await finishRun(
      deps.db,
      run.id,
      {
        mode: produced.mode,
        route: "briefing",
        endpoint: recorder.stats.endpoint,
        model: recorder.stats.model,
        turns: recorder.stats.turns,
        toolCalls: recorder.stats.toolCalls,
        promptTokens: recorder.stats.promptTokens,
        evalTokens: recorder.stats.evalTokens,
        timings,
        grounding: produced.grounding,
        prose: produced.prose,
        reason: produced.reason,
      },
      deps.clock.now(),
    );
    const checks = statusChecks(recorder.receipts);
    return {
      runId: run.id,
      userId: user.id,
      slot,
      localDate: run.localDate,
      prose: produced.prose,
      checks,
      statusRow: statusRow(checks),
      mode: produced.mode,
      receipts: [...recorder.receipts],
      grounding: produced.grounding
        ? {
            claimsChecked: produced.grounding.claimsChecked,
            unbacked: produced.grounding.unbacked,
            action: produced.grounding.action,
          }
        : null,
      timings,
    };
  } catch (error) {
    // Not a model problem (those end in a digest): the database or a bug. Record it, then surface it.
    await failRun(
      deps.db,
      run.id,
      error instanceof Error ? error.message : String(error),
      deps.clock.now(),
    ).catch(() => undefined);
    throw error;
  }
}

async function produce(session: Session): Promise<Produced> {
  const { deps, input } = session;
  session.checkIn = await checkInReceipt(session);
  let mode: "agentic" | "legacy" = input.user.briefingMode === "legacy" ? "legacy" : "agentic";
  let reason: string | null = mode === "legacy" ? "briefing_mode is legacy" : null;
  if (mode === "agentic") {
    const verdict = await deps.model.canRunAgentic("briefing").catch(() => undefined);
    if (verdict && !verdict.ok) {
      mode = "legacy";
      reason = `agentic mode unavailable: ${verdict.reason ?? "unknown reason"}`;
      deps.logger?.warn(
        {
          userId: input.user.id,
          runId: session.run.id,
          model: verdict.model,
          endpoint: verdict.endpoint,
          reason: verdict.reason,
        },
        "briefing model cannot run agentic briefings; falling back to legacy mode",
      );
    }
  }
  try {
    const produced = mode === "agentic" ? await agentic(session) : await legacy(session);
    return { ...produced, reason: produced.reason ?? reason };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    deps.logger?.warn(
      { userId: input.user.id, runId: session.run.id, code: error.code, error: error.message },
      "briefing model failed; sending a digest",
    );
    return digest(session, MODEL_UNAVAILABLE_NOTE, null, `model unavailable: ${error.message}`);
  }
}

async function agentic(session: Session): Promise<Produced> {
  const { deps, input, recorder } = session;
  const { checkIn } = session;
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: briefingSystemPrompt(input.slot, input.user, deps.clock.now(), {
        changesTool: checkIn?.outcome.name,
      }),
    },
    { role: "user", content: triggerInstruction(input.slot) },
  ];
  if (checkIn) {
    messages.push({ role: "assistant", content: "", tool_calls: [checkIn.call] });
    messages.push(toolMessage(checkIn.outcome));
  }
  const loop = await runToolLoop({
    model: deps.model,
    role: "briefing",
    messages,
    tools: session.tools,
    context: session.context,
    maxTurns: MAX_BRIEFING_TURNS,
    timer: session.timer,
    onTurn: async (turn) => {
      await recorder.recordModelTurn(turn.result, turn.outcomes);
      for (const outcome of turn.outcomes) input.onProgress?.(`${outcome.error ? "✗" : "✓"} ${outcome.name}`);
    },
  });
  let draft = loop.final;
  let reason: string | null = null;
  if (loop.hitCap) {
    reason = `tool loop hit the ${MAX_BRIEFING_TURNS}-turn cap`;
    deps.logger?.warn(
      { userId: input.user.id, runId: session.run.id, turns: MAX_BRIEFING_TURNS },
      "briefing hit the turn cap; using the last prose or a digest",
    );
    draft = loop.lastProse;
  }

  const missing = missingCoverage(COVERAGE[input.slot], recorder.receipts);
  if (missing.length > 0) {
    const { calls, outcomes } = await runnerCalls(session, missing);
    if (!loop.hitCap) {
      // The draft was written without these results: drop it and let the model finish with everything.
      if (messages.at(-1)?.role === "assistant") messages.pop();
      messages.push({ role: "assistant", content: "", tool_calls: calls });
      for (const outcome of outcomes) messages.push(toolMessage(outcome));
      messages.push({ role: "user", content: coverageInstruction(missing.map(describeCall)) });
      const result = await chatOrModelError(deps.model, { role: "briefing", messages });
      recorder.noteModelCall(result);
      const finished = result.content.trim();
      if (finished) draft = finished;
      messages.push({ role: "assistant", content: result.content });
    }
  }

  if (!draft) return digest(session, EMPTY_REPLY_NOTE, null, reason ?? "the model wrote no prose");
  return ground(session, messages, draft, "agentic", reason);
}

async function legacy(session: Session): Promise<Produced> {
  const { deps, input, recorder } = session;
  await runnerCalls(session, legacyCalls(input.slot));
  const messages: ChatMessage[] = [
    { role: "system", content: legacySystemPrompt(input.slot, input.user, deps.clock.now()) },
    {
      role: "user",
      content: legacyDataPrompt(recorder.receipts, session.date, changesText(session.checkIn?.outcome)),
    },
  ];
  const result = await chatOrModelError(deps.model, { role: "briefing", messages });
  recorder.noteModelCall(result);
  const draft = result.content.trim();
  if (!draft) return digest(session, EMPTY_REPLY_NOTE, null, "the model wrote no prose");
  messages.push({ role: "assistant", content: result.content });
  return ground(session, messages, draft, "legacy", null);
}

async function ground(
  session: Session,
  messages: ChatMessage[],
  draft: string,
  mode: "agentic" | "legacy",
  reason: string | null,
): Promise<Produced> {
  const { deps, input, recorder } = session;
  const startedAt = session.timer();
  const options = { timeZone: input.user.timeZone, localDate: session.date, knownNames: [input.user.name] };
  // The correction must follow the draft it corrects (after a turn cap the last message is a tool result).
  const last = messages.at(-1);
  if (last?.role !== "assistant" || last.content.trim() !== draft)
    messages.push({ role: "assistant", content: draft });
  let modelTime = 0;
  const gate = await groundDraft(draft, recorder.receipts, options, async (description) => {
    const before = session.timer();
    try {
      const result = await chatOrModelError(deps.model, {
        role: "briefing",
        messages: [...messages, { role: "user", content: correctionInstruction(description) }],
      });
      recorder.noteModelCall(result);
      return result.content;
    } catch (error) {
      if (!(error instanceof ModelError)) throw error;
      deps.logger?.warn(
        { runId: session.run.id, error: error.message },
        "corrective turn failed; trimming the draft",
      );
      return undefined;
    } finally {
      modelTime += session.timer() - before;
    }
  });
  session.groundingMs += session.timer() - startedAt - modelTime;
  if (gate.kind === "backed") return { prose: gate.prose, mode, grounding: gate.verdict, reason };
  deps.logger?.warn(
    { userId: input.user.id, runId: session.run.id, unbacked: gate.verdict.unbacked },
    "briefing stayed ungrounded after correction; sending a digest",
  );
  return digest(session, UNGROUNDED_NOTE, gate.verdict, reason);
}

/** The deterministic briefing: gathers whatever coverage still lacks, then writes plain lines from receipts. */
async function digest(
  session: Session,
  note: string,
  verdict: GroundingVerdict | null,
  reason: string | null,
): Promise<Produced> {
  const { input, recorder } = session;
  const missing = missingCoverage([...COVERAGE[input.slot], ...DIGEST_EXTRAS], recorder.receipts);
  if (missing.length > 0) await runnerCalls(session, missing);
  const day = DateTime.fromISO(session.date).toFormat("cccc d LLLL");
  const prose = buildDigest(recorder.receipts, {
    heading: `Your ${slotTitle(input.slot)} for ${day}:`,
    note,
    changes: changesText(session.checkIn?.outcome),
  });
  return {
    prose,
    mode: "digest",
    grounding: verdict ?? { claimsChecked: 0, unbacked: [], action: "digest" },
    reason,
  };
}

/** Calls the runner makes itself; stored as receipts like the model's own. */
async function runnerCalls(
  session: Session,
  required: readonly RequiredCall[],
): Promise<{ calls: ToolCall[]; outcomes: Awaited<ReturnType<typeof dispatchAll>> }> {
  const calls: ToolCall[] = required.map((call, index) => ({
    id: `runner_${session.run.id}_${++session.runnerCalls}`,
    function: { index, name: call.name, arguments: { ...call.arguments } },
  }));
  const outcomes = await dispatchAll(session.tools, calls, session.context, { timer: session.timer });
  await session.recorder.recordRunnerCalls(outcomes);
  for (const outcome of outcomes) session.input.onProgress?.(`${outcome.error ? "✗" : "✓"} ${outcome.name}`);
  return { calls, outcomes };
}

/**
 * Asks the composition root what changed since the morning and stores the answer as a runner-made call of
 * the run, before the model speaks. A failure costs the check-in this context, never the check-in itself.
 */
async function checkInReceipt(session: Session): Promise<Session["checkIn"]> {
  const { deps, input, run } = session;
  if (input.slot === "morning" || !deps.checkInContext) return undefined;
  const now = deps.clock.now();
  const startedAt = session.timer();
  let given: CheckInReceipt | undefined;
  try {
    given = await deps.checkInContext(input.user, session.date, now);
  } catch (error) {
    deps.logger?.warn(
      { userId: input.user.id, runId: run.id, error: error instanceof Error ? error.message : String(error) },
      "could not work out what changed since the morning; the check-in goes ahead without it",
    );
    return undefined;
  }
  if (!given) return undefined;
  const outcome: ToolOutcome = {
    callId: `runner_${run.id}_${++session.runnerCalls}`,
    name: given.name,
    arguments: { ...given.arguments },
    result: given.result,
    error: false,
    at: now,
    durationMs: session.timer() - startedAt,
  };
  const [call] = await session.recorder.recordRunnerCalls([outcome]);
  input.onProgress?.(`✓ ${outcome.name}`);
  if (!call) return undefined;
  return { call, outcome };
}

/** The receipt's own one-line summary when it has one, else its result as JSON. */
function changesText(outcome: ToolOutcome | undefined): string | undefined {
  if (!outcome) return undefined;
  const result = outcome.result;
  if (typeof result === "object" && result !== null && "summary" in result) {
    const summary = (result as { summary: unknown }).summary;
    if (typeof summary === "string" && summary.trim()) return summary.trim();
  }
  return JSON.stringify(result ?? null);
}

function describeCall(call: RequiredCall): string {
  const args = Object.entries(call.arguments)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(", ");
  return `${call.name}(${args})`;
}

async function rollUp(deps: BriefingDeps, userId: number): Promise<void> {
  try {
    await rollUpOldRuns(deps.db, {
      now: deps.clock.now(),
      retentionDays: resolveConfig(deps.config).retentionDays,
      userId,
    });
  } catch (error) {
    deps.logger?.warn(
      { userId, error: error instanceof Error ? error.message : String(error) },
      "retention roll-up failed",
    );
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
