import type { Database } from "../../db/client.ts";
import { finishRun } from "../../db/queries/runs.ts";

/** Stores prose on a run as the runner would, so outbox tests start from a `generated` run. */
export async function markGenerated(db: Database, runId: number, prose: string, at: Date): Promise<void> {
  await finishRun(
    db,
    runId,
    {
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
      prose,
      reason: null,
    },
    at,
  );
}
