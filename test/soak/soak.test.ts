/**
 * The soak suite's short form (the long form is `npm run soak`): the compiled binary of each mode at once,
 * for a minute and more each, through a graceful restart, a `kill -9` and a platform outage, with
 * production timers. What must hold for a bot that runs for days: never two polls at once, no error-level
 * line while the platform is healthy, `/healthz` 200 except in the outage (503 there, 200 again by itself)
 * and across the restarts, and every slot that fell due delivered exactly once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runSoak, type SoakMode, type SoakResult } from "./soak.ts";

const MODES: SoakMode[] = ["telegram-polling", "telegram-webhook", "slack-http", "slack-socket"];
const results = new Map<SoakMode, SoakResult>();

describe("the real process for minutes, every mode at once", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    const done = await Promise.all(
      MODES.map((mode) => runSoak({ mode, durationMs: 60_000, outageMs: 20_000 })),
    );
    for (const result of done) results.set(result.mode, result);
  }, 300_000);

  for (const mode of MODES) {
    it(`${mode}: one poller, no error line, true health, every slot once`, () => {
      const result = results.get(mode) as SoakResult;
      console.info(
        `${mode}: ${result.minutesRun.toFixed(1)} min, ${result.slotsDelivered}/${result.slotsDue} slots, ` +
          `${result.samples} samples, outage ${(result.outage.ms / 1000).toFixed(0)} s, ` +
          `peak RSS ${result.peakRssMb.toFixed(0)} MB, worst loop delay ${(result.worstLoopDelaySeconds * 1000).toFixed(0)} ms, ` +
          `slowest /healthz ${result.slowestHealthMs} ms` +
          `\n  ${result.timeline.join("\n  ")}`,
      );
      expect(result.restarts).toEqual({ graceful: 1, killed: 1 });
      expect(result.stopCodes).toEqual([0, 0]);
      expect(result.overlappingPolls).toBe(0);
      expect(result.errorLines).toEqual([]);
      expect(result.healthySamples).toBeGreaterThan(10);
      expect(result.unhealthy).toEqual([]);
      expect(result.outage).toMatchObject({ seen503: true, recovered: true });
      // Three seeded users with three slots each, the slot the CLI moved, and the user it added.
      expect(result.slotsDue).toBe(11);
      expect(result.missing).toEqual([]);
      expect(result.duplicates).toBe(0);
    });
  }
});
