/**
 * A /settings change as the real scheduler sees it: the core's Settings changes a user's slot, the
 * scheduler (claims in the database, the real runner, delivery) is ticked through time, and the run lands
 * at the new local time the confirmation named, across spring-forward and fall-back days; a change made
 * after today's slot ran never brings a second briefing that day.
 */
import { and, eq } from "drizzle-orm";
import { DateTime } from "luxon";
import { afterAll, beforeAll, expect, it } from "vitest";
import { briefingRuns } from "../../db/schema/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { testCore } from "../core/fixture.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { modelFor, type Rig, startModel, startRig, telegramUser } from "./rig.ts";

const MINUTE = 60_000;

describeEachDatabase("settings changes through the scheduler", (getDb) => {
  let ollama: OllamaTestServer;
  beforeAll(async () => {
    ollama = await startModel();
  });
  afterAll(async () => {
    await ollama?.close();
  });

  async function setUp(start: string) {
    const db = getDb();
    const clock = fixedClock(start);
    const model = modelFor(ollama);
    const rig = await startRig(db, clock, model);
    const { settings } = testCore(db, model, { clock });
    return { db, clock, rig, settings };
  }

  /** Ticks every `stepMinutes` until `until`, letting each claimed run finish before the next tick. */
  async function walk(rig: Rig, clock: ReturnType<typeof fixedClock>, until: string, stepMinutes = 15) {
    const end = new Date(until).getTime();
    while (clock.now().getTime() <= end) {
      await rig.scheduler.tick();
      await rig.scheduler.drain();
      clock.advance(stepMinutes * MINUTE);
    }
  }

  async function morningRuns(userId: number) {
    return getDb()
      .select()
      .from(briefingRuns)
      .where(and(eq(briefingRuns.userId, userId), eq(briefingRuns.slot, "morning")));
  }

  it("runs the next morning at the new local time over New York's spring-forward", {
    timeout: 120_000,
  }, async () => {
    // Saturday 8 March 2025, 12:00 in New York (EST); clocks jump 02:00 → 03:00 that night.
    const { db, clock, rig, settings } = await setUp("2025-03-08T17:00:00Z");
    const { user } = await telegramUser(db, { timeZone: "America/New_York" });
    await settings.handle(user.id, "midday off");
    await settings.handle(user.id, "afternoon off");
    const reply = await settings.handle(user.id, "morning 06:45");
    expect(reply.text).toBe(
      "Morning briefing at 06:45 (America/New_York).\nnext morning briefing: Sun 06:45",
    );

    await walk(rig, clock, "2025-03-09T12:00:00Z");
    const sunday = (await morningRuns(user.id)).filter((run) => run.localDate === "2025-03-09");
    expect(sunday).toHaveLength(1);
    // 06:45 EDT (UTC−4) after the jump, not 06:45 EST.
    expect(sunday[0]?.claimedAt.toISOString()).toBe("2025-03-09T10:45:00.000Z");
    expect(sunday[0]?.state).toBe("delivered");
    expect(rig.sender.posted.filter((post) => post.message.runId === sunday[0]?.id)).toHaveLength(1);
  });

  it("runs a 01:30 morning once, at its first occurrence, on Lisbon's fall-back night", {
    timeout: 120_000,
  }, async () => {
    // Saturday 25 October 2025, 12:00 in Lisbon (WEST); 02:00 → 01:00 that night, so 01:30 happens twice.
    const { db, clock, rig, settings } = await setUp("2025-10-25T11:00:00Z");
    const { user } = await telegramUser(db, {
      timeZone: "Europe/Lisbon",
      slots: { morning: "07:00", midday: null, afternoon: null, evening: null },
    });
    const reply = await settings.handle(user.id, "morning 01:30");
    expect(reply.text.split("\n")[1]).toBe("next morning briefing: Sun 01:30");

    clock.set("2025-10-26T00:00:00Z");
    await walk(rig, clock, "2025-10-26T03:00:00Z");
    const sunday = (await morningRuns(user.id)).filter((run) => run.localDate === "2025-10-26");
    expect(sunday.map((run) => run.claimedAt.toISOString())).toEqual(["2025-10-26T00:30:00.000Z"]);
  });

  it("brings no second briefing today when the slot moves after it ran; tomorrow's comes at the new time", {
    timeout: 120_000,
  }, async () => {
    // Monday 2 June 2025, 06:30 in London (BST).
    const { db, clock, rig, settings } = await setUp("2025-06-02T05:30:00Z");
    const { user } = await telegramUser(db, {
      timeZone: "Europe/London",
      slots: { morning: "07:00", midday: null, afternoon: null, evening: null },
    });
    await walk(rig, clock, "2025-06-02T06:15:00Z");
    expect((await morningRuns(user.id)).map((run) => run.state)).toEqual(["delivered"]);

    // 07:30: today's 07:00 ran. Moving it to 08:00 must not make 08:00 today a second morning.
    clock.set("2025-06-02T06:30:00Z");
    const reply = await settings.handle(user.id, "morning 08:00");
    expect(reply.text.split("\n")[1]).toBe("next morning briefing: Tue 08:00");
    await walk(rig, clock, "2025-06-02T09:00:00Z");
    expect((await morningRuns(user.id)).filter((run) => run.localDate === "2025-06-02")).toHaveLength(1);

    clock.set("2025-06-03T06:30:00Z");
    await walk(rig, clock, "2025-06-03T07:30:00Z");
    const tuesday = (await morningRuns(user.id)).filter((run) => run.localDate === "2025-06-03");
    expect(tuesday).toHaveLength(1);
    expect(
      DateTime.fromJSDate(tuesday[0]?.claimedAt ?? new Date(0), { zone: "Europe/London" }).toFormat(
        "ccc HH:mm",
      ),
    ).toBe("Tue 08:00");
  });
});
