import { and, asc, desc, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import type { TaskChanges, TaskFilter, TaskQuery } from "../../src/core/domain.ts";
import { NotFoundError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type NewTask, type Task, tasks } from "../schema/index.ts";

export type { TaskChanges, TaskFilter, TaskQuery };

/**
 * Tasks matching a filter for one user (at most `limit`, default 50; `countTasks` gives the true number).
 * - due_today: open, due on the user's local date (including ones whose time has passed: still today's).
 * - overdue: open, due before the user's local date.
 * - high_priority: open, priority high.
 * - open: every open task, soonest due first, undated last.
 * - completed_recently: completed since `completedSince`, newest first.
 */
export async function listTasks(db: Database, userId: number, query: TaskQuery): Promise<Task[]> {
  const byDue = [asc(sql`${tasks.dueDate} is null`), asc(tasks.dueDate), asc(tasks.dueTime), asc(tasks.id)];
  const order = query.filter === "completed_recently" ? [desc(tasks.completedAt)] : byDue;
  return db
    .select()
    .from(tasks)
    .where(matching(userId, query))
    .orderBy(...order)
    .limit(query.limit ?? 50);
}

/** How many tasks match the filter, however many a list of them would hold. */
export async function countTasks(db: Database, userId: number, query: TaskQuery): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(tasks)
    .where(matching(userId, query));
  return Number(row?.count ?? 0);
}

function matching(userId: number, query: TaskQuery) {
  const mine = eq(tasks.userId, userId);
  const open = eq(tasks.status, "open");
  switch (query.filter) {
    case "due_today":
      return and(mine, open, eq(tasks.dueDate, query.today));
    case "overdue":
      return and(mine, open, isNotNull(tasks.dueDate), lt(tasks.dueDate, query.today));
    case "high_priority":
      return and(mine, open, eq(tasks.priority, "high"));
    case "open":
      return and(mine, open);
    case "completed_recently":
      return and(mine, eq(tasks.status, "done"), gte(tasks.completedAt, query.completedSince));
  }
}

export async function getTask(db: Database, userId: number, id: number): Promise<Task | undefined> {
  const [task] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.userId, userId), eq(tasks.id, id)))
    .limit(1);
  return task;
}

export async function createTask(db: Database, values: NewTask): Promise<Task> {
  const [task] = await db.insert(tasks).values(values).returning();
  if (!task) throw new Error("task insert returned nothing");
  return task;
}

/** Updates one of the user's tasks; another user's id is "not found", never touched. */
export async function updateTask(
  db: Database,
  userId: number,
  id: number,
  changes: TaskChanges,
  now: Date,
): Promise<Task> {
  const [task] = await db
    .update(tasks)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(tasks.userId, userId), eq(tasks.id, id)))
    .returning();
  if (!task) throw new NotFoundError(`no task ${id}`);
  return task;
}

export async function completeTask(db: Database, userId: number, id: number, now: Date): Promise<Task> {
  const [task] = await db
    .update(tasks)
    .set({ status: "done", completedAt: now, updatedAt: now })
    .where(and(eq(tasks.userId, userId), eq(tasks.id, id)))
    .returning();
  if (!task) throw new NotFoundError(`no task ${id}`);
  return task;
}

/** Takes a task back to open (what Undo does after a completion). */
export async function reopenTask(db: Database, userId: number, id: number, now: Date): Promise<Task> {
  const [task] = await db
    .update(tasks)
    .set({ status: "open", completedAt: null, updatedAt: now })
    .where(and(eq(tasks.userId, userId), eq(tasks.id, id)))
    .returning();
  if (!task) throw new NotFoundError(`no task ${id}`);
  return task;
}

export async function deleteTask(db: Database, userId: number, id: number): Promise<Task> {
  const [task] = await db
    .delete(tasks)
    .where(and(eq(tasks.userId, userId), eq(tasks.id, id)))
    .returning();
  if (!task) throw new NotFoundError(`no task ${id}`);
  return task;
}
