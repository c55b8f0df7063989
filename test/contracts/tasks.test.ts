/**
 * The contract of the task side of `Records`: filters in the user's own time zone, orderings, the list's
 * cap next to the true count, and user scoping. Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import type { TaskFilter } from "../../src/core/domain.ts";
import type { Records } from "../../src/core/ports.ts";
import { isPastDue, taskQuery } from "../../src/core/tasks.ts";
import { describeEachStore } from "./harness.ts";

/** Titles of a user's tasks for a filter, "today" worked out in their zone at `now` as the tools do. */
async function titles(
  db: Records,
  who: { userId: number; timeZone: string; now: Date },
  filter: TaskFilter,
): Promise<string[]> {
  const rows = await db.listTasks(who.userId, taskQuery(filter, who.timeZone, who.now));
  return rows.map((row) => row.title);
}

describeEachStore("task filters in the user's time zone", (world) => {
  it("a task due 1 December is today's in Auckland while it is still 30 November in Los Angeles", async () => {
    const db = world().ports.records;
    const now = new Date("2026-11-30T20:00:00Z"); // Auckland 1 Dec 09:00, Los Angeles 30 Nov 12:00
    const auckland = await world().addUser({ timeZone: "Pacific/Auckland" });
    const losAngeles = await world().addUser({ timeZone: "America/Los_Angeles" });
    for (const user of [auckland, losAngeles]) {
      await db.createTask({ userId: user.id, title: "Pay rent", dueDate: "2026-12-01" });
      await db.createTask({ userId: user.id, title: "Call bank", dueDate: "2026-11-30" });
    }
    const nz = { userId: auckland.id, timeZone: auckland.timeZone, now };
    const la = { userId: losAngeles.id, timeZone: losAngeles.timeZone, now };
    expect(await titles(db, nz, "due_today")).toEqual(["Pay rent"]);
    expect(await titles(db, nz, "overdue")).toEqual(["Call bank"]);
    expect(await titles(db, la, "due_today")).toEqual(["Call bank"]);
    expect(await titles(db, la, "overdue")).toEqual([]);
  });

  it("keeps London's today right across the spring-forward change", async () => {
    const db = world().ports.records;
    const london = await world().addUser({ timeZone: "Europe/London" });
    await db.createTask({ userId: london.id, title: "Clocks went forward", dueDate: "2026-03-29" });
    const who = (iso: string) => ({ userId: london.id, timeZone: "Europe/London", now: new Date(iso) });
    expect(await titles(db, who("2026-03-28T23:30:00Z"), "due_today")).toEqual([]);
    expect(await titles(db, who("2026-03-29T00:30:00Z"), "due_today")).toEqual(["Clocks went forward"]);
    // 23:30 BST on the 29th is 22:30 UTC: still the 29th locally.
    expect(await titles(db, who("2026-03-29T22:30:00Z"), "due_today")).toEqual(["Clocks went forward"]);
    expect(await titles(db, who("2026-03-29T23:30:00Z"), "overdue")).toEqual(["Clocks went forward"]);
  });

  it("keeps New York's today right across the fall-back change", async () => {
    const db = world().ports.records;
    const ny = await world().addUser({ timeZone: "America/New_York" });
    await db.createTask({ userId: ny.id, title: "Fall back", dueDate: "2026-11-01" });
    const who = (iso: string) => ({ userId: ny.id, timeZone: "America/New_York", now: new Date(iso) });
    // 23:30 EST on 1 November; a fixed summer offset would already call it the 2nd.
    expect(await titles(db, who("2026-11-02T04:30:00Z"), "due_today")).toEqual(["Fall back"]);
    expect(await titles(db, who("2026-11-02T05:30:00Z"), "overdue")).toEqual(["Fall back"]);
  });

  it("filters high priority, open and recently completed tasks, only the user's own", async () => {
    const db = world().ports.records;
    const now = new Date("2026-12-02T10:00:00Z");
    const ann = await world().addUser({ timeZone: "Europe/London" });
    const bob = await world().addUser({ timeZone: "Europe/London" });
    await db.createTask({ userId: ann.id, title: "Urgent", priority: "high", dueDate: "2026-12-05" });
    await db.createTask({ userId: ann.id, title: "Someday" });
    await db.createTask({ userId: ann.id, title: "Soon", dueDate: "2026-12-03", dueTime: "09:00" });
    await db.createTask({ userId: bob.id, title: "Bob's urgent", priority: "high" });
    const old = await db.createTask({ userId: ann.id, title: "Done last week" });
    const recent = await db.createTask({ userId: ann.id, title: "Done yesterday" });
    await db.completeTask(ann.id, old.id, new Date("2026-11-25T10:00:00Z"));
    await db.completeTask(ann.id, recent.id, new Date("2026-12-01T08:00:00Z"));
    const who = { userId: ann.id, timeZone: ann.timeZone, now };
    expect(await titles(db, who, "high_priority")).toEqual(["Urgent"]);
    expect(await titles(db, who, "open")).toEqual(["Soon", "Urgent", "Someday"]);
    expect(await titles(db, who, "completed_recently")).toEqual(["Done yesterday"]);
  });

  it("never updates, completes or deletes another user's task", async () => {
    const db = world().ports.records;
    const now = new Date("2026-12-02T10:00:00Z");
    const owner = await world().addUser();
    const intruder = await world().addUser();
    const task = await db.createTask({ userId: owner.id, title: "Private" });
    await expect(db.updateTask(intruder.id, task.id, { title: "Hacked" }, now)).rejects.toThrow(
      `no task ${task.id}`,
    );
    await expect(db.completeTask(intruder.id, task.id, now)).rejects.toThrow(`no task ${task.id}`);
    await expect(db.deleteTask(intruder.id, task.id)).rejects.toThrow(`no task ${task.id}`);
    expect(await db.getTask(owner.id, task.id)).toMatchObject({ title: "Private", status: "open" });
  });
});

it("isPastDue compares the due time with the user's wall clock", () => {
  const task = { dueDate: "2026-12-01", dueTime: "09:00", status: "open" as const };
  expect(isPastDue(task, new Date("2026-11-30T20:30:00Z"), "Pacific/Auckland")).toBe(true); // 09:30 NZDT
  expect(isPastDue(task, new Date("2026-11-30T19:30:00Z"), "Pacific/Auckland")).toBe(false); // 08:30 NZDT
  expect(isPastDue({ ...task, dueTime: null }, new Date("2026-12-01T23:00:00Z"), "Pacific/Auckland")).toBe(
    true,
  );
});

describeEachStore("true task counts", (world) => {
  it("counts every task a filter matches, past the page a list stops at", async () => {
    const db = world().ports.records;
    const user = await world().addUser({ timeZone: "Europe/London" });
    const now = new Date("2026-12-14T09:00:00Z");
    for (let index = 0; index < 61; index += 1) {
      await db.createTask({ userId: user.id, title: `Task ${index + 1}`, dueDate: "2026-12-14" });
    }
    await db.createTask({ userId: user.id, title: "Tomorrow's", dueDate: "2026-12-15" });
    const query = taskQuery("due_today", user.timeZone, now, 50);
    expect(await db.listTasks(user.id, query)).toHaveLength(50);
    expect(await db.countTasks(user.id, query)).toBe(61);
    expect(await db.countTasks(user.id, taskQuery("overdue", user.timeZone, now))).toBe(0);
  });
});
