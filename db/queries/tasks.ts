import { and, asc, desc, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import { addDays, localDate, localTime, startOfLocalDay } from "../../src/core/local-time.ts";
import type { Database } from "../client.ts";
import { type NewTask, type Task, type TaskPriority, tasks } from "../schema/index.ts";
import { NotFoundError } from "./users.ts";

export const TASK_FILTERS = ["due_today", "overdue", "high_priority", "open", "completed_recently"] as const;
export type TaskFilter = (typeof TASK_FILTERS)[number];

/** Whose "today": every date filter is computed in the user's zone, never the server's. */
export interface UserClock {
  userId: number;
  timeZone: string;
  now: Date;
}

const RECENT_COMPLETION_DAYS = 2;

/**
 * Tasks matching a filter for one user.
 * - due_today: open, due on the user's local date (including ones whose time has passed: still today's).
 * - overdue: open, due before the user's local date.
 * - high_priority: open, priority high.
 * - open: every open task, soonest due first, undated last.
 * - completed_recently: completed since the start of yesterday, local time.
 */
export async function listTasks(
  db: Database,
  who: UserClock,
  filter: TaskFilter,
  limit = 50,
): Promise<Task[]> {
  const today = localDate(who.now, who.timeZone);
  const mine = eq(tasks.userId, who.userId);
  const open = eq(tasks.status, "open");
  const byDue = [asc(sql`${tasks.dueDate} is null`), asc(tasks.dueDate), asc(tasks.dueTime), asc(tasks.id)];
  switch (filter) {
    case "due_today":
      return db
        .select()
        .from(tasks)
        .where(and(mine, open, eq(tasks.dueDate, today)))
        .orderBy(...byDue)
        .limit(limit);
    case "overdue":
      return db
        .select()
        .from(tasks)
        .where(and(mine, open, isNotNull(tasks.dueDate), lt(tasks.dueDate, today)))
        .orderBy(...byDue)
        .limit(limit);
    case "high_priority":
      return db
        .select()
        .from(tasks)
        .where(and(mine, open, eq(tasks.priority, "high")))
        .orderBy(...byDue)
        .limit(limit);
    case "open":
      return db
        .select()
        .from(tasks)
        .where(and(mine, open))
        .orderBy(...byDue)
        .limit(limit);
    case "completed_recently": {
      const since = startOfLocalDay(addDays(today, 1 - RECENT_COMPLETION_DAYS), who.timeZone);
      return db
        .select()
        .from(tasks)
        .where(and(mine, eq(tasks.status, "done"), gte(tasks.completedAt, since)))
        .orderBy(desc(tasks.completedAt))
        .limit(limit);
    }
  }
}

/** True once a task's due date and time have passed on the user's wall clock. */
export function isPastDue(
  task: Pick<Task, "dueDate" | "dueTime" | "status">,
  now: Date,
  zone: string,
): boolean {
  if (task.status !== "open" || !task.dueDate) return false;
  const today = localDate(now, zone);
  if (task.dueDate !== today) return task.dueDate < today;
  return task.dueTime !== null && task.dueTime < localTime(now, zone);
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

export interface TaskChanges {
  title?: string;
  notes?: string;
  dueDate?: string | null;
  dueTime?: string | null;
  priority?: TaskPriority;
  projectId?: number | null;
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

export async function deleteTask(db: Database, userId: number, id: number): Promise<Task> {
  const [task] = await db
    .delete(tasks)
    .where(and(eq(tasks.userId, userId), eq(tasks.id, id)))
    .returning();
  if (!task) throw new NotFoundError(`no task ${id}`);
  return task;
}
