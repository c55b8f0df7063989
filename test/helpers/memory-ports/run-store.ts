/** The `RunStore` port in memory: a user's runs, read only; `RunLifecycle` changes them. */
import type { BriefingRun, RunState } from "../../../src/core/domain.ts";
import type { RunStore } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables } from "./tables.ts";

/** States in which a run has prose a person can read and follow up on. */
const FINISHED_STATES: readonly RunState[] = ["generated", "delivering", "delivered"];

export function createMemoryRunStore(tables: MemoryTables): RunStore {
  const latest = (matching: (run: BriefingRun) => boolean) => {
    const found = tables.runs.filter(matching).sort((a, b) => b.id - a.id)[0];
    return found && copyRow(found);
  };
  return {
    ofUser: async (userId, runId) => {
      const run = tables.runs.find((row) => row.id === runId && row.userId === userId);
      return run && copyRow(run);
    },
    scheduledOn: async (userId, localDates) =>
      tables.runs
        .filter(
          (run) => run.userId === userId && run.trigger === "schedule" && localDates.includes(run.localDate),
        )
        .map((run) => ({ slot: run.slot, localDate: run.localDate })),
    latestFinished: async (userId) =>
      latest((run) => run.userId === userId && FINISHED_STATES.includes(run.state)),
    morningOf: async (userId, localDate) =>
      latest(
        (run) =>
          run.userId === userId &&
          run.slot === "morning" &&
          run.localDate === localDate &&
          FINISHED_STATES.includes(run.state),
      ),
  };
}
