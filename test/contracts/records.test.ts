/**
 * The contract of `Records` beyond task filters: a task's changes, projects (names unique per user whatever
 * the case), notes newest first, chat-created events and how `Sources.events` shows them on the user's local
 * days. Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import { describeEachStore } from "./harness.ts";

const now = new Date("2026-12-02T10:00:00Z");

describeEachStore("records", (world) => {
  it("updates, completes and reopens a task, and deletes it once", async () => {
    const { records } = world().ports;
    const user = await world().addUser();
    const task = await records.createTask({
      userId: user.id,
      title: "Renew passport",
      dueDate: "2026-12-05",
    });
    expect(task).toMatchObject({
      status: "open",
      priority: "normal",
      notes: "",
      dueTime: null,
      projectId: null,
    });
    const updated = await records.updateTask(user.id, task.id, { priority: "high", dueTime: "09:30" }, now);
    expect(updated).toMatchObject({
      title: "Renew passport",
      priority: "high",
      dueTime: "09:30",
      updatedAt: now,
    });
    const done = await records.completeTask(user.id, task.id, now);
    expect(done).toMatchObject({ status: "done", completedAt: now });
    const reopened = await records.reopenTask(user.id, task.id, new Date(now.getTime() + 1000));
    expect(reopened).toMatchObject({ status: "open", completedAt: null });
    expect((await records.getTask(user.id, task.id))?.completedAt).toBeNull();
    expect(await records.deleteTask(user.id, task.id)).toMatchObject({ id: task.id });
    await expect(records.deleteTask(user.id, task.id)).rejects.toThrow(`no task ${task.id}`);
    expect(await records.getTask(user.id, task.id)).toBeUndefined();
  });

  it("orders open tasks by due date, then time (untimed last), undated last", async () => {
    const { records } = world().ports;
    const user = await world().addUser();
    for (const [title, dueDate, dueTime] of [
      ["undated", null, null],
      ["later day", "2026-12-04", "08:00"],
      ["untimed", "2026-12-03", null],
      ["afternoon", "2026-12-03", "15:00"],
      ["morning", "2026-12-03", "09:00"],
    ] as const)
      await records.createTask({ userId: user.id, title, dueDate, dueTime });
    const open = await records.listTasks(user.id, {
      filter: "open",
      today: "2026-12-02",
      completedSince: now,
    });
    expect(open.map((task) => task.title)).toEqual([
      "morning",
      "afternoon",
      "untimed",
      "later day",
      "undated",
    ]);
    const capped = await records.listTasks(user.id, {
      filter: "open",
      today: "2026-12-02",
      completedSince: now,
      limit: 2,
    });
    expect(capped.map((task) => task.title)).toEqual(["morning", "afternoon"]);
  });

  it("keeps project names unique per user whatever the case, and finds them case-insensitively", async () => {
    const { records } = world().ports;
    const user = await world().addUser();
    const other = await world().addUser();
    const garden = await records.createProject({ userId: user.id, name: "Garden", summary: "Plant tulips" });
    expect(garden).toMatchObject({ status: "active", summary: "Plant tulips" });
    await expect(records.createProject({ userId: user.id, name: "garden" })).rejects.toThrow();
    // Another user's project may share the name.
    await records.createProject({ userId: other.id, name: "Garden" });
    await records.createProject({ userId: user.id, name: "Attic", status: "paused" });
    expect((await records.findProjectByName(user.id, "GARDEN"))?.id).toBe(garden.id);
    expect(await records.findProjectByName(user.id, "Gard")).toBeUndefined();
    expect((await records.listProjects(user.id)).map((project) => project.name)).toEqual(["Attic", "Garden"]);
    expect((await records.listProjects(user.id, "paused")).map((project) => project.name)).toEqual(["Attic"]);
    expect((await records.searchProjects(user.id, "TULIP")).map((project) => project.id)).toEqual([
      garden.id,
    ]);
    expect(await records.searchProjects(user.id, "%")).toEqual([]);
  });

  it("deletes a project but keeps its tasks, without a project; never another user's", async () => {
    const { records } = world().ports;
    const user = await world().addUser();
    const intruder = await world().addUser();
    const project = await records.createProject({ userId: user.id, name: "Move house" });
    const task = await records.createTask({ userId: user.id, title: "Book van", projectId: project.id });
    await expect(records.deleteProject(intruder.id, project.id)).rejects.toThrow(`no project ${project.id}`);
    await expect(records.updateProject(intruder.id, project.id, { name: "Mine" }, now)).rejects.toThrow(
      `no project ${project.id}`,
    );
    expect(await records.updateProject(user.id, project.id, { status: "done" }, now)).toMatchObject({
      name: "Move house",
      status: "done",
      updatedAt: now,
    });
    await records.deleteProject(user.id, project.id);
    expect(await records.getTask(user.id, task.id)).toMatchObject({ projectId: null, title: "Book van" });
  });

  it("lists notes newest first, since an instant and within a limit, and searches them", async () => {
    const { records } = world().ports;
    const user = await world().addUser();
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    const first = await records.createNote({ userId: user.id, body: "Buy 100% rye flour", createdAt: at(0) });
    const second = await records.createNote({
      userId: user.id,
      title: "Call",
      body: "Ring mum",
      createdAt: at(5),
    });
    const third = await records.createNote({ userId: user.id, body: "Water plants", createdAt: at(10) });
    expect((await records.listNotes(user.id, { limit: 20 })).map((note) => note.id)).toEqual([
      third.id,
      second.id,
      first.id,
    ]);
    expect((await records.listNotes(user.id, { limit: 1 })).map((note) => note.id)).toEqual([third.id]);
    expect((await records.listNotes(user.id, { since: at(5), limit: 20 })).map((note) => note.id)).toEqual([
      third.id,
      second.id,
    ]);
    expect((await records.searchNotes(user.id, "CALL")).map((note) => note.id)).toEqual([second.id]);
    // `%` is a character like any other, not a wildcard.
    expect((await records.searchNotes(user.id, "0%")).map((note) => note.id)).toEqual([first.id]);
    expect(await records.searchNotes(user.id, "_")).toEqual([]);
    const stranger = await world().addUser();
    await expect(records.deleteNote(stranger.id, first.id)).rejects.toThrow(`no note ${first.id}`);
    expect(await records.deleteNote(user.id, first.id)).toMatchObject({ id: first.id });
  });

  it("creates, changes and deletes chat events, refusing bad input with the same words", async () => {
    const { records } = world().ports;
    const user = await world().addUser();
    const other = await world().addUser();
    const startsAt = new Date("2026-12-03T14:00:00Z");
    const event = await records.createEvent(user.id, {
      title: "  Dentist ",
      startsAt,
      timeZone: "Europe/London",
    });
    expect(event).toMatchObject({
      title: "Dentist",
      calendarId: null,
      allDay: false,
      startsAt,
      endsAt: new Date("2026-12-03T15:00:00Z"),
      status: "confirmed",
    });
    await expect(
      records.createEvent(user.id, { title: " ", startsAt, timeZone: "Europe/London" }),
    ).rejects.toThrow("an event needs a title");
    await expect(
      records.createEvent(user.id, {
        title: "Backwards",
        startsAt,
        endsAt: new Date(startsAt.getTime() - 1),
        timeZone: "Europe/London",
      }),
    ).rejects.toThrow("an event cannot end before it starts");
    await expect(
      records.createEvent(user.id, {
        title: "Trip",
        allDay: true,
        startDate: "3 Dec",
        timeZone: "Europe/London",
      }),
    ).rejects.toThrow('"3 Dec" is not a date (YYYY-MM-DD)');

    expect(await records.getEvent(other.id, event.id)).toBeUndefined();
    expect(
      await records.updateEvent(other.id, event.id, { title: "Mine" }, "Europe/London", now),
    ).toBeUndefined();
    await expect(records.updateEvent(user.id, event.id, { title: "" }, "Europe/London", now)).rejects.toThrow(
      "an event needs a title",
    );
    expect((await records.getEvent(user.id, event.id))?.title).toBe("Dentist");
    const allDay = await records.updateEvent(
      user.id,
      event.id,
      { allDay: true, startDate: "2026-12-04", endDate: "2026-12-06" },
      "Europe/London",
      now,
    );
    expect(allDay).toMatchObject({
      allDay: true,
      startDate: "2026-12-04",
      endDate: "2026-12-06",
      title: "Dentist",
    });
    expect(await records.deleteEvent(other.id, event.id)).toBe(false);
    expect(await records.deleteEvent(user.id, event.id)).toBe(true);
    expect(await records.deleteEvent(user.id, event.id)).toBe(false);
  });

  it("shows events on the user's local days: multi-day all-day events on each, cancelled ones never", async () => {
    const { records, sources } = world().ports;
    const user = await world().addUser({ timeZone: "Pacific/Auckland" });
    const other = await world().addUser({ timeZone: "Pacific/Auckland" });
    // 08:30 on 3 December in Auckland.
    const morning = new Date("2026-12-02T19:30:00Z");
    await records.createEvent(user.id, {
      title: "Conference",
      allDay: true,
      startDate: "2026-12-02",
      endDate: "2026-12-05",
      timeZone: user.timeZone,
    });
    await records.createEvent(user.id, {
      title: "Standup",
      startsAt: new Date("2026-12-02T21:00:00Z"),
      endsAt: new Date("2026-12-02T21:15:00Z"),
      timeZone: user.timeZone,
    });
    await records.createEvent(user.id, {
      title: "Tomorrow lunch",
      startsAt: new Date("2026-12-03T23:30:00Z"),
      timeZone: user.timeZone,
    });
    await records.createEvent(other.id, { title: "Not mine", startsAt: morning, timeZone: other.timeZone });
    const today = await sources.events(
      { id: user.id, timeZone: user.timeZone },
      { range: "today", now: morning },
    );
    expect(today.map((event) => [event.title, event.start, event.days])).toEqual([
      ["Conference", "2026-12-02", ["2026-12-03"]],
      ["Standup", "2026-12-03 10:00", ["2026-12-03"]],
    ]);
    expect(today[0]).toMatchObject({
      end: "2026-12-04",
      source: "chat",
      status: "confirmed",
      calendarId: null,
    });
    const upcoming = await sources.events(
      { id: user.id, timeZone: user.timeZone },
      { range: "upcoming", days: 2, now: morning },
    );
    expect(upcoming.map((event) => [event.title, event.days])).toEqual([
      ["Conference", ["2026-12-03", "2026-12-04"]],
      ["Standup", ["2026-12-03"]],
      ["Tomorrow lunch", ["2026-12-04"]],
    ]);
  });
});
