/**
 * The rate-limit stores keep one contract: a take is all or none, a pause only ever lengthens, and — for
 * the database store every replica shares — two processes taking from one scope at once never both get
 * the same slot. The memory store runs the same checks as the stores on PGlite and PostgreSQL.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "../../db/client.ts";
import { rateBuckets } from "../../db/schema/index.ts";
import { createRateBuckets } from "../../db/stores/index.ts";
import {
  createMemoryRateLimitStore,
  createSharedRateLimitStore,
  type RateLimitStore,
} from "../../src/delivery/rate-limits.ts";
import { createTestDatabase, describeEachDatabase, type TestDatabase } from "../helpers/database.ts";

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

    it("holds every process's takes while one process's pause lasts", async () => {
      const [first, second] = makeStores();
      const [token, chat] = [fresh("token"), fresh("chat")];
      await first.pause([token, chat], MINUTE);
      const refused = await second.take([{ scope: token, intervalMs: 1 }]);
      expect(refused).toMatchObject({ ok: false, scope: token, reason: "pause" });
      expect(await second.pausedFor(chat)).toBeGreaterThan(MINUTE / 2);
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

    it("lends a scope's send lease to one holder at a time, in the order asked, whichever process", async () => {
      const [first, second] = makeStores();
      const scope = fresh("lease");
      const events: string[] = [];
      const held = await first.hold(scope, MINUTE);
      const next = second.hold(scope, MINUTE).then((release) => {
        events.push("second holds");
        return release;
      });
      const last = first.hold(scope, MINUTE).then((release) => {
        events.push("third holds");
        return release;
      });
      // Time enough for a lease that did not wait to be granted.
      await new Promise((resolve) => setTimeout(resolve, 100));
      events.push("first lets go");
      await held();
      await (await next)();
      await (await last)();
      expect(events).toEqual(["first lets go", "second holds", "third holds"]);
      // Another scope's lease was never in the way.
      await (await second.hold(fresh("other lease"), MINUTE))();
    });

    it("shows the next holder a pause stored before the lease was let go", async () => {
      const [first, second] = makeStores();
      const scope = fresh("lease");
      const held = await first.hold(scope, MINUTE);
      const next = second.hold(scope, MINUTE);
      await first.pause(scope, MINUTE);
      await held();
      const release = await next;
      expect(await second.take([{ scope, intervalMs: 1 }])).toMatchObject({ ok: false, reason: "pause" });
      await release();
    });

    it("lets a lease go by itself once its holder has kept it for forMs", async () => {
      const [first, second] = makeStores();
      const scope = fresh("lease");
      const forgotten = await first.hold(scope, 200);
      const release = await second.hold(scope, MINUTE);
      await release();
      await forgotten();
    });
  });
}

// One memory store is one process: "two processes" on it are the same store twice.
storeContract("memory rate-limit store", () => {
  const store = createMemoryRateLimitStore();
  return [store, store];
});

describe("database rate-limit store under load [postgres]", () => {
  let testDb: TestDatabase;
  let other: OpenDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    other = await openDatabase({ databaseUrl: testDb.url, dataDir: "" });
  });
  afterAll(async () => {
    await other?.close();
    await testDb?.dispose();
  });

  // In a rush every replica's takes queue for the token's row lock; a 429's pause queued there too took
  // over a second, while the other replicas kept sending into it.
  it("records a pause at once while another process's take holds the scope's lock", async () => {
    const scope = `token:${process.pid}:${Date.now()}`;
    const store = createSharedRateLimitStore(createRateBuckets(testDb.open.db, "postgres"));
    expect(await store.take([{ scope, intervalMs: 1 }])).toEqual({ ok: true });
    let paused = false;
    let pausedWhileLocked = false;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = other.db.transaction(async (tx) => {
      await tx.select().from(rateBuckets).where(eq(rateBuckets.scope, scope)).for("update");
      locked();
      await released;
      pausedWhileLocked = paused;
    });
    await lockTaken;
    const pause = store.pause(scope, MINUTE).then(() => {
      paused = true;
      release();
    });
    // A pause that waited for the lock would never resolve before it is let go: give up after a while.
    const gaveUp = setTimeout(release, 15_000);
    await Promise.all([holder, pause]);
    clearTimeout(gaveUp);
    expect(pausedWhileLocked).toBe(true);
    // And the take that comes after the lock is let go sees it.
    expect(await store.take([{ scope, intervalMs: 1 }])).toMatchObject({ ok: false, reason: "pause" });
  });

  // Every waiter at PostgreSQL's lock holds a pooled connection: fourteen chats typing at once would take
  // the whole pool (10), and the holder's own read under the lease — its heartbeat's too — would wait for
  // a connection that never comes free. The store queues its own process's holders in front of the lock.
  it("keeps one pooled connection at the lock however many of its requests wait for the lease", async () => {
    const scope = `crowd:${process.pid}:${Date.now()}`;
    const store = createSharedRateLimitStore(createRateBuckets(other.db, "postgres"));
    const waitingAtTheLock = async () => {
      const rows = (await testDb.open.db.execute(
        sql`select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
      )) as unknown as Array<{ waiting: number }>;
      return rows[0]?.waiting ?? 0;
    };
    const first = await store.hold(scope, MINUTE);
    const served: number[] = [];
    const crowd = Array.from({ length: 14 }, async (_, index) => {
      const release = await store.hold(scope, MINUTE);
      // What a holder does under the lease: read the scope's pause, on the same pool.
      await store.pausedFor(scope);
      served.push(index);
      await release();
    });
    // Time for the crowd to reach the lock, were it let through.
    let waiting = 0;
    for (let look = 0; look < 15 && waiting < 2; look += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      waiting = await waitingAtTheLock();
    }
    expect(waiting).toBeLessThanOrEqual(1);
    // The pool is not dry: the holder's own reads still go through.
    expect(await store.pausedFor(scope)).toBe(0);
    await first();
    await Promise.all(crowd);
    expect(served).toHaveLength(14);
  });

  // kill -9 of a replica mid-send: its connection closes, and the token must not stay leased.
  it("lets a send lease go the moment its holder's connection dies", async () => {
    const scope = `lease:${process.pid}:${Date.now()}`;
    const dying = await openDatabase({ databaseUrl: testDb.url, dataDir: "" });
    const doomed = createSharedRateLimitStore(createRateBuckets(dying.db, "postgres"));
    const survivor = createSharedRateLimitStore(createRateBuckets(other.db, "postgres"));
    await doomed.hold(scope, 10 * MINUTE);
    // Postgres.js answers a raw query with the rows themselves.
    const holders = (await testDb.open.db.execute(
      sql`select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`,
    )) as unknown as Array<{ pid: number }>;
    expect(holders).toHaveLength(1);
    const [holder] = holders;
    let granted = false;
    const next = survivor.hold(scope, MINUTE).then((release) => {
      granted = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(granted).toBe(false);
    await testDb.open.db.execute(sql`select pg_terminate_backend(${holder?.pid ?? 0})`);
    await (await next)();
    await dying.close().catch(() => undefined);
  });
});

describeEachDatabase("database rate-limit store", (getDb, kind) => {
  storeContract("shared by every process on the database", () => [
    createSharedRateLimitStore(createRateBuckets(getDb(), kind)),
    createSharedRateLimitStore(createRateBuckets(getDb(), kind)),
  ]);
});
