/**
 * Event writes to a CalDAV account end to end (issue 23): the real core over PGlite, the scripted Ollama
 * server through the official client, and a real Radicale behind the counting proxy. Radicale's helpers
 * play another client (Thunderbird, a phone) changing things behind the bot's back; what the bot wrote is
 * read back from Radicale itself.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { getEvent } from "../../db/queries/events.ts";
import { createAccounts } from "../../db/stores/index.ts";
import { buildCore } from "../../src/build-core.ts";
import { loadConfig } from "../../src/config/config.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { Account, User } from "../../src/core/domain.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { call, MODEL, modelClientFor, startModelServer } from "../core/fixture.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "../helpers/database.ts";
import type { OllamaTestServer, ScriptedToolCall } from "../servers/ollama-server.ts";
import { type Radicale, radicaleMissing, startRadicale } from "../servers/radicale.ts";
import {
  event,
  loopbackProvider,
  PASSWORD,
  USER,
  unfold,
} from "../sources/accounts/caldav/caldav-fixtures.ts";
import { receiptOf } from "./receipt-of.ts";

/** 08:00 on Thursday 3 December 2026 in Berlin. */
const START = "2026-12-03T07:00:00Z";
const BERLIN = { timeZone: "Europe/Berlin" };
const KEY = randomBytes(32).toString("base64");
const LABEL = "Radicale";
const PERSONAL = `${LABEL} · Personal`;

/** An invitation as Thunderbird stores it: attendees, an alarm and its own X- property. */
function invitation(uid: string, summary: string, start: string, end: string, extra: string[] = []): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261120T090000Z",
    `DTSTART:${start}`,
    `DTEND:${end}`,
    `SUMMARY:${summary}`,
    "ORGANIZER;CN=Bo:mailto:bo@example.com",
    "ATTENDEE;CN=Ann;PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:ann@example.com",
    "X-MOZ-GENERATION:3",
    ...extra,
    "BEGIN:VALARM",
    "ACTION:DISPLAY",
    "TRIGGER:-PT15M",
    "DESCRIPTION:Reminder",
    "END:VALARM",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

describe.skipIf(radicaleMissing !== undefined)("CalDAV event writes against Radicale", () => {
  let radicale: Radicale;
  let ollama: OllamaTestServer;
  let database: TestDatabase;
  let db: Database;
  const clock = fixedClock(START);
  const config = loadConfig({ BRIEFBOT_SECRET_KEY: KEY }, (path) => readFileSync(path, "utf8"));
  let core: ReturnType<typeof buildCore>;

  beforeAll(async () => {
    [radicale, ollama, database] = await Promise.all([
      startRadicale({ users: { [USER]: PASSWORD } }),
      startModelServer(),
      createTestDatabase("pglite"),
    ]);
    db = database.open.db;
    await radicale.makeCalendar(USER, "tasks", { name: "Tasks", components: ["VTODO"] });
    await radicale.makeCalendar(USER, "calendar", { name: "Personal", components: ["VEVENT"] });
    core = buildCore({
      db,
      config,
      clock,
      fetch: globalThis.fetch,
      logger: silentLogger,
      model: modelClientFor(ollama.url),
      owner: "caldav-event-writes",
      providers: [loopbackProvider(clock)],
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([radicale?.stop(), ollama?.close(), database?.dispose()]);
  });

  async function connected(choose: string[]): Promise<{ user: User; account: Account }> {
    const user = await createTestUser(db, BERLIN);
    const { account } = await core.accounts.addAccount({
      userId: user.id,
      kind: "caldav",
      label: LABEL,
      url: `${radicale.url}/`,
      username: USER,
      secret: PASSWORD,
      choose,
    });
    return { user, account };
  }

  async function nextBriefing(user: User) {
    clock.advance(config.sync.calendarMinutes * 60_000);
    ollama.script(MODEL, { content: "Good morning." });
    return core.assistant.brief(user.id, { slot: "morning" });
  }

  /** The briefing's list_events receipt, event by title. */
  async function briefedEvent(user: User, title: string) {
    const briefing = await nextBriefing(user);
    const events = (receiptOf(briefing.receipts, "list_events")?.events ?? []) as Array<
      Record<string, unknown> & { id: number; title: string }
    >;
    const found = events.find((entry) => entry.title === title);
    if (!found) throw new Error(`no event "${title}": ${events.map((entry) => entry.title).join(", ")}`);
    return found;
  }

  async function say(user: User, thread: string, text: string, calls: ScriptedToolCall[], answer = "Done.") {
    ollama.script(MODEL, [{ toolCalls: calls }, { content: answer }]);
    return core.assistant.reply(user.id, { platform: "cli", threadKey: `cli:${user.id}:${thread}` }, text);
  }

  /** The error the model was shown for the turn's last tool call. */
  function toldError(): string {
    const told = ollama
      .chatRequests(MODEL)
      .at(-1)
      ?.messages.filter((message) => message.role === "tool");
    return String((JSON.parse(String(told?.at(-1)?.content)) as { error?: string }).error);
  }

  const fileOf = async (user: User, eventId: number) =>
    (await createAccounts(db).objectOfEvent(user.id, eventId))?.object.remoteId.split("/").at(-1) ?? "";

  it("an event created in chat is PUT on the server with If-None-Match: *, and appears in the next briefing", async () => {
    const { user, account } = await connected(["Tasks", "Personal"]);
    expect((await core.accounts.syncAccount(account)).error).toBeUndefined();
    radicale.proxy.reset();
    const reply = await say(user, "dinner", "dinner with Bo tomorrow 19:00 to 21:00 at Lokal", [
      call("create_event", {
        title: "Dinner with Bo",
        date: "2026-12-03",
        start_time: "19:00",
        end_time: "21:00",
        location: "Lokal",
        description: "bring wine",
      }),
    ]);
    const puts = radicale.proxy.requests.filter((request) => request.method === "PUT");
    expect(puts).toEqual([expect.objectContaining({ status: 201, ifNoneMatch: "*" })]);
    expect(puts[0]?.path).toMatch(new RegExp(`^/${USER}/calendar/[^/]+\\.ics$`));
    const created = await briefedEvent(user, "Dinner with Bo");
    expect(reply.text).toContain(
      `Added event ${created.id} "Dinner with Bo" on 2026-12-03 19:00–21:00 to ${PERSONAL}`,
    );
    expect(created).toMatchObject({
      date: "2026-12-03",
      start: "19:00",
      end: "21:00",
      location: "Lokal",
      from: PERSONAL,
    });

    const body = unfold((await radicale.get(USER, "calendar", await fileOf(user, created.id)))?.body);
    expect(body).toMatch(/^DTSTART;TZID=Europe\/Berlin:20261203T190000\r$/m);
    expect(body).toMatch(/^DTEND;TZID=Europe\/Berlin:20261203T210000\r$/m);
    expect(body).toMatch(/^SUMMARY:Dinner with Bo\r$/m);
    expect(body).toMatch(/^LOCATION:Lokal\r$/m);
    expect(body).toMatch(/^DESCRIPTION:bring wine\r$/m);
    // The core's clock, not the machine's: the test's fixed morning.
    expect(body).toMatch(/^DTSTAMP:20261203T070000Z\r$/m);
    expect(body).toMatch(/^BEGIN:VTIMEZONE\r\nTZID:Europe\/Berlin\r$/m);
    const uid = /^UID:(.+)\r$/m.exec(body)?.[1];
    expect(await fileOf(user, created.id)).toBe(`${uid}.ics`);

    // Undo deletes it there, conditional on the ETag the create stored.
    radicale.proxy.reset();
    expect((await core.assistant.undo(user.id, reply.changes[0]?.undo?.id ?? 0)).kind).toBe("done");
    expect(radicale.proxy.requests).toEqual([
      expect.objectContaining({ method: "DELETE", status: 200, ifMatch: expect.stringMatching(/^"/) }),
    ]);
    expect(await radicale.get(USER, "calendar", `${uid}.ics`)).toBeUndefined();
    expect(await getEvent(db, user.id, created.id)).toBeUndefined();
  });

  it("a user whose account holds no calendar keeps chat events, written nowhere else", async () => {
    const { user } = await connected(["Tasks"]);
    radicale.proxy.reset();
    const reply = await say(user, "local", "lunch friday noon", [
      call("create_event", { title: "Lunch", date: "2026-12-04", start_time: "12:00" }),
    ]);
    expect(reply.text).toMatch(/Added event \d+ "Lunch" on 2026-12-04 12:00–13:00/);
    expect(reply.text).not.toContain(LABEL);
    expect(radicale.proxy.requests).toEqual([]);
  });

  it("an event moved in chat is moved on the server in the user's zone, what it does not name survives, and Undo moves it back there", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "review.ics",
      invitation("review", "Design review", "20261203T090000Z", "20261203T100000Z"),
    );
    const review = await briefedEvent(user, "Design review");
    expect(review).toMatchObject({ start: "10:00", end: "11:00", from: PERSONAL });
    const etag = (await radicale.get(USER, "calendar", "review.ics"))?.etag;

    radicale.proxy.reset();
    const reply = await say(user, "review", "move the design review to Friday 15:00", [
      call("update_event", { id: review.id, date: "2026-12-04", start_time: "15:00", end_time: "16:30" }),
    ]);
    expect(reply.pending).toEqual([]);
    expect(reply.text).toContain(
      `Updated event ${review.id} "Design review" (2026-12-04 15:00–16:30) on ${PERSONAL}`,
    );
    expect(radicale.proxy.requests.filter((request) => request.method === "PUT")).toEqual([
      expect.objectContaining({ status: 201, ifMatch: etag }),
    ]);
    const moved = unfold((await radicale.get(USER, "calendar", "review.ics"))?.body);
    expect(moved).toMatch(/^DTSTART;TZID=Europe\/Berlin:20261204T150000\r$/m);
    expect(moved).toMatch(/^DTEND;TZID=Europe\/Berlin:20261204T163000\r$/m);
    expect(moved).toMatch(/^SEQUENCE:1\r$/m);
    for (const kept of [
      "SUMMARY:Design review",
      "ORGANIZER;CN=Bo:mailto:bo@example.com",
      "ATTENDEE;CN=Ann;PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:ann@example.com",
      "X-MOZ-GENERATION:3",
      "TRIGGER:-PT15M",
    ])
      expect(moved.split("\r\n")).toContain(kept);
    // Same event, same id: the mirror took the server's answer.
    expect(await getEvent(db, user.id, review.id)).toMatchObject({
      startsAt: new Date("2026-12-04T14:00:00Z"),
      endsAt: new Date("2026-12-04T15:30:00Z"),
    });

    expect((await core.assistant.undo(user.id, reply.changes[0]?.undo?.id ?? 0)).kind).toBe("done");
    const back = unfold((await radicale.get(USER, "calendar", "review.ics"))?.body);
    expect(back).toMatch(/^DTSTART;TZID=Europe\/Berlin:20261203T100000\r$/m);
    expect(back).toMatch(/^DTEND;TZID=Europe\/Berlin:20261203T110000\r$/m);
    expect(back.split("\r\n")).toContain("X-MOZ-GENERATION:3");
    expect(await getEvent(db, user.id, review.id)).toMatchObject({
      startsAt: new Date("2026-12-03T09:00:00Z"),
      endsAt: new Date("2026-12-03T10:00:00Z"),
    });
  });

  it("a deletion confirmed in chat deletes the object on the server", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "dentist.ics",
      event("dentist", "Dentist", "20261203T140000Z", "20261203T150000Z"),
    );
    const dentist = await briefedEvent(user, "Dentist");
    const asked = await say(
      user,
      "dentist",
      "cancel the dentist",
      [call("delete_event", { id: dentist.id })],
      "Sure?",
    );
    expect(asked.pending.map((pending) => pending.summary)).toEqual([
      `Delete event ${dentist.id} "Dentist" (Thu 3 Dec, 15:00)?`,
    ]);
    expect(await radicale.get(USER, "calendar", "dentist.ics")).toBeDefined();
    const done = await core.assistant.resolveConfirmation(user.id, asked.pending[0]?.id ?? 0, true);
    expect(done.kind).toBe("done");
    expect(await radicale.get(USER, "calendar", "dentist.ics")).toBeUndefined();
    expect(await getEvent(db, user.id, dentist.id)).toBeUndefined();
  });

  it("an edit on the server between read and write gets a 412: nothing is overwritten, and the user is told what changed", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "standup.ics",
      invitation("standup", "Standup", "20261203T100000Z", "20261203T101500Z"),
    );
    const standup = await briefedEvent(user, "Standup");
    // Another client renames and moves it after the bot read it.
    await radicale.put(
      USER,
      "calendar",
      "standup.ics",
      invitation("standup", "Standup (team)", "20261203T103000Z", "20261203T104500Z"),
    );
    const onServer = await radicale.get(USER, "calendar", "standup.ics");

    radicale.proxy.reset();
    const reply = await say(
      user,
      "standup",
      "rename the standup to Daily",
      [call("update_event", { id: standup.id, title: "Daily" })],
      "Someone changed it on the server. Rename it anyway?",
    );
    expect(radicale.proxy.requests.filter((request) => request.method === "PUT")).toEqual([
      expect.objectContaining({ status: 412 }),
    ]);
    expect(reply.changes).toEqual([]);
    const error = toldError();
    expect(error).toContain(`event ${standup.id} "Standup" was changed on ${PERSONAL} since it was read`);
    expect(error).toContain('title "Standup" → "Standup (team)"');
    expect(error).toContain('start "2026-12-03 11:00" → "2026-12-03 11:30"');
    expect(error).toContain('end "2026-12-03 11:15" → "2026-12-03 11:45"');
    expect(error).toMatch(/nothing was written/);
    expect(await radicale.get(USER, "calendar", "standup.ics")).toEqual(onServer);
    // The mirror holds the server's copy, under the same id, so asking again works on what is there.
    expect(await getEvent(db, user.id, standup.id)).toMatchObject({
      title: "Standup (team)",
      startsAt: new Date("2026-12-03T10:30:00Z"),
    });
    const again = await say(user, "standup", "yes, rename it to Daily anyway", [
      call("update_event", { id: standup.id, title: "Daily" }),
    ]);
    expect(again.text).toContain(`Updated event ${standup.id} "Daily"`);
    const written = unfold((await radicale.get(USER, "calendar", "standup.ics"))?.body);
    expect(written).toMatch(/^SUMMARY:Daily\r$/m);
    expect(written).toMatch(/^DTSTART:20261203T103000Z\r$/m);
  });

  it("an Undo after an edit on the server writes nothing and says what changed", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "call.ics",
      event("call", "Call Mum", "20261203T180000Z", "20261203T183000Z"),
    );
    const mum = await briefedEvent(user, "Call Mum");
    const moved = await say(user, "mum", "move the call with Mum to 20:00", [
      call("update_event", { id: mum.id, start_time: "20:00", end_time: "20:30" }),
    ]);
    const raw = (await radicale.get(USER, "calendar", "call.ics"))?.body ?? "";
    expect(unfold(raw)).toMatch(/^DTSTART;TZID=Europe\/Berlin:20261203T200000\r$/m);
    await radicale.put(
      USER,
      "calendar",
      "call.ics",
      raw.replace("SUMMARY:Call Mum", "SUMMARY:Call Mum and Dad"),
    );
    const onServer = await radicale.get(USER, "calendar", "call.ics");
    const undone = await core.assistant.undo(user.id, moved.changes[0]?.undo?.id ?? 0);
    expect(undone.text).toMatch(
      /^Could not undo it: .*title "Call Mum" → "Call Mum and Dad".*nothing was written/,
    );
    expect(await radicale.get(USER, "calendar", "call.ics")).toEqual(onServer);
  });

  it("an all-day event moved in chat is written as VALUE=DATE dates", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "fair.ics",
      event("fair", "Christmas fair", "20261203", "20261204").replace(/DT(START|END):/g, "DT$1;VALUE=DATE:"),
    );
    const fair = await briefedEvent(user, "Christmas fair");
    expect(fair).toMatchObject({ all_day: true, date: "2026-12-03" });
    await say(user, "fair", "move the christmas fair to the 12th", [
      call("update_event", { id: fair.id, date: "2026-12-12" }),
    ]);
    const body = unfold((await radicale.get(USER, "calendar", "fair.ics"))?.body);
    expect(body).toMatch(/^DTSTART;VALUE=DATE:20261212\r$/m);
    expect(body).toMatch(/^DTEND;VALUE=DATE:20261213\r$/m);
    expect(body).not.toMatch(/TZID/);
    expect(await getEvent(db, user.id, fair.id)).toMatchObject({
      allDay: true,
      startDate: "2026-12-12",
      endDate: "2026-12-13",
    });
  });

  it("an event deleted on the server is said to be gone, and leaves the mirror", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "yoga.ics",
      event("yoga", "Yoga", "20261203T170000Z", "20261203T180000Z"),
    );
    const yoga = await briefedEvent(user, "Yoga");
    await radicale.delete(USER, "calendar", "yoga.ics");
    const reply = await say(user, "yoga", "move yoga to 19:00", [
      call("update_event", { id: yoga.id, start_time: "19:00" }),
    ]);
    expect(reply.changes).toEqual([]);
    expect(toldError()).toBe(
      `event ${yoga.id} "Yoga" was deleted on ${PERSONAL} since it was read; nothing was written.`,
    );
    expect(await radicale.get(USER, "calendar", "yoga.ics")).toBeUndefined();
    expect(await getEvent(db, user.id, yoga.id)).toBeUndefined();
  });

  it("an occurrence of a recurring series is refused in words naming where it lives, before any Confirm, and nothing is written", async () => {
    const { user } = await connected(["Personal"]);
    await radicale.put(
      USER,
      "calendar",
      "weekly.ics",
      invitation("weekly", "Team sync", "20261203T130000Z", "20261203T140000Z", [
        "RRULE:FREQ=WEEKLY;COUNT=10",
      ]),
    );
    const onServer = await radicale.get(USER, "calendar", "weekly.ics");
    const occurrence = await briefedEvent(user, "Team sync");
    const refusal = `event ${occurrence.id} "Team sync" is one occurrence of a recurring series on ${PERSONAL}; change it there (neither one occurrence nor the whole series is changed from here)`;

    radicale.proxy.reset();
    const moved = await say(user, "sync", "move this week's team sync to 15:00", [
      call("update_event", { id: occurrence.id, start_time: "15:00" }),
    ]);
    expect(moved.changes).toEqual([]);
    expect(toldError()).toBe(refusal);

    const deleted = await say(user, "sync", "delete the team sync", [
      call("delete_event", { id: occurrence.id }),
    ]);
    expect(deleted.pending).toEqual([]);
    expect(toldError()).toBe(refusal);
    expect(radicale.proxy.requests.filter((request) => request.method !== "REPORT")).toEqual([]);
    expect(await radicale.get(USER, "calendar", "weekly.ics")).toEqual(onServer);
  });
});
