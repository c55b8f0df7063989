/**
 * Step 1: bring the user's stale sources up to date before the model looks, under one deadline
 * (`refreshDeadlineSeconds`). What fails or is late keeps its last good data, and the receipts say how old it
 * is; a refresh that throws costs the briefing fresh data, never the briefing.
 */
import { errorMessage } from "../../errors.ts";
import type { SourceRefresh } from "../../ports.ts";
import type { RunContext } from "../context.ts";

export async function refresh(context: RunContext): Promise<SourceRefresh[]> {
  const { deps, user } = context;
  const sources = deps.ports.sources;
  if (!sources.refresh) return [];
  const deadline = new Date(deps.clock.now().getTime() + deps.config.refreshDeadlineSeconds * 1000);
  let refreshed: SourceRefresh[];
  try {
    refreshed = await sources.refresh(user, deadline, (kinds) =>
      context.emit({ type: "refresh-start", sources: [...kinds] }),
    );
  } catch (error) {
    deps.logger.warn(
      { userId: user.id, runId: context.run.id, error: errorMessage(error) },
      "could not refresh sources; the briefing reads what is cached",
    );
    return [];
  }
  for (const source of refreshed) {
    context.emit({
      type: "refresh-end",
      source: source.source,
      status: source.status,
      ...(source.detail !== undefined ? { detail: source.detail } : {}),
    });
  }
  return refreshed;
}
