/**
 * The whole scheduler (claims in the database, the real runner, delivery) ticked every minute through a
 * spring-forward and a fall-back day, for users in three zones: each slot exactly once, at local time.
 */
import { inArray } from "drizzle-orm";
import { DateTime } from "luxon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { User } from "../../db/schema/index.ts";
import { briefingRuns } from "../../db/schema/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { modelFor, startModel, startRig, telegramUser } from "./rig.ts";

const MINUTE = 60_000;

describe("scheduler across DST changes", () => {
  let testDb: TestDatabase;
  let ollama: OllamaTestServer;
  beforeAll(async () => {
    testDb = await createTestDatabase("pglite");
    ollama = await startModel();
  });
  afterAll(async () => {
    await testDb?.dispose();
    await ollama?.close();
  });

  // Ticks every five minutes (slot times here are multiples of five, so a tick lands on each slot minute;
  // per-minute ticking is covered by the pure walk in slot-time.test.ts) and returns what it posted.
  async function walk(from: string, hours: number) {
    const db = testDb.open.db;
    const clock = fixedClock(from);
    const rig = await startRig(db, clock, modelFor(ollama));
    for (let minute = 0; minute < hours * 60; minute += 5) {
      await rig.scheduler.tick();
      // Generation takes no fake time: the window check at delivery sees the claim minute.
      await rig.scheduler.drain();
      clock.advance(5 * MINUTE);
    }
    await rig.scheduler.drain();
    return rig.sender.posted;
  }

  async function runsOf(people: User[], posted: Array<{ message: { runId: number } }>) {
    const db = testDb.open.db;
    const runs = await db
      .select()
      .from(briefingRuns)
      .where(
        inArray(
          briefingRuns.userId,
          people.map((person) => person.id),
        ),
      );
    const zoneOf = new Map(people.map((person) => [person.id, person.timeZone]));
    const posts = new Map(posted.map((post) => [post.message.runId, post]));
    return runs.map((run) => ({
      key: `${run.userId}|${run.slot}|${run.localDate}`,
      state: run.state,
      localClaim: DateTime.fromJSDate(run.claimedAt, { zone: zoneOf.get(run.userId) ?? "UTC" }).toFormat(
        "yyyy-MM-dd HH:mm",
      ),
      posted: posts.has(run.id),
    }));
  }

  it("runs each slot once at local time on spring-forward and fall-back days in three zones", {
    timeout: 240_000,
  }, async () => {
    const db = testDb.open.db;
    const created = new Date("2024-01-01T00:00:00Z");
    const ny = (
      await telegramUser(db, {
        timeZone: "America/New_York",
        createdAt: created,
        slots: { morning: "07:00", midday: "12:30", afternoon: null, evening: "02:30" },
      })
    ).user;
    const london = (
      await telegramUser(db, {
        timeZone: "Europe/London",
        createdAt: created,
        slots: { morning: "07:00", midday: "12:30", afternoon: null, evening: "01:30" },
      })
    ).user;
    const sydney = (
      await telegramUser(db, {
        timeZone: "Australia/Sydney",
        createdAt: created,
        slots: { morning: "07:00", midday: "12:30", afternoon: null, evening: "02:30" },
      })
    ).user;
    const people = [ny, london, sydney];

    // New York springs forward on 9 March 2025 (02:00 → 03:00): its 02:30 slot runs at 03:00.
    const springPosts = await walk("2025-03-09T04:00:00Z", 18);
    const spring = await runsOf(people, springPosts);
    const nySpring = spring.filter(
      (run) => run.key.startsWith(`${ny.id}|`) && run.key.endsWith("2025-03-09"),
    );
    expect(nySpring.map((run) => `${run.key.split("|")[1]} ${run.localClaim}`).sort()).toEqual([
      "evening 2025-03-09 03:00",
      "midday 2025-03-09 12:30",
      "morning 2025-03-09 07:00",
    ]);

    // London falls back on 26 October 2025 (01:00–02:00 happens twice): its 01:30 slot runs once.
    const fallPosts = await walk("2025-10-25T23:00:00Z", 16);
    const all = await runsOf(people, [...springPosts, ...fallPosts]);
    const fall = all.filter((run) => run.key.endsWith("2025-10-26") || run.key.endsWith("2025-10-25"));
    const londonFall = fall.filter(
      (run) => run.key.startsWith(`${london.id}|`) && run.key.endsWith("2025-10-26"),
    );
    expect(londonFall.map((run) => `${run.key.split("|")[1]} ${run.localClaim}`).sort()).toEqual([
      "evening 2025-10-26 01:30",
      "midday 2025-10-26 12:30",
      "morning 2025-10-26 07:00",
    ]);

    // Exactly once per (user, slot, date), every one delivered, and nobody's slot at a wrong local time.
    expect(new Set(all.map((run) => run.key)).size).toBe(all.length);
    expect(all.filter((run) => run.state !== "delivered" && run.state !== "skipped")).toEqual([]);
    expect(all.filter((run) => run.state === "delivered" && !run.posted)).toEqual([]);
    for (const run of all.filter((one) => one.state === "delivered")) {
      const slot = run.key.split("|")[1];
      const time = run.localClaim.slice(11);
      if (slot === "morning") expect(time).toBe("07:00");
      if (slot === "midday") expect(time).toBe("12:30");
    }
    // Sydney: its 02:30 on an ordinary day, its morning, and slots before the walk began recorded as missed.
    const sydneyRuns = all.filter((run) => run.key.startsWith(`${sydney.id}|`));
    expect(sydneyRuns.find((run) => run.key.endsWith("|evening|2025-03-10"))).toMatchObject({
      state: "delivered",
      localClaim: "2025-03-10 02:30",
    });
    expect(sydneyRuns.find((run) => run.key.endsWith("|morning|2025-03-09"))?.state).toBe("skipped");
  });
});
