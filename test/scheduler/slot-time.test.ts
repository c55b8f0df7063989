import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import type { SlotTimes } from "../../db/schema/users.ts";
import {
  dueSlots,
  missedSlots,
  type SchedulableUser,
  slotInstant,
  upcomingSlots,
} from "../../src/scheduler/slot-time.ts";

const local = (instant: Date, zone: string) =>
  DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-MM-dd HH:mm ZZ");

function user(id: number, timeZone: string, slots: Partial<SlotTimes>): SchedulableUser {
  return {
    id,
    timeZone,
    slots: { morning: "07:00", midday: "12:30", afternoon: "16:30", evening: null, ...slots },
    createdAt: new Date("2000-01-01T00:00:00Z"),
  };
}

/** Ticks every minute from `from` for `hours`, claiming each due (user, slot, date) the first time it is due. */
function walk(users: SchedulableUser[], from: string, hours: number) {
  const claims = new Map<string, Date[]>();
  const start = Date.parse(from);
  for (let minute = 0; minute <= hours * 60; minute += 1) {
    const now = new Date(start + minute * 60_000);
    for (const due of dueSlots(users, now)) {
      const key = `${due.userId}|${due.slot}|${due.localDate}`;
      const seen = claims.get(key);
      if (!seen) claims.set(key, [now]);
    }
  }
  return claims;
}

describe("slotInstant", () => {
  it("moves a wall time inside the spring-forward gap to the end of the gap", () => {
    expect(local(slotInstant("2025-03-09", "02:30", "America/New_York"), "America/New_York")).toBe(
      "2025-03-09 03:00 -04:00",
    );
    expect(local(slotInstant("2025-03-30", "01:30", "Europe/London"), "Europe/London")).toBe(
      "2025-03-30 02:00 +01:00",
    );
    expect(local(slotInstant("2025-10-05", "02:15", "Australia/Sydney"), "Australia/Sydney")).toBe(
      "2025-10-05 03:00 +11:00",
    );
    // Lord Howe moves its clocks by 30 minutes: the gap is 02:00–02:30.
    expect(local(slotInstant("2025-10-05", "02:15", "Australia/Lord_Howe"), "Australia/Lord_Howe")).toBe(
      "2025-10-05 02:30 +11:00",
    );
  });

  it("picks the first of a repeated fall-back wall time", () => {
    expect(slotInstant("2025-11-02", "01:30", "America/New_York").toISOString()).toBe(
      "2025-11-02T05:30:00.000Z",
    );
    expect(slotInstant("2025-10-26", "01:30", "Europe/London").toISOString()).toBe(
      "2025-10-26T00:30:00.000Z",
    );
    expect(slotInstant("2025-04-06", "02:30", "Australia/Sydney").toISOString()).toBe(
      "2025-04-05T15:30:00.000Z",
    );
  });

  it("leaves ordinary wall times alone", () => {
    expect(slotInstant("2025-06-01", "07:00", "Asia/Kolkata").toISOString()).toBe("2025-06-01T01:30:00.000Z");
  });
});

describe("dueSlots, minute by minute", () => {
  it("gives each user each slot once, at local time, on both DST changes in three zones", () => {
    const users = [
      user(1, "America/New_York", { evening: "02:30" }),
      user(2, "Europe/London", { evening: "01:30" }),
      user(3, "Australia/Sydney", { evening: "02:30" }),
    ];
    const cases: Array<{
      from: string;
      zone: string;
      userId: number;
      date: string;
      expected: Record<string, string>;
    }> = [
      // Spring forward.
      {
        from: "2025-03-09T04:00:00Z",
        zone: "America/New_York",
        userId: 1,
        date: "2025-03-09",
        expected: { evening: "03:00", morning: "07:00", midday: "12:30", afternoon: "16:30" },
      },
      {
        from: "2025-03-29T23:00:00Z",
        zone: "Europe/London",
        userId: 2,
        date: "2025-03-30",
        expected: { evening: "02:00", morning: "07:00", midday: "12:30", afternoon: "16:30" },
      },
      {
        from: "2025-10-04T13:00:00Z",
        zone: "Australia/Sydney",
        userId: 3,
        date: "2025-10-05",
        expected: { evening: "03:00", morning: "07:00", midday: "12:30", afternoon: "16:30" },
      },
      // Fall back.
      {
        from: "2025-11-02T04:00:00Z",
        zone: "America/New_York",
        userId: 1,
        date: "2025-11-02",
        // 02:30 exists once on this day (01:00–02:00 repeats); London and Sydney below hit the repeat.
        expected: { evening: "02:30", morning: "07:00", midday: "12:30", afternoon: "16:30" },
      },
      {
        from: "2025-10-25T23:00:00Z",
        zone: "Europe/London",
        userId: 2,
        date: "2025-10-26",
        expected: { evening: "01:30", morning: "07:00", midday: "12:30", afternoon: "16:30" },
      },
      {
        from: "2025-04-05T13:00:00Z",
        zone: "Australia/Sydney",
        userId: 3,
        date: "2025-04-06",
        expected: { evening: "02:30", morning: "07:00", midday: "12:30", afternoon: "16:30" },
      },
    ];
    for (const testCase of cases) {
      const claims = walk(users, testCase.from, 26);
      const mine = [...claims.entries()].filter(
        ([key]) => key.startsWith(`${testCase.userId}|`) && key.endsWith(testCase.date),
      );
      const times = Object.fromEntries(
        mine.map(([key, at]) => [
          key.split("|")[1],
          at.map((instant) => DateTime.fromJSDate(instant, { zone: testCase.zone }).toFormat("HH:mm")),
        ]),
      );
      expect(times, `${testCase.zone} ${testCase.date}`).toEqual(
        Object.fromEntries(Object.entries(testCase.expected).map(([slot, time]) => [slot, [time]])),
      );
    }
  });

  it("keeps a slot due until its not-after, then reports it missed", () => {
    const users = [user(1, "Europe/Paris", {})];
    const at = (iso: string) => new Date(iso);
    expect(dueSlots(users, at("2025-06-02T05:00:00Z")).map((due) => due.slot)).toEqual(["morning"]);
    expect(dueSlots(users, at("2025-06-02T06:30:00Z")).map((due) => due.slot)).toEqual(["morning"]);
    expect(dueSlots(users, at("2025-06-02T06:31:00Z"))).toEqual([]);
    expect(
      missedSlots(users, at("2025-06-02T06:31:00Z")).map((due) => `${due.slot} ${due.localDate}`),
    ).toContain("morning 2025-06-02");
    expect(dueSlots(users, at("2025-06-02T05:20:00Z"), { staleAfterMinutes: 10 })).toEqual([]);
  });

  it("counts only windows that closed today, in the user's zone", () => {
    const users = [user(1, "UTC", { evening: "23:30" })];
    // 00:45: yesterday's 23:30 window is still open; at 01:05 it closed today, so it is missed.
    expect(dueSlots(users, new Date("2025-06-03T00:45:00Z")).map((slot) => slot.slot)).toEqual(["evening"]);
    const missed = missedSlots(users, new Date("2025-06-03T01:05:00Z"));
    expect(missed.map((slot) => `${slot.slot} ${slot.localDate}`)).toEqual(["evening 2025-06-02"]);
    // Yesterday's morning is history, not catch-up; only the window that closed after midnight counts.
    expect(
      missedSlots(users, new Date("2025-06-03T08:31:00Z")).map((slot) => `${slot.slot} ${slot.localDate}`),
    ).toEqual(["evening 2025-06-02", "morning 2025-06-03"]);
  });

  it("does not count slots before the user existed as missed, and skips unschedulable users", () => {
    const fresh = { ...user(1, "UTC", {}), createdAt: new Date("2025-06-02T14:00:00Z") };
    const broken = { ...user(2, "Mars/Olympus", {}) };
    const garbled = { ...user(3, "UTC", {}), slots: { morning: "7am" } as unknown as SlotTimes };
    const missed = missedSlots([fresh, broken, garbled], new Date("2025-06-02T20:00:00Z"));
    expect(missed.map((slot) => slot.slot)).toEqual(["afternoon"]);
  });

  it("lists slots starting within the pre-warm lead", () => {
    const users = [user(1, "UTC", {})];
    expect(upcomingSlots(users, new Date("2025-06-02T06:56:00Z"), 5).map((slot) => slot.slot)).toEqual([
      "morning",
    ]);
    expect(upcomingSlots(users, new Date("2025-06-02T06:50:00Z"), 5)).toEqual([]);
  });
});
