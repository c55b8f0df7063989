/**
 * What a receipt says about the age of its data when a subscription could not be refreshed: the last good
 * events or items are still shown, with when they were fetched, so the model can say how old they are.
 * Error texts stay out (they can carry a calendar's secret address); the operator's log has them.
 */
import type { SourceHealth } from "../ports.ts";
import type { ToolContext } from "./define-tool.ts";
import { asOfStamp } from "./format.ts";

const LABEL: Record<SourceHealth["kind"], string> = { calendar: "Calendar", feed: "Feed" };

/** One sentence per calendar (or feed) of the user whose data is not current; undefined when all are. */
export async function staleSourcesNote(
  context: ToolContext,
  kind: SourceHealth["kind"],
): Promise<string | undefined> {
  const health = (await context.sources.health?.(context.user.id)) ?? [];
  const now = context.clock.now();
  const lines = health
    .filter((source) => source.kind === kind && (source.lastError !== null || source.lastSuccessAt === null))
    .map((source) => {
      const name = `${LABEL[kind]} "${source.name.trim() || `${kind} ${source.id}`}"`;
      if (source.lastSuccessAt === null) {
        return source.lastError === null
          ? `${name} has not been fetched yet, so nothing from it is shown.`
          : `${name} has never been fetched successfully, so nothing from it is shown.`;
      }
      return `${name} could not be refreshed; what it shows is as of ${asOfStamp(source.lastSuccessAt, context.user.timeZone, now)}.`;
    });
  return lines.length > 0 ? lines.join(" ") : undefined;
}
