/**
 * The soak suite's short form (the long form is `npm run soak`): the compiled binary of each mode at once,
 * for a minute and more each, through a graceful restart, a `kill -9` and a platform outage, with
 * production timers. What must hold for a bot that runs for days: never two polls at once, no error-level
 * line while the platform is healthy, `/healthz` 200 except in the outage (503 there, 200 again by itself)
 * and across the restarts, and every slot that fell due delivered exactly once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runSoak, type SoakMode, type SoakResult } from "./soak.ts";

// Every mode has the account users (test/soak/accounts.ts): the briefing and sync checks are the same
// everywhere, and the chat ask reaches the bot through each platform's own way in.
const MODES: SoakMode[] = ["telegram-polling", "telegram-webhook", "slack-http", "slack-socket"];
const results = new Map<SoakMode, SoakResult>();

describe("the real process for minutes, every mode at once", { timeout: 420_000 }, () => {
  beforeAll(async () => {
    const done = await Promise.all(
      MODES.map((mode) => runSoak({ mode, durationMs: 60_000, outageMs: 20_000 })),
    );
    for (const result of done) results.set(result.mode, result);
  }, 420_000);

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
      const accounts = result.accounts;
      if (!accounts) throw new Error("the run had no account users");
      // Three seeded users with three slots each, the slot the CLI moved, the user it added, and the
      // account users' slots (one before the other client's first round and one after each round).
      expect(accounts.slots).toBeGreaterThanOrEqual(4);
      expect(result.slotsDue).toBe(11 + accounts.slots);
      expect(result.missing).toEqual([]);
      expect(result.duplicates).toBe(0);

      // Each briefing of the account users shows the servers as of its slot; the chat completion is on
      // both servers; no password, token or key in any log line, CLI output or /metrics answer.
      expect(accounts.briefings.wrong).toEqual([]);
      expect(accounts.briefings.correct).toBe(accounts.slots);
      expect(accounts.writeThroughs).toEqual({ asked: 2, onServer: 2, failures: [] });
      expect(accounts.secretsSeen).toEqual([]);
      // Incremental at the wire: every sync with nothing changed since the one before is one read-sync
      // request per collection and fetches no object (the long form's rule too). How many quiet syncs a
      // minute holds depends on where the 30 s sync lands between the other client's rounds, so only their
      // sum over both accounts must be above 0.
      const syncs = [accounts.caldav, accounts.todoist];
      for (const sync of syncs) {
        expect(sync.requestsPerQuietSync.filter((requests) => requests !== sync.collections)).toEqual([]);
        expect(sync.objectsInQuietSyncs).toBe(0);
      }
      expect(accounts.caldav.quietSyncs + accounts.todoist.quietSyncs).toBeGreaterThan(0);
      // Bounded: the process with the accounts stays where the soak without them did (244–250 MB).
      expect(result.peakRssMb).toBeLessThan(400);
    });
  }
});
