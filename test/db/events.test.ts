import { expect, it } from "vitest";
import { addCalendar } from "../../db/queries/calendars.ts";
import {
  createEvent,
  deleteEvent,
  EventInputError,
  getEvent,
  listEvents,
  replaceCalendarEvents,
  updateEvent,
} from "../../db/queries/events.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("events queries", (getDb) => {
  it("shows a multi-day timed event on each local day it overlaps, and all-day events on their dates", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "America/Los_Angeles" });
    const calendar = await addCalendar(db, { userId: user.id, source: "/tmp/x.ics" });
    await replaceCalendarEvents(
      db,
      calendar,
      [
        {
          uid: "trip",
          instanceKey: "2026-06-01T15:00:00.000Z",
          title: "Road trip",
          allDay: false,
          startsAt: new Date("2026-06-01T15:00:00Z"), // 08:00 PDT on 1 June
          endsAt: new Date("2026-06-03T07:00:00Z"), // midnight PDT: not on 3 June
          timeZone: "America/Los_Angeles",
        },
        {
          uid: "camp",
          instanceKey: "2026-06-02",
          title: "Camp",
          allDay: true,
          startDate: "2026-06-02",
          endDate: "2026-06-04",
          startsAt: new Date("2026-06-02T07:00:00Z"),
          endsAt: new Date("2026-06-04T07:00:00Z"),
        },
        {
          uid: "off",
          instanceKey: "x",
          title: "Called off",
          status: "cancelled",
          startsAt: new Date("2026-06-02T17:00:00Z"),
          endsAt: new Date("2026-06-02T18:00:00Z"),
        },
      ],
      { windowStart: new Date("2026-05-31T00:00:00Z"), at: new Date("2026-05-31T00:00:00Z") },
    );
    const on = async (date: string, range: "today" | "tomorrow" = "today") =>
      (await listEvents(db, user, { range, now: new Date(`${date}T19:00:00Z`) })).map(
        (event) => `${event.title} ${event.days.join(",")}`,
      );
    expect(await on("2026-06-01")).toEqual(["Road trip 2026-06-01"]);
    expect(await on("2026-06-02")).toEqual(["Road trip 2026-06-02", "Camp 2026-06-02"]);
    expect(await on("2026-06-02", "tomorrow")).toEqual(["Camp 2026-06-03"]);
    const upcoming = await listEvents(db, user, {
      range: "upcoming",
      days: 3,
      now: new Date("2026-06-01T19:00:00Z"),
    });
    expect(
      upcoming.map((event) => `${event.title} ${event.start}..${event.end} ${event.days.join(",")}`),
    ).toEqual([
      "Road trip 2026-06-01 08:00..2026-06-03 00:00 2026-06-01,2026-06-02",
      "Camp 2026-06-02..2026-06-03 2026-06-02,2026-06-03",
    ]);
  });

  it("creates, reads, updates and deletes chat events for their owner only", async () => {
    const db = getDb();
    const owner = await createTestUser(db, { timeZone: "Europe/Berlin" });
    const stranger = await createTestUser(db, { timeZone: "Europe/Berlin" });
    const created = await createEvent(db, owner.id, {
      title: "  Haircut ",
      startsAt: new Date("2026-07-01T08:00:00Z"),
      timeZone: owner.timeZone,
    });
    expect(created).toMatchObject({
      title: "Haircut",
      calendarId: null,
      allDay: false,
      timeZone: "Europe/Berlin",
    });
    expect(created.endsAt.toISOString()).toBe("2026-07-01T09:00:00.000Z");

    expect(await getEvent(db, stranger.id, created.id)).toBeUndefined();
    const editedAt = new Date("2026-06-30T12:34:56Z");
    expect(
      await updateEvent(db, stranger.id, created.id, { title: "Hijacked" }, stranger.timeZone, editedAt),
    ).toBeUndefined();
    expect(await deleteEvent(db, stranger.id, created.id)).toBe(false);

    const moved = await updateEvent(
      db,
      owner.id,
      created.id,
      { allDay: true, startDate: "2026-07-02" },
      owner.timeZone,
      editedAt,
    );
    expect(moved).toMatchObject({
      title: "Haircut",
      allDay: true,
      startDate: "2026-07-02",
      endDate: "2026-07-03",
    });
    expect(moved?.startsAt.toISOString()).toBe("2026-07-01T22:00:00.000Z");
    // The caller's clock, not the machine's, so tests and replays see the time the change was made.
    expect(moved?.updatedAt.toISOString()).toBe(editedAt.toISOString());
    expect((await getEvent(db, owner.id, created.id))?.startDate).toBe("2026-07-02");

    expect(await deleteEvent(db, owner.id, created.id)).toBe(true);
    expect(await getEvent(db, owner.id, created.id)).toBeUndefined();
  });

  it("refuses bad chat-event input and will not edit synced rows", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const zone = user.timeZone;
    await expect(
      createEvent(db, user.id, { title: " ", startsAt: new Date(), timeZone: zone }),
    ).rejects.toThrow(EventInputError);
    await expect(
      createEvent(db, user.id, {
        title: "Back",
        startsAt: new Date("2026-01-02"),
        endsAt: new Date("2026-01-01"),
        timeZone: zone,
      }),
    ).rejects.toThrow("cannot end before it starts");
    await expect(
      createEvent(db, user.id, { title: "X", allDay: true, startDate: "2026-02-30", timeZone: zone }),
    ).rejects.toThrow("not a date");
    const calendar = await addCalendar(db, { userId: user.id, source: "/tmp/y.ics" });
    await replaceCalendarEvents(
      db,
      calendar,
      [
        {
          uid: "s",
          instanceKey: "k",
          title: "Synced",
          startsAt: new Date("2026-01-05T10:00:00Z"),
          endsAt: new Date("2026-01-05T11:00:00Z"),
        },
      ],
      { windowStart: new Date("2026-01-01T00:00:00Z"), at: new Date("2026-01-01T00:00:00Z") },
    );
    const [synced] = await listEvents(db, user, { range: "today", now: new Date("2026-01-05T12:00:00Z") });
    expect(synced?.source).toBe("calendar");
    expect(
      await updateEvent(db, user.id, synced?.id ?? 0, { title: "Edited" }, zone, new Date()),
    ).toBeUndefined();
    expect(await deleteEvent(db, user.id, synced?.id ?? 0)).toBe(false);
  });
});
