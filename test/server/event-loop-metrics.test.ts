/** `/metrics` reports the worst event-loop stall since the previous scrape, and forgets it once scraped. */
import { expect, it } from "vitest";
import { createMetrics } from "../../src/server/metrics.ts";

const empty = async () => [];
const readings = {
  runsByState: empty,
  deliveriesByState: empty,
  toolCallsByTool: empty,
  groundingTotals: empty,
  groundingFigures: empty,
};

const delay = (body: string) =>
  Number(/^briefbot_event_loop_delay_max_seconds (\S+)$/m.exec(body)?.[1] ?? Number.NaN);

it("shows a one-second stall at the next scrape, and not at the one after", async () => {
  const metrics = createMetrics({ readings });
  // Let the monitor's timer run once, so the stall below is measured from a sample before it.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const stallUntil = Date.now() + 1_000;
  while (Date.now() < stallUntil) {
    // The event loop is blocked, as a long synchronous job would block it.
  }
  await new Promise((resolve) => setTimeout(resolve, 50));

  const first = delay((await metrics.render()).body);
  expect(first).toBeGreaterThanOrEqual(0.9);
  const second = delay((await metrics.render()).body);
  expect(second).toBeLessThan(first);
});
