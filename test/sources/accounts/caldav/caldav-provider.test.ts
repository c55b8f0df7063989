/**
 * The CalDAV provider against a real Radicale, with tsdav doing the talking. Another client's changes are
 * plain PUTs and DELETEs on Radicale; the counting proxy in front shows what the provider sent.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectionChanges,
  ConflictError,
  type RemoteObject,
} from "../../../../src/core/accounts/ports.ts";
import { createCaldavProvider } from "../../../../src/sources/accounts/caldav/caldav-provider.ts";
import { CalendarParseError } from "../../../../src/sources/calendar/calendar-parse-error.ts";
import { type Radicale, radicaleMissing, startRadicale } from "../../../servers/radicale.ts";
import {
  collectionAt,
  connectionTo,
  DERIVE,
  event,
  loopbackProvider,
  PASSWORD,
  todo,
  USER,
  unfold,
} from "./caldav-fixtures.ts";
import { seedTasks } from "./seed-tasks.ts";

/** iCalendar unfolded, for matching a property whatever line length the server folded it at. */

// Radicale comes from the Debian package; .ci/run installs it. Without it these tests cannot mean anything.
describe.skipIf(radicaleMissing !== undefined)("CalDAV provider against Radicale", () => {
  let radicale: Radicale;
  const provider = loopbackProvider();
  const known = (changes: CollectionChanges, before: ReadonlyMap<string, string> = new Map()) => {
    const next = changes.full ? new Map<string, string>() : new Map(before);
    for (const href of changes.removed) next.delete(href);
    for (const object of changes.changed) next.set(object.remoteId, object.etag);
    return next;
  };

  beforeAll(async () => {
    radicale = await startRadicale({ users: { [USER]: PASSWORD, bob: "other" } });
    await radicale.makeCalendar(USER, "tasks", { name: "Tasks", components: ["VTODO"] });
    await radicale.makeCalendar(USER, "calendar", { name: "Personal", components: ["VEVENT"] });
  });
  afterAll(async () => {
    await radicale?.stop();
  });

  describe("discovery", () => {
    it("finds the user's collections through the principal and the calendar home, with what each holds", async () => {
      const collections = await provider.discover(connectionTo(radicale));
      expect(
        collections.map(({ name, holds }) => ({ name, holds })).sort((a, b) => a.name.localeCompare(b.name)),
      ).toEqual([
        { name: "Personal", holds: ["events"] },
        { name: "Tasks", holds: ["tasks"] },
      ]);
      expect(collections.find((collection) => collection.name === "Tasks")?.remoteId).toBe(
        `${radicale.url}/${USER}/tasks/`,
      );
    });

    it("says so in one line when the password is wrong", async () => {
      await expect(provider.discover({ ...connectionTo(radicale), secret: "wrong" })).rejects.toThrow(
        /401|credentials/i,
      );
    });

    it("refuses a loopback server unless the network policy allows private networks", async () => {
      const strict = createCaldavProvider({ network: { allowPrivateNetworks: false, allowHosts: [] } });
      await expect(strict.discover(connectionTo(radicale))).rejects.toThrow(/no CalDAV account found/);
      expect(radicale.proxy.requests.filter((request) => request.status === 0)).toEqual([]);
    });
  });

  describe("sync", () => {
    let first: CollectionChanges;
    let mirror: Map<string, string>;

    beforeAll(async () => {
      await radicale.put(
        USER,
        "tasks",
        "buy-milk.ics",
        todo("buy-milk", "Buy milk", ["DUE;VALUE=DATE:20261204", "PRIORITY:1"]),
      );
      await radicale.put(USER, "tasks", "call-mum.ics", todo("call-mum", "Call mum", ["CATEGORIES:family"]));
      await radicale.put(USER, "tasks", "pack.ics", todo("pack", "Pack the bags", ["RELATED-TO:call-mum"]));
      first = await provider.sync(connectionTo(radicale), collectionAt(radicale, "tasks"), new Map());
      mirror = known(first);
    });

    it("the first sync fetches everything, with a sync-token for next time", () => {
      expect(first.full).toBe(true);
      expect(first.changed.map((object) => object.remoteId.split("/").at(-1)).sort()).toEqual([
        "buy-milk.ics",
        "call-mum.ics",
        "pack.ics",
      ]);
      expect(first.syncState).toMatch(/^token:http:\/\/radicale\.org\/ns\/sync\//);
      // One listing and one multiget.
      expect(first.requests).toBe(2);
      expect(first.bytes).toBeGreaterThan(1000);
    });

    it("derives the tasks from what arrived: due date, priority, labels, the parent's href", () => {
      const derived = Object.fromEntries(
        first.changed.map((object) => [
          object.remoteId.split("/").at(-1),
          provider.derive(object, DERIVE).tasks[0],
        ]),
      );
      expect(derived["buy-milk.ics"]).toMatchObject({
        title: "Buy milk",
        dueDate: "2026-12-04",
        priority: "high",
      });
      expect(derived["call-mum.ics"]).toMatchObject({ labels: ["family"], status: "open" });
      expect(derived["pack.ics"]?.parentRemoteId).toBe(`${radicale.url}/${USER}/tasks/call-mum.ics`);
    });

    it("a second sync with nothing changed is one request and fetches no object", async () => {
      radicale.proxy.reset();
      const again = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "tasks", first.syncState),
        mirror,
      );
      expect(radicale.proxy.requests.map((request) => request.method)).toEqual(["REPORT"]);
      expect(again).toMatchObject({
        changed: [],
        removed: [],
        full: false,
        requests: 1,
        syncState: first.syncState,
      });
    });

    it("a task created on the server appears in the next sync, alone, and a deleted one is removed", async () => {
      await radicale.put(USER, "tasks", "new.ics", todo("new", "Renew the passport"));
      await radicale.delete(USER, "tasks", "buy-milk.ics");
      radicale.proxy.reset();
      const next = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "tasks", first.syncState),
        mirror,
      );
      expect(next.full).toBe(false);
      expect(next.changed.map((object) => provider.derive(object, DERIVE).tasks[0]?.title)).toEqual([
        "Renew the passport",
      ]);
      expect(next.removed).toEqual([`${radicale.url}/${USER}/tasks/buy-milk.ics`]);
      // sync-collection, then a multiget of the one new href.
      expect(radicale.proxy.requests.map((request) => request.method)).toEqual(["REPORT", "REPORT"]);
      mirror = known(next, mirror);
      first = { ...first, syncState: next.syncState };
    });

    it("an answer larger than the cap fails the sync in one line instead of filling memory", async () => {
      const capped = createCaldavProvider({
        network: { allowPrivateNetworks: true, allowHosts: [] },
        maxBytes: 500,
      });
      await expect(
        capped.sync(connectionTo(radicale), collectionAt(radicale, "tasks"), new Map()),
      ).rejects.toThrow(/larger than 500 bytes/);
    });

    it("a token the server no longer accepts starts over with a full sync", async () => {
      const collection = collectionAt(radicale, "tasks", "token:http://radicale.org/ns/sync/0000000000");
      const over = await provider.sync(connectionTo(radicale), collection, mirror);
      expect(over.full).toBe(true);
      expect(over.changed).toHaveLength(3);
      expect(over.syncState).toMatch(/^token:/);
    });

    it("with a ctag position: the same ctag costs one request, another lists ETags and fetches only what differs", async () => {
      const [self] = await (
        await fetch(`${radicale.directUrl}/${USER}/tasks/`, {
          method: "PROPFIND",
          headers: {
            depth: "0",
            authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`,
          },
          body: '<propfind xmlns="DAV:" xmlns:CS="http://calendarserver.org/ns/"><prop><CS:getctag/></prop></propfind>',
        })
      )
        .text()
        .then((xml) => [/<CS:getctag>([^<]+)<\/CS:getctag>/.exec(xml)?.[1] ?? ""]);
      radicale.proxy.reset();
      const same = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "tasks", `ctag:${self}`),
        mirror,
      );
      expect(same).toMatchObject({ changed: [], removed: [], full: false, requests: 1 });

      await radicale.put(USER, "tasks", "call-mum.ics", todo("call-mum", "Call mum on Sunday"));
      const stale = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "tasks", `ctag:${self}`),
        mirror,
      );
      expect(stale.full).toBe(false);
      expect(stale.changed.map((object) => object.remoteId.split("/").at(-1))).toEqual(["call-mum.ics"]);
      expect(stale.removed).toEqual([]);
    });
  });

  describe("events", () => {
    it("an event moved on the server shows at its new time after the next sync", async () => {
      await radicale.put(
        USER,
        "calendar",
        "dentist.ics",
        event("dentist", "Dentist", "20261207T090000Z", "20261207T100000Z"),
      );
      const first = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "calendar"),
        new Map(),
      );
      const [before] = first.changed.flatMap((object) => provider.derive(object, DERIVE).events);
      expect(before?.startsAt.toISOString()).toBe("2026-12-07T09:00:00.000Z");

      await radicale.put(
        USER,
        "calendar",
        "dentist.ics",
        event("dentist", "Dentist", "20261208T140000Z", "20261208T150000Z"),
      );
      const next = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "calendar", first.syncState),
        known(first),
      );
      const moved = next.changed.flatMap((object) => provider.derive(object, DERIVE).events);
      expect(moved.map((occurrence) => [occurrence.title, occurrence.startsAt.toISOString()])).toEqual([
        ["Dentist", "2026-12-08T14:00:00.000Z"],
      ]);
    });

    it("an object the sources layer cannot use is skipped with a reason, the rest still derive", async () => {
      // Radicale accepts it; our expansion refuses an event longer than five years.
      await radicale.put(
        USER,
        "calendar",
        "forever.ics",
        event("forever", "Forever", "20261201T090000Z", "20400101T090000Z"),
      );
      const all = await provider.sync(connectionTo(radicale), collectionAt(radicale, "calendar"), new Map());
      const outcomes = all.changed.map((object) => {
        try {
          return {
            file: object.remoteId.split("/").at(-1),
            events: provider.derive(object, DERIVE).events.length,
          };
        } catch (error) {
          return { file: object.remoteId.split("/").at(-1), error };
        }
      });
      const forever = outcomes.find((outcome) => outcome.file === "forever.ics");
      expect(forever && "error" in forever && forever.error).toBeInstanceOf(CalendarParseError);
      expect(forever && "error" in forever && String(forever.error)).toMatch(/five years/);
      expect(outcomes.find((outcome) => outcome.file === "dentist.ics")).toEqual({
        file: "dentist.ics",
        events: 1,
      });
    });
  });

  describe("writes", () => {
    const current = async (file: string): Promise<RemoteObject> => {
      const all = await provider.sync(connectionTo(radicale), collectionAt(radicale, "tasks"), new Map());
      const found = all.changed.find((object) => object.remoteId.endsWith(`/${file}`));
      if (!found) throw new Error(`${file} is not on the server`);
      return found;
    };

    it("completing a task writes STATUS:COMPLETED, COMPLETED and PERCENT-COMPLETE:100, keeping the alarm and X- properties", async () => {
      await radicale.put(USER, "tasks", "tax.ics", todo("tax", "File taxes", ["DUE;VALUE=DATE:20261210"]));
      const object = await current("tax.ics");
      const written = await provider.writeTask(connectionTo(radicale), object, {
        kind: "complete",
        at: new Date("2026-12-03T10:15:00Z"),
      });
      const raw = await radicale.get(USER, "tasks", "tax.ics");
      expect(raw?.etag).toBe(written.etag);
      const unfolded = raw?.body.replace(/\r\n[ \t]/g, "") ?? "";
      expect(unfolded).toMatch(/^STATUS:COMPLETED\r$/m);
      expect(unfolded).toMatch(/^COMPLETED:20261203T101500Z\r$/m);
      expect(unfolded).toMatch(/^PERCENT-COMPLETE:100\r$/m);
      expect(unfolded).toMatch(/^X-APPLE-SORT-ORDER:812345678\r$/m);
      // Radicale stores the properties re-ordered (vobject sorts them); the alarm is there, whole.
      expect(unfolded).toMatch(/BEGIN:VALARM\r\n(?:(?!END:VALARM)[\s\S])*TRIGGER;RELATED=END:PT0S\r\n/);
      expect(unfolded).toMatch(/^DUE;VALUE=DATE:20261210\r$/m);
      expect(provider.derive(written, DERIVE).tasks[0]).toMatchObject({ status: "done" });

      const reopened = await provider.writeTask(connectionTo(radicale), written, { kind: "reopen" });
      const back = (await radicale.get(USER, "tasks", "tax.ics"))?.body ?? "";
      expect(back).toMatch(/^STATUS:NEEDS-ACTION\r$/m);
      expect(back).not.toMatch(/^COMPLETED:/m);
      expect(back).not.toMatch(/^PERCENT-COMPLETE:/m);
      expect(provider.derive(reopened, DERIVE).tasks[0]).toMatchObject({ status: "open" });
    });

    it("completing a recurring task completes its current occurrence and moves it on to the next", async () => {
      await radicale.put(
        USER,
        "tasks",
        "plants-weekly.ics",
        readFileSync(new URL("../../../fixtures/vtodo/tasks-org-recurring.ics", import.meta.url), "utf8"),
      );
      const object = await current("plants-weekly.ics");
      expect(provider.derive(object, DERIVE).tasks[0]).toMatchObject({
        dueDate: "2026-12-03",
        status: "open",
      });
      const written = await provider.writeTask(connectionTo(radicale), object, {
        kind: "complete",
        at: new Date("2026-12-02T09:00:00Z"),
      });
      const raw = (await radicale.get(USER, "tasks", "plants-weekly.ics"))?.body ?? "";
      expect(raw).toMatch(/^DUE;VALUE=DATE:20261207\r$/m);
      expect(raw).toMatch(/^DTSTART;VALUE=DATE:20261207\r$/m);
      expect(raw).toMatch(/^STATUS:NEEDS-ACTION\r$/m);
      expect(raw).toMatch(/^RRULE:FREQ=WEEKLY;BYDAY=MO,TH\r$/m);
      expect(provider.derive(written, DERIVE).tasks[0]).toMatchObject({
        dueDate: "2026-12-07",
        status: "open",
      });
    });

    it("an update changes only what it names", async () => {
      await radicale.put(
        USER,
        "tasks",
        "car.ics",
        todo("car", "Wash the car", ["DUE;TZID=Europe/Berlin:20261205T100000", "CATEGORIES:home"]),
      );
      const object = await current("car.ics");
      const written = await provider.writeTask(connectionTo(radicale), object, {
        kind: "update",
        changes: { title: "Wash the car, inside too", dueDate: "2026-12-06", priority: "low" },
        timeZone: "Europe/Berlin",
      });
      expect(provider.derive(written, DERIVE).tasks[0]).toMatchObject({
        title: "Wash the car, inside too",
        dueDate: "2026-12-06",
        dueTime: "10:00",
        priority: "low",
        labels: ["home"],
      });
      expect((await radicale.get(USER, "tasks", "car.ics"))?.body).toMatch(
        /^DUE;TZID=Europe\/Berlin:20261206T100000\r$/m,
      );
    });

    it("a due time set on a task is written in the user's zone, with a VTIMEZONE for it", async () => {
      await radicale.put(
        USER,
        "tasks",
        "dentist.ics",
        todo("dentist", "Dentist", ["DUE;VALUE=DATE:20261207"]),
      );
      const object = await current("dentist.ics");
      const written = await provider.writeTask(connectionTo(radicale), object, {
        kind: "update",
        changes: { dueTime: "14:30" },
        timeZone: "Europe/Berlin",
      });
      const stored = unfold((await radicale.get(USER, "tasks", "dentist.ics"))?.body);
      expect(stored).toMatch(/^DUE;TZID=Europe\/Berlin:20261207T143000\r$/m);
      expect(stored.match(/^BEGIN:VTIMEZONE\r$/gm)).toHaveLength(1);
      expect(stored).toMatch(/BEGIN:VTIMEZONE\r\nTZID:Europe\/Berlin\r\n/);
      // Winter in Berlin is +0100: a client that goes by the VTIMEZONE reads the same instant.
      expect(stored).toMatch(/^TZOFFSETFROM:\+0200\r\nTZOFFSETTO:\+0100\r$/m);
      expect(provider.derive(written, { ...DERIVE, timeZone: "Asia/Tokyo" }).tasks[0]).toMatchObject({
        dueDate: "2026-12-07",
        dueTime: "22:30",
      });
    });

    it("a new due time keeps a TZID naming the user's zone as spelled, and replaces one naming another zone", async () => {
      const windows = [
        "BEGIN:VTIMEZONE",
        "TZID:W. Europe Standard Time",
        "BEGIN:STANDARD",
        "DTSTART:16010101T030000",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100",
        "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
        "END:STANDARD",
        "BEGIN:DAYLIGHT",
        "DTSTART:16010101T020000",
        "TZOFFSETFROM:+0100",
        "TZOFFSETTO:+0200",
        "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
        "END:DAYLIGHT",
        "END:VTIMEZONE",
      ];
      const outlook = todo("outlook", "Outlook task", [
        "DUE;TZID=W. Europe Standard Time:20261207T090000",
      ]).replace("BEGIN:VTODO", `${windows.join("\r\n")}\r\nBEGIN:VTODO`);
      await radicale.put(USER, "tasks", "outlook.ics", outlook);
      await provider.writeTask(connectionTo(radicale), await current("outlook.ics"), {
        kind: "update",
        changes: { dueTime: "11:00" },
        timeZone: "Europe/Berlin",
      });
      const kept = unfold((await radicale.get(USER, "tasks", "outlook.ics"))?.body);
      expect(kept).toMatch(/^DUE;TZID=W\. Europe Standard Time:20261207T110000\r$/m);
      expect(kept.match(/^BEGIN:VTIMEZONE\r$/gm)).toHaveLength(1);

      await radicale.put(
        USER,
        "tasks",
        "ny.ics",
        todo("ny", "Call the bank", ["DUE;TZID=America/New_York:20261207T100000"]),
      );
      const written = await provider.writeTask(connectionTo(radicale), await current("ny.ics"), {
        kind: "update",
        changes: { dueTime: "09:00" },
        timeZone: "Europe/Berlin",
      });
      // The person said 09:00 on their own clock: 09:00 in Berlin, not 09:00 in New York.
      const moved = unfold((await radicale.get(USER, "tasks", "ny.ics"))?.body);
      expect(moved).toMatch(/^DUE;TZID=Europe\/Berlin:20261207T090000\r$/m);
      expect(moved).not.toMatch(/^DUE;TZID=America/m);
      expect(provider.derive(written, DERIVE).tasks[0]).toMatchObject({
        dueDate: "2026-12-07",
        dueTime: "09:00",
      });
    });

    it("an edit made on the server between read and write is a conflict carrying the server's copy; nothing is overwritten", async () => {
      await radicale.put(USER, "tasks", "plants.ics", todo("plants", "Water the plants"));
      const read = await current("plants.ics");
      await radicale.put(USER, "tasks", "plants.ics", todo("plants", "Water the plants and the garden"));
      const onServer = await radicale.get(USER, "tasks", "plants.ics");

      const attempt = provider.writeTask(connectionTo(radicale), read, { kind: "complete", at: new Date() });
      await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      const conflict = (await attempt.catch((error: unknown) => error)) as ConflictError;
      expect(conflict.current?.etag).toBe(onServer?.etag);
      expect(conflict.current?.body).toContain("Water the plants and the garden");
      expect(await radicale.get(USER, "tasks", "plants.ics")).toEqual(onServer);

      await expect(provider.deleteTask(connectionTo(radicale), read)).rejects.toBeInstanceOf(ConflictError);
      expect(await radicale.get(USER, "tasks", "plants.ics")).toEqual(onServer);
    });

    it("a task deleted on the server is a conflict with nothing current", async () => {
      await radicale.put(USER, "tasks", "gone.ics", todo("gone", "Gone soon"));
      const read = await current("gone.ics");
      await radicale.delete(USER, "tasks", "gone.ics");
      const attempt = provider.writeTask(connectionTo(radicale), read, { kind: "reopen" });
      await expect(attempt).rejects.toBeInstanceOf(ConflictError);
      expect(((await attempt.catch((error: unknown) => error)) as ConflictError).current).toBeUndefined();
      expect(await radicale.get(USER, "tasks", "gone.ics")).toBeUndefined();
    });

    it("createTask puts a new VTODO with If-None-Match and the next sync does not fetch it again", async () => {
      const before = await provider.sync(connectionTo(radicale), collectionAt(radicale, "tasks"), new Map());
      let mirror = known(before);
      const created = await provider.createTask(connectionTo(radicale), collectionAt(radicale, "tasks"), {
        title: "Book the flights",
        notes: "Window seats",
        dueDate: "2026-12-09",
        dueTime: "18:30",
        priority: "high",
        timeZone: "Europe/Berlin",
      });
      expect(provider.derive(created, DERIVE).tasks[0]).toMatchObject({
        title: "Book the flights",
        notes: "Window seats",
        dueDate: "2026-12-09",
        dueTime: "18:30",
        priority: "high",
        status: "open",
      });
      const file = created.remoteId.split("/").at(-1) ?? "";
      expect((await radicale.get(USER, "tasks", file))?.etag).toBe(created.etag);

      mirror = new Map([...mirror, [created.remoteId, created.etag]]);
      const after = await provider.sync(
        connectionTo(radicale),
        collectionAt(radicale, "tasks", before.syncState),
        mirror,
      );
      expect(after.changed).toEqual([]);
    });

    it("deleteTask with the current ETag deletes it", async () => {
      await radicale.put(USER, "tasks", "bin.ics", todo("bin", "Take out the bin"));
      await provider.deleteTask(connectionTo(radicale), await current("bin.ics"));
      expect(await radicale.get(USER, "tasks", "bin.ics")).toBeUndefined();
    });
  });
});

describe.skipIf(radicaleMissing !== undefined)("CalDAV provider on a 500-task list", () => {
  let radicale: Radicale;
  const provider = loopbackProvider();

  beforeAll(async () => {
    radicale = await startRadicale({ users: { [USER]: PASSWORD } });
    await radicale.makeCalendar(USER, "big", { name: "Big", components: ["VTODO"] });
    await seedTasks(radicale, "big", 500);
  }, 300_000);
  afterAll(async () => {
    await radicale?.stop();
  });

  it("syncs all 500 in one listing and five multigets, then stays at one request when nothing changed", async () => {
    const first = await provider.sync(connectionTo(radicale), collectionAt(radicale, "big"), new Map());
    expect(first.changed).toHaveLength(500);
    expect(first.requests).toBe(6);
    const titles = first.changed.map((object) => provider.derive(object, DERIVE).tasks[0]?.title);
    expect(titles.filter((title) => title?.startsWith("Task number "))).toHaveLength(500);

    const mirror = new Map(first.changed.map((object) => [object.remoteId, object.etag]));
    radicale.proxy.reset();
    const again = await provider.sync(
      connectionTo(radicale),
      collectionAt(radicale, "big", first.syncState),
      mirror,
    );
    expect(again).toMatchObject({ changed: [], removed: [], requests: 1 });
    expect(radicale.proxy.requests).toHaveLength(1);
  });
});
