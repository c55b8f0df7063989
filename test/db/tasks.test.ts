import { expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import {
  completeTask,
  countTasks,
  createTask,
  deleteTask,
  getTask,
  listTasks,
  updateTask,
} from "../../db/queries/tasks.ts";
import type { TaskFilter } from "../../src/core/domain.ts";
import { isPastDue, taskQuery } from "../../src/core/tasks.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

/** Titles of a user's tasks for a filter, "today" worked out in their zone at `now` as the tools do. */
async function titles(
  db: Database,
  who: { userId: number; timeZone: string; now: Date },
  filter: TaskFilter,
): Promise<string[]> {
  const rows = await listTasks(db, who.userId, taskQuery(filter, who.timeZone, who.now));
  return rows.map((row) => row.title);
}

describeEachDatabase("task filters in the user's time zone", (getDb) => {
  it("a task due 1 December is today's in Auckland while it is still 30 November in Los Angeles", async () => {
    const db = getDb();
    const now = new Date("2026-11-30T20:00:00Z"); // Auckland 1 Dec 09:00, Los Angeles 30 Nov 12:00
    const auckland = await createTestUser(db, { timeZone: "Pacific/Auckland" });
    const losAngeles = await createTestUser(db, { timeZone: "America/Los_Angeles" });
    for (const user of [auckland, losAngeles]) {
      await createTask(db, { userId: user.id, title: "Pay rent", dueDate: "2026-12-01" });
      await createTask(db, { userId: user.id, title: "Call bank", dueDate: "2026-11-30" });
    }
    const nz = { userId: auckland.id, timeZone: auckland.timeZone, now };
    const la = { userId: losAngeles.id, timeZone: losAngeles.timeZone, now };
    expect(await titles(db, nz, "due_today")).toEqual(["Pay rent"]);
    expect(await titles(db, nz, "overdue")).toEqual(["Call bank"]);
    expect(await titles(db, la, "due_today")).toEqual(["Call bank"]);
    expect(await titles(db, la, "overdue")).toEqual([]);
  });

  it("keeps London's today right across the spring-forward change", async () => {
    const db = getDb();
    const london = await createTestUser(db, { timeZone: "Europe/London" });
    await createTask(db, { userId: london.id, title: "Clocks went forward", dueDate: "2026-03-29" });
    const who = (iso: string) => ({ userId: london.id, timeZone: "Europe/London", now: new Date(iso) });
    expect(await titles(db, who("2026-03-28T23:30:00Z"), "due_today")).toEqual([]);
    expect(await titles(db, who("2026-03-29T00:30:00Z"), "due_today")).toEqual(["Clocks went forward"]);
    // 23:30 BST on the 29th is 22:30 UTC: still the 29th locally.
    expect(await titles(db, who("2026-03-29T22:30:00Z"), "due_today")).toEqual(["Clocks went forward"]);
    expect(await titles(db, who("2026-03-29T23:30:00Z"), "overdue")).toEqual(["Clocks went forward"]);
  });

  it("keeps New York's today right across the fall-back change", async () => {
    const db = getDb();
    const ny = await createTestUser(db, { timeZone: "America/New_York" });
    await createTask(db, { userId: ny.id, title: "Fall back", dueDate: "2026-11-01" });
    const who = (iso: string) => ({ userId: ny.id, timeZone: "America/New_York", now: new Date(iso) });
    // 23:30 EST on 1 November; a fixed summer offset would already call it the 2nd.
    expect(await titles(db, who("2026-11-02T04:30:00Z"), "due_today")).toEqual(["Fall back"]);
    expect(await titles(db, who("2026-11-02T05:30:00Z"), "overdue")).toEqual(["Fall back"]);
  });

  it("filters high priority, open and recently completed tasks, only the user's own", async () => {
    const db = getDb();
    const now = new Date("2026-12-02T10:00:00Z");
    const ann = await createTestUser(db, { timeZone: "Europe/London" });
    const bob = await createTestUser(db, { timeZone: "Europe/London" });
    await createTask(db, { userId: ann.id, title: "Urgent", priority: "high", dueDate: "2026-12-05" });
    await createTask(db, { userId: ann.id, title: "Someday" });
    await createTask(db, { userId: ann.id, title: "Soon", dueDate: "2026-12-03", dueTime: "09:00" });
    await createTask(db, { userId: bob.id, title: "Bob's urgent", priority: "high" });
    const old = await createTask(db, { userId: ann.id, title: "Done last week" });
    const recent = await createTask(db, { userId: ann.id, title: "Done yesterday" });
    await completeTask(db, ann.id, old.id, new Date("2026-11-25T10:00:00Z"));
    await completeTask(db, ann.id, recent.id, new Date("2026-12-01T08:00:00Z"));
    const who = { userId: ann.id, timeZone: ann.timeZone, now };
    expect(await titles(db, who, "high_priority")).toEqual(["Urgent"]);
    expect(await titles(db, who, "open")).toEqual(["Soon", "Urgent", "Someday"]);
    expect(await titles(db, who, "completed_recently")).toEqual(["Done yesterday"]);
  });

  it("never updates, completes or deletes another user's task", async () => {
    const db = getDb();
    const now = new Date("2026-12-02T10:00:00Z");
    const owner = await createTestUser(db);
    const intruder = await createTestUser(db);
    const task = await createTask(db, { userId: owner.id, title: "Private" });
    await expect(updateTask(db, intruder.id, task.id, { title: "Hacked" }, now)).rejects.toThrow(
      `no task ${task.id}`,
    );
    await expect(completeTask(db, intruder.id, task.id, now)).rejects.toThrow(`no task ${task.id}`);
    await expect(deleteTask(db, intruder.id, task.id)).rejects.toThrow(`no task ${task.id}`);
    expect(await getTask(db, owner.id, task.id)).toMatchObject({ title: "Private", status: "open" });
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

describeEachDatabase("true task counts", (getDb) => {
  it("counts every task a filter matches, past the page a list stops at", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const now = new Date("2026-12-14T09:00:00Z");
    for (let index = 0; index < 61; index += 1) {
      await createTask(db, { userId: user.id, title: `Task ${index + 1}`, dueDate: "2026-12-14" });
    }
    await createTask(db, { userId: user.id, title: "Tomorrow's", dueDate: "2026-12-15" });
    const query = taskQuery("due_today", user.timeZone, now, 50);
    expect(await listTasks(db, user.id, query)).toHaveLength(50);
    expect(await countTasks(db, user.id, query)).toBe(61);
    expect(await countTasks(db, user.id, taskQuery("overdue", user.timeZone, now))).toBe(0);
  });
});
