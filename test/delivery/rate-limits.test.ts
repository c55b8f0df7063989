/**
 * The rate-limit stores keep one contract: a take is all or none, a pause only ever lengthens, and — for
 * the database store every replica shares — two processes taking from one scope at once never both get
 * the same slot. The memory store runs the same checks as the stores on PGlite and PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import { createRateBuckets } from "../../db/stores/index.ts";
import {
  createMemoryRateLimitStore,
  createSharedRateLimitStore,
  type RateLimitStore,
} from "../../src/delivery/rate-limits.ts";
import { describeEachDatabase } from "../helpers/database.ts";

/** Long enough that no slow machine lets a second slot come free during one check. */
const MINUTE = 60_000;

function storeContract(name: string, makeStores: () => [RateLimitStore, RateLimitStore]) {
  describe(name, () => {
    let counter = 0;
    const fresh = (what: string) => {
      counter += 1;
      return `${what}:${process.pid}:${Date.now()}:${counter}`;
    };

    it("takes one slot per interval from every scope, or from none", async () => {
      const [store] = makeStores();
      const [first, second, chat] = [fresh("token"), fresh("token"), fresh("chat")];
      expect(
        await store.take([
          { scope: first, intervalMs: MINUTE },
          { scope: chat, intervalMs: MINUTE },
        ]),
      ).toEqual({
        ok: true,
      });
      const refused = await store.take([
        { scope: second, intervalMs: MINUTE },
        { scope: chat, intervalMs: MINUTE },
      ]);
      expect(refused).toMatchObject({ ok: false, scope: chat, reason: "pace" });
      expect(refused.ok ? 0 : refused.waitMs).toBeGreaterThan(MINUTE - 5_000);
      // The refused take left the other token's slot alone: it is still free.
      expect(await store.take([{ scope: second, intervalMs: MINUTE }])).toEqual({ ok: true });
      expect(await store.take([{ scope: first, intervalMs: MINUTE }])).toMatchObject({
        ok: false,
        scope: first,
      });
    });

    it("allows a burst, then the pace", async () => {
      const [store] = makeStores();
      const scope = fresh("burst");
      const rule = [{ scope, intervalMs: MINUTE, burst: 3 }];
      const outcomes = [];
      for (let index = 0; index < 4; index += 1) outcomes.push((await store.take(rule)).ok);
      expect(outcomes).toEqual([true, true, true, false]);
    });

    it("pauses a scope for the longest pause it was given", async () => {
      const [store] = makeStores();
      const scope = fresh("paused");
      await store.pause(scope, 3 * MINUTE);
      await store.pause(scope, MINUTE);
      expect(await store.pausedFor(scope)).toBeGreaterThan(2 * MINUTE);
      expect(await store.take([{ scope, intervalMs: 1 }])).toMatchObject({
        ok: false,
        scope,
        reason: "pause",
      });
      expect(await store.pausedFor(fresh("never"))).toBe(0);
    });

    it("gives one slot to exactly one of two processes taking at once", async () => {
      const [first, second] = makeStores();
      const scope = fresh("shared");
      const rule = [{ scope, intervalMs: MINUTE }];
      const outcomes = await Promise.all([
        ...Array.from({ length: 5 }, () => first.take(rule)),
        ...Array.from({ length: 5 }, () => second.take(rule)),
      ]);
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    });
  });
}

// One memory store is one process: "two processes" on it are the same store twice.
storeContract("memory rate-limit store", () => {
  const store = createMemoryRateLimitStore();
  return [store, store];
});

describeEachDatabase("database rate-limit store", (getDb) => {
  storeContract("shared by every process on the database", () => [
    createSharedRateLimitStore(createRateBuckets(getDb())),
    createSharedRateLimitStore(createRateBuckets(getDb())),
  ]);
});
