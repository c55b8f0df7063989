/** The counts `/metrics` reads from the database at every scrape. */
import type { Database } from "../client.ts";
import { countDeliveriesByState } from "../queries/deliveries.ts";
import { groundingFigures } from "../queries/grounding.ts";
import { countRunsByState, countToolCallsByTool, groundingTotals } from "../queries/schedule.ts";

export function createMetricsReadings(db: Database) {
  return {
    runsByState: () => countRunsByState(db),
    deliveriesByState: () => countDeliveriesByState(db),
    toolCallsByTool: () => countToolCallsByTool(db),
    groundingTotals: () => groundingTotals(db),
    groundingFigures: () => groundingFigures(db),
  };
}
