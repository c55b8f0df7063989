/**
 * After repeated `kill -9` of the only process on the embedded database while slots fall due, the next
 * start takes back every run an earlier process left claimed or generating: each (user, slot, date) is
 * claimed once, none is left in `generating`, and no chat gets a briefing twice. (How long it takes is a
 * figure, printed by `npm run bench`: bench/orphans.ts.)
 */
import { expect, it } from "vitest";
import { runKillLoop } from "./kill-loop.ts";

it("leaves no run stuck in generating and none doubled after repeated kill -9 on the embedded database", {
  timeout: 300_000,
}, async () => {
  const result = await runKillLoop({
    users: 10,
    slots: 2,
    killForMs: 30_000,
    minKills: 4,
    lifeMs: [300, 2500],
    modelMs: 1500,
  });

  // The last kill found work in progress: there was something to take back.
  expect(result.atLastKill.generating + result.atLastKill.claimed).toBeGreaterThan(0);
  expect(result.final.runs).toBe(result.expectedRuns);
  expect(result.distinctKeys).toBe(result.final.runs);
  expect(result.final.generating + result.final.claimed + result.final.generated + result.final.other).toBe(
    0,
  );
  expect(result.duplicates).toBe(0);
  // Nothing lost silently: a run that was not delivered says why (a send cut off mid-flight is not re-sent).
  expect(result.final.delivered + result.final.failed).toBe(result.final.runs);
  expect([...result.failedReasons.keys()].filter((reason) => !reason.includes("interrupted"))).toEqual([]);
});
