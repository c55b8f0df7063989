/**
 * Maintenance prunes idle rate-limit scopes (a row per chat ever sent to would pile up): a scope whose
 * arrival and pause are both older than the idle bound goes, a recent or still-paused one stays, a pruned
 * scope starts again full, and on PostgreSQL a row a sender holds locked right now is left alone.
 */
import { eq, sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { openDatabase } from "../../db/client.ts";
import { rateBuckets } from "../../db/schema/index.ts";
import { createRateBuckets } from "../../db/stores/index.ts";
import { describeEachDatabase, TEST_POSTGRES_URL } from "../helpers/database.ts";

const HOUR = 3_600_000;

describeEachDatabase("pruning idle rate buckets", (getDb, kind) => {
  const scopes = async () =>
    (await getDb().select({ scope: rateBuckets.scope }).from(rateBuckets)).map((row) => row.scope).sort();

  /** Sets a scope's instants relative to the database's now. */
  const setScope = (scope: string, arrivalAgoMs: number) =>
    createRateBuckets(getDb(), kind).change([scope], (_state, now) => ({
      writes: new Map([[scope, { arrival: now - arrivalAgoMs }]]),
      answer: undefined,
    }));

  it("drops scopes idle past the bound and keeps recent and paused ones", async () => {
    await setScope("t:idle", 2 * HOUR);
    await setScope("t:recent", 10 * 60_000);
    await setScope("t:paused", 2 * HOUR);
    // A scope's pause is a row of its own (pause:<scope>), written apart from its arrival's row.
    await createRateBuckets(getDb(), kind).pause(["t:paused"], 30 * 60_000);
    const pruned = await createRateBuckets(getDb(), kind).pruneIdle(HOUR);
    // The idle scope and the paused scope's idle arrival go; the pause itself and the recent scope stay.
    expect(pruned).toBe(2);
    expect(await scopes()).toEqual(["pause:t:paused", "t:recent"]);
    expect(await createRateBuckets(getDb(), kind).pausedFor("t:paused")).toBeGreaterThan(25 * 60_000);
  });

  it("a pruned scope is a full bucket again when next used", async () => {
    await setScope("t:again", 3 * HOUR);
    await createRateBuckets(getDb(), kind).pruneIdle(HOUR);
    const seen = await createRateBuckets(getDb(), kind).change(["t:again"], (state) => ({
      writes: new Map(),
      answer: state.get("t:again"),
    }));
    // The row is made afresh: '-infinity' arrival, no pause — nothing the pruned row held survives.
    expect(seen).toEqual({ arrival: 0, pausedUntil: 0 });
  });

  // PGlite has one connection: no second sender can hold a row locked meanwhile, so this is PostgreSQL's.
  it.runIf(kind === "postgres")(
    "leaves a row a sender holds locked, and prunes it once released",
    async () => {
      await setScope("t:held", 2 * HOUR);
      // A second pool on the suite's database: another process's sender.
      const other = await openDatabase({ databaseUrl: await suiteUrl(), dataDir: "" });
      try {
        let release: () => void = () => {};
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked: () => void = () => {};
        const isLocked = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const holding = other.db.transaction(async (tx) => {
          await tx.select().from(rateBuckets).where(eq(rateBuckets.scope, "t:held")).for("update");
          locked();
          await released;
        });
        await isLocked;
        await createRateBuckets(getDb(), kind).pruneIdle(HOUR);
        expect(await scopes()).toContain("t:held");
        release();
        await holding;
        await createRateBuckets(getDb(), kind).pruneIdle(HOUR);
        expect(await scopes()).not.toContain("t:held");
      } finally {
        await other.close();
      }
    },
  );

  /** The suite's own database, as a URL another pool can open. */
  async function suiteUrl(): Promise<string> {
    const result = await getDb().execute<{ name: string }>(sql`select current_database() as name`);
    const rows = (Array.isArray(result) ? result : (result as { rows: { name: string }[] }).rows) as {
      name: string;
    }[];
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${rows[0]?.name ?? ""}`;
    return url.toString();
  }
});
