/**
 * Step 1: bring the user's stale sources up to date before the model looks. A no-op until `Sources` can
 * refresh (issue 11); a refresh that fails costs the briefing fresh data, never the briefing.
 */
import { errorMessage } from "../../errors.ts";
import type { SourceRefresh } from "../../ports.ts";
import type { RunContext } from "../context.ts";

/** How long a briefing waits for its sources before going ahead with what is cached. */
const REFRESH_BUDGET_MS = 15_000;

export async function refresh(context: RunContext): Promise<SourceRefresh[]> {
  const { deps, user } = context;
  const sources = deps.ports.sources;
  if (!sources.refresh) return [];
  const deadline = new Date(deps.clock.now().getTime() + REFRESH_BUDGET_MS);
  let refreshed: SourceRefresh[];
  try {
    refreshed = await sources.refresh(user, deadline);
  } catch (error) {
    deps.logger.warn(
      { userId: user.id, runId: context.run.id, error: errorMessage(error) },
      "could not refresh sources; the briefing reads what is cached",
    );
    return [];
  }
  for (const source of refreshed) {
    context.emit({
      type: "refresh",
      source: source.source,
      status: source.status,
      ...(source.detail !== undefined ? { detail: source.detail } : {}),
    });
  }
  return refreshed;
}
