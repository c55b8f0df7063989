/**
 * A briefing is a scheduled agent run, as a line of steps that each take values and return one:
 *
 *   refresh → receipts → write → ground → (digest)
 *
 * Every call and result is stored as a receipt of the run as it happens; the run never goes silent: when
 * the model fails, writes nothing or stays ungrounded, the digest writes the briefing from the receipts.
 */
import type { BriefingOutcome } from "../assistant.ts";
import type { CoreDeps } from "../deps.ts";
import type { BriefingRun } from "../domain.ts";
import { errorMessage, RunTakenError } from "../errors.ts";
import { notifier } from "../events.ts";
import { localDate } from "../local-time.ts";
import { modelTimings, runCounters } from "../trace.ts";
import { type Produced, type RunContext, runContext } from "./context.ts";
import { statusChecks, statusRow } from "./status-row.ts";
import { digest } from "./steps/digest.ts";
import { ground } from "./steps/ground.ts";
import { receipts } from "./steps/receipts.ts";
import { refresh } from "./steps/refresh.ts";
import { write } from "./steps/write.ts";
import type { RunBriefingInput } from "./types.ts";

export { MAX_BRIEFING_TURNS } from "./steps/write.ts";

export async function runBriefing(deps: CoreDeps, input: RunBriefingInput): Promise<BriefingOutcome> {
  const startedAt = deps.timer();
  const run = await openRun(deps, input);
  try {
    const context = runContext(deps, input.user, input.slot, run, notifier(input.onEvent));
    const refreshStartedAt = deps.timer();
    await refresh(context);
    const refreshMs = deps.timer() - refreshStartedAt;
    const seeded = await receipts(context);
    const written = await write(context, seeded);
    const grounded = written.kind === "draft" ? await ground(context, written) : written;
    const produced = grounded.kind === "produced" ? grounded : await digest(context, grounded);
    return await close(context, produced, { startedAt, refreshMs });
  } catch (error) {
    // Not a model problem (those end in a digest): the database or a bug. The runner records it, once.
    if (!(error instanceof RunTakenError)) {
      await deps.ports.lifecycle
        .fail(run.id, deps.owner, `generation failed: ${errorMessage(error)}`, deps.clock.now())
        .catch(() => undefined);
    }
    throw error;
  }
}

/** The scheduler's claimed run moves to generating; a manual run (/brief, the CLI) is created. */
async function openRun(deps: CoreDeps, input: RunBriefingInput): Promise<BriefingRun> {
  const { user, slot } = input;
  const now = deps.clock.now();
  if (input.runId === undefined) {
    const localDay = localDate(now, user.timeZone);
    return deps.ports.lifecycle.createManual({
      userId: user.id,
      slot,
      localDate: localDay,
      owner: deps.owner,
      at: now,
    });
  }
  const run = await deps.ports.lifecycle.start(input.runId, user.id, deps.owner, now);
  if (!run) throw new RunTakenError(`run ${input.runId} is not ${user.name}'s claimed run of this process`);
  return run;
}

/** Stores the prose (tagged with the slot) and the run's result, and returns the briefing. */
async function close(
  context: RunContext,
  produced: Produced,
  time: { startedAt: number; refreshMs: number },
): Promise<BriefingOutcome> {
  const { deps, run, slot, user } = context;
  const stored = await context.log.text("assistant", produced.prose, deps.clock.now(), {
    kind: "briefing",
    briefing_slot: slot,
    run_id: run.id,
    mode: produced.mode,
  });
  const trace = produced.trace;
  const timings = {
    totalMs: round(deps.timer() - time.startedAt),
    refreshMs: round(time.refreshMs),
    modelMs: round(modelTimings(trace).modelMs),
    queueWaitMs: round(modelTimings(trace).queueWaitMs),
    toolsMs: round(trace.toolsMs),
    storageMs: round(trace.storageMs + (stored.storageMs ?? 0)),
    groundingMs: round(trace.groundingMs),
  };
  const checks = statusChecks(trace.receipts);
  const finished = await deps.ports.lifecycle.finish(
    run.id,
    deps.owner,
    {
      mode: produced.mode,
      route: "briefing",
      ...runCounters(trace),
      timings,
      grounding: produced.grounding,
      prose: produced.prose,
      checks,
      reason: produced.reason,
    },
    deps.clock.now(),
  );
  if (!finished)
    throw new RunTakenError(`run ${run.id} was taken over by another process; this attempt is dropped`);
  const verdict = produced.grounding;
  return {
    runId: run.id,
    userId: user.id,
    slot,
    localDate: run.localDate,
    prose: produced.prose,
    checks,
    statusRow: statusRow(checks),
    mode: produced.mode,
    receipts: [...trace.receipts],
    grounding: verdict
      ? { claimsChecked: verdict.claimsChecked, unbacked: verdict.unbacked, action: verdict.action }
      : null,
    timings,
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
