/**
 * The three export shapes (Google, Outlook/Exchange, iCloud) synced from files for users in three zones,
 * then "today" asked on chosen days, including the DST-change days in London (29 Mar 2026), New York / Los
 * Angeles (8 Mar 2026) and Auckland (5 Apr 2026). Every expected line is written out by hand.
 */
import { fileURLToPath } from "node:url";
import { DateTime } from "luxon";
import { expect, it } from "vitest";
import { addCalendar } from "../../../db/queries/calendars.ts";
import { type EventView, listEvents } from "../../../db/queries/events.ts";
import type { User } from "../../../db/schema/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { syncAllCalendars } from "../../../src/sources/calendar/sync-calendar.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/ics/${name}`, import.meta.url));
const FIXTURES = ["google-team-london.ics", "outlook-work.ics", "icloud-personal.ics"].map(fixture);

/** "start–end title": all-day events show their dates, timed ones local times (dates when they span days). */
function line(view: EventView): string {
  if (view.allDay)
    return `${view.start === view.end ? view.start : `${view.start}..${view.end}`} all day ${view.title}`;
  const sameDay = view.start.slice(0, 10) === view.end.slice(0, 10);
  return `${sameDay ? view.start.slice(11) : view.start}–${sameDay ? view.end.slice(11) : view.end} ${view.title}`;
}

const noFetch: typeof fetch = async () => {
  throw new Error("file calendars must not touch the network");
};

describeEachDatabase("today's events per user zone", (getDb) => {
  async function todayFor(user: User, date: string): Promise<string[]> {
    const db = getDb();
    // Noon local: the sync window and "today" both come from the same clock, as in the running bot.
    const now = DateTime.fromISO(`${date}T12:00`, { zone: user.timeZone }).toJSDate();
    const clock = fixedClock(now);
    const results = await syncAllCalendars(db, { userName: user.name, fetch: noFetch, clock });
    expect(results.map((result) => result.status)).toEqual(["updated", "updated", "updated"]);
    return (await listEvents(db, user, { range: "today", now })).map(line);
  }

  async function userIn(timeZone: string): Promise<User> {
    const db = getDb();
    const user = await createTestUser(db, { timeZone });
    for (const source of FIXTURES) await addCalendar(db, { userId: user.id, source });
    return user;
  }

  it("Europe/London", async () => {
    const london = await userIn("Europe/London");
    // The clocks go forward at 01:00: the 00:30–03:30 train lasts two hours; the Outlook "GMT Standard Time" review is in BST.
    expect(await todayFor(london, "2026-03-29")).toEqual([
      "2026-03-29 all day Mum's birthday",
      "00:30–03:30 Night train (clocks go forward)",
      "15:00–16:00 Quarterly review",
    ]);
    expect(await todayFor(london, "2026-03-30")).toEqual([
      "2026-03-30..2026-04-01 all day Conference",
      "2026-03-30 all day Office closed",
      "09:30–10:00 Team sync",
    ]);
    expect(await todayFor(london, "2026-03-31")).toEqual(["2026-03-30..2026-04-01 all day Conference"]);
    // The cancelled occurrence leaves nothing behind; the moved one shows at its new time.
    expect(await todayFor(london, "2026-03-16")).toEqual([]);
    expect(await todayFor(london, "2026-03-23")).toEqual(["14:00–15:00 Team sync (moved to the afternoon)"]);
    // EXDATE on Easter Monday.
    expect(await todayFor(london, "2026-04-06")).toEqual([]);
    // New York moved its clocks on 8 March and London did not: the 09:00 standup is 14:00 then 13:00 here.
    expect(await todayFor(london, "2026-03-06")).toEqual(["14:00–14:15 NY standup"]);
    expect(await todayFor(london, "2026-03-09")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "09:30–10:00 Team sync",
      "13:00–13:15 NY standup",
    ]);
  });

  it("America/Los_Angeles", async () => {
    const la = await userIn("America/Los_Angeles");
    // DST starts at 02:00; the overnight flight (ending in Tokyo time) is also on the day before.
    expect(await todayFor(la, "2026-03-08")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "2026-03-07 23:00–2026-03-08 13:00 Flight SFO → HND",
      "04:30–05:30 Lunch in Paris (video)",
      "10:00–10:30 Call grandma",
    ]);
    expect(await todayFor(la, "2026-03-07")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "2026-03-07 23:00–2026-03-08 13:00 Flight SFO → HND",
    ]);
    expect(await todayFor(la, "2026-03-09")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "02:30–03:00 Team sync",
      "06:00–06:15 NY standup",
    ]);
    // The cancelled Tuesday yoga is gone; the next week's moved to Wednesday 19:00.
    expect(await todayFor(la, "2026-03-10")).toEqual(["06:00–06:15 NY standup"]);
    expect(await todayFor(la, "2026-03-17")).toEqual([]);
    expect(await todayFor(la, "2026-03-18")).toEqual(["19:00–20:00 Yoga (Wednesday this week)"]);
    expect(await todayFor(la, "2026-03-24")).toEqual(["18:00–19:00 Yoga"]);
  });

  it("Pacific/Auckland", async () => {
    const auckland = await userIn("Pacific/Auckland");
    // NZ daylight time ends at 03:00 on 5 April; Outlook's "New Zealand Standard Time" maps to Pacific/Auckland.
    expect(await todayFor(auckland, "2026-04-05")).toEqual(["09:00–10:00 Call with Auckland"]);
    // All-day dates stay on their dates; London's Sunday-afternoon review is Monday 03:00 here.
    expect(await todayFor(auckland, "2026-03-30")).toEqual([
      "2026-03-30..2026-04-01 all day Conference",
      "2026-03-30 all day Office closed",
      "03:00–04:00 Quarterly review",
      "21:30–22:00 Team sync",
    ]);
    expect(await todayFor(auckland, "2026-03-09")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "2026-03-08 20:00–2026-03-09 09:00 Flight SFO → HND",
      "00:30–01:30 Lunch in Paris (video)",
      "22:30–23:00 Team sync",
    ]);
    expect(await todayFor(auckland, "2026-03-10")).toEqual(["02:00–02:15 NY standup"]);
    // Floating times are read in the user's own zone; New York's Friday standup was Saturday here.
    expect(await todayFor(auckland, "2026-03-07")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "03:00–03:15 NY standup",
    ]);
    expect(await todayFor(auckland, "2026-03-08")).toEqual([
      "2026-03-07..2026-03-09 all day Spring break",
      "10:00–10:30 Call grandma",
      "2026-03-08 20:00–2026-03-09 09:00 Flight SFO → HND",
    ]);
  });
});
