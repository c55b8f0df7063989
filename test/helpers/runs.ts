import type { BriefingRun, RunResult, SlotName } from "../../src/core/domain.ts";
import { portsOf, type TestStore } from "./test-store.ts";

/** What the helpers store as a run's result, but for its prose. */
const EMPTY_RESULT: RunResult = {
  mode: "agentic",
  route: "briefing",
  endpoint: null,
  model: null,
  turns: 1,
  toolCalls: 0,
  promptTokens: 0,
  evalTokens: 0,
  timings: {},
  grounding: null,
  prose: "",
  checks: [{ label: "looked at tasks", ok: true }],
  reason: null,
};

/** Who the helpers below claim runs as, unless told otherwise. */
export const HELPER_OWNER = "test-helper";

/** A scheduled run claimed now, as the scheduler claims it (its window 90 minutes from `at`). */
export async function claimRun(
  db: TestStore,
  slot: { userId: number; slot: SlotName; localDate: string; notAfter?: Date },
  at: Date,
  owner = HELPER_OWNER,
): Promise<BriefingRun> {
  const notAfter = slot.notAfter ?? new Date(at.getTime() + 90 * 60_000);
  const run = await portsOf(db).lifecycle.claim({ ...slot, notAfter }, owner, at);
  if (!run)
    throw new Error(`test bug: ${slot.slot} ${slot.localDate} of user ${slot.userId} was already claimed`);
  return run;
}

/** A run claimed and generated with `prose`, as the runner leaves it: ready for the outbox. */
export async function generatedRun(
  db: TestStore,
  slot: { userId: number; slot: SlotName; localDate: string; notAfter?: Date },
  prose: string,
  at: Date,
  owner = HELPER_OWNER,
): Promise<BriefingRun> {
  const run = await claimRun(db, slot, at, owner);
  await markGenerated(db, run, prose, at, owner);
  const generated = await portsOf(db).runQueue.get(run.id);
  if (!generated) throw new Error(`test bug: run ${run.id} vanished`);
  return generated.run;
}

/** Moves a claimed run through generating to generated with `prose`, as the runner would. */
export async function markGenerated(
  db: TestStore,
  run: Pick<BriefingRun, "id" | "userId">,
  prose: string,
  at: Date,
  owner = HELPER_OWNER,
): Promise<void> {
  const lifecycle = portsOf(db).lifecycle;
  if (!(await lifecycle.start(run.id, run.userId, owner, at)))
    throw new Error(`test bug: run ${run.id} not claimed by ${owner}`);
  const finished = await lifecycle.finish(run.id, owner, { ...EMPTY_RESULT, prose }, at);
  if (!finished) throw new Error(`test bug: run ${run.id} could not be finished`);
}

/** A manual run already generated with `prose` (as /brief leaves it), ready for the outbox. */
export async function generatedManualRun(
  db: TestStore,
  user: { userId: number; slot?: SlotName; localDate?: string },
  prose: string,
  at: Date,
): Promise<BriefingRun> {
  const lifecycle = portsOf(db).lifecycle;
  const run = await lifecycle.createManual({
    userId: user.userId,
    slot: user.slot ?? "morning",
    localDate: user.localDate ?? "2025-06-02",
    owner: HELPER_OWNER,
    at,
  });
  const finished = await lifecycle.finish(run.id, HELPER_OWNER, { ...EMPTY_RESULT, prose }, at);
  if (!finished) throw new Error(`test bug: manual run ${run.id} could not be finished`);
  return finished;
}
