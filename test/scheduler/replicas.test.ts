/**
 * Two scheduler processes on one PostgreSQL database, each with its own connection pool, ticking at the
 * same moments: every (user, slot, date) must be claimed, generated and posted exactly once.
 */
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "../../db/client.ts";
import { briefingRuns, deliveries } from "../../db/schema/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { modelFor, startModel, startRig, telegramUser } from "./rig.ts";

describe("two scheduler instances on one PostgreSQL database", () => {
  let testDb: TestDatabase;
  let second: OpenDatabase;
  let ollama: OllamaTestServer;
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    second = await openDatabase({ databaseUrl: testDb.url, dataDir: "" });
    ollama = await startModel();
  });
  afterAll(async () => {
    await second?.close();
    await testDb?.dispose();
    await ollama?.close();
  });

  it("claims, generates and posts each run once", { timeout: 120_000 }, async () => {
    const dbA = testDb.open.db;
    const dbB = second.db;
    const slots = { morning: "07:00", midday: "12:30", afternoon: null, evening: null };
    const people = [];
    for (let index = 0; index < 24; index += 1) {
      people.push(
        await telegramUser(dbA, { slots, timeZone: index % 2 === 0 ? "Europe/London" : "Europe/Lisbon" }),
      );
    }
    const clock = fixedClock("2025-06-02T06:00:00Z"); // 07:00 in London and Lisbon
    const a = await startRig(dbA, clock, modelFor(ollama), { owner: "replica-a" });
    const b = await startRig(dbB, clock, modelFor(ollama), { owner: "replica-b" });

    const claimed = { a: 0, b: 0 };
    for (const at of [
      "2025-06-02T06:00:00Z",
      "2025-06-02T06:01:00Z",
      "2025-06-02T11:30:00Z",
      "2025-06-02T11:31:00Z",
    ]) {
      clock.set(at);
      const [reportA, reportB] = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
      claimed.a += reportA.claimed;
      claimed.b += reportB.claimed;
      // The fake clock jumps hours between rounds; let each round's briefings finish at their own time.
      await Promise.all([a.scheduler.drain(), b.scheduler.drain()]);
    }

    const ids = people.map((person) => person.user.id);
    const runs = await dbA.select().from(briefingRuns).where(inArray(briefingRuns.userId, ids));
    expect(runs).toHaveLength(48);
    expect(new Set(runs.map((run) => `${run.userId}|${run.slot}|${run.localDate}`)).size).toBe(48);
    expect(runs.every((run) => run.state === "delivered")).toBe(true);
    expect(claimed.a + claimed.b).toBe(48);
    expect(a.runner.calls.length + b.runner.calls.length).toBe(48);
    expect(new Set([...a.runner.calls, ...b.runner.calls]).size).toBe(48);

    const posted = [...a.sender.posted, ...b.sender.posted];
    expect(posted).toHaveLength(48);
    expect(new Set(posted.map((post) => post.message.runId)).size).toBe(48);
    const outbox = await dbA.select().from(deliveries).where(inArray(deliveries.userId, ids));
    expect(outbox.filter((row) => row.state === "sent")).toHaveLength(48);
    // Both replicas did real work: the claim key, not luck, kept them apart.
    const byInstance = await dbA.select().from(briefingRuns).where(eq(briefingRuns.claimedBy, "replica-a"));
    expect(byInstance.length).toBe(claimed.a);
  });
});
