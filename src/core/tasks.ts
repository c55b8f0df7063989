/** What "today", "overdue" and "recently" mean for a user's tasks: always their wall clock, never the server's. */
import type { Task, TaskFilter, TaskQuery } from "./domain.ts";
import { addDays, localDate, localTime, startOfLocalDay } from "./local-time.ts";

/** "Completed recently" reaches back to the start of yesterday, local time. */
const RECENT_COMPLETION_DAYS = 2;

/** A task query with the user's local date worked out from `now` in their zone. */
export function taskQuery(filter: TaskFilter, zone: string, now: Date, limit?: number): TaskQuery {
  const today = localDate(now, zone);
  return {
    filter,
    today,
    completedSince: startOfLocalDay(addDays(today, 1 - RECENT_COMPLETION_DAYS), zone),
    ...(limit !== undefined ? { limit } : {}),
  };
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

/**
 * The list with each subtask moved right after its parent (and the parent's earlier subtasks), when the
 * parent is in the list too; everything else keeps its place. A subtask whose parent is not listed stays
 * where the order put it. One level is enough: servers nest deeper, but a person reads "under Move".
 */
export function subtasksUnderParents<TASK extends Pick<Task, "id" | "parentId">>(
  tasks: readonly TASK[],
): TASK[] {
  const listed = new Set(tasks.map((task) => task.id));
  const nested = (task: TASK) =>
    task.parentId !== null && task.parentId !== task.id && listed.has(task.parentId);
  const children = new Map<number, TASK[]>();
  for (const task of tasks)
    if (nested(task) && task.parentId !== null)
      children.set(task.parentId, [...(children.get(task.parentId) ?? []), task]);
  const ordered: TASK[] = [];
  const placed = new Set<number>();
  const place = (task: TASK): void => {
    if (placed.has(task.id)) return;
    placed.add(task.id);
    ordered.push(task);
    for (const child of children.get(task.id) ?? []) place(child);
  };
  for (const task of tasks) if (!nested(task)) place(task);
  // A cycle (A under B under A) has no top: its tasks keep their order.
  for (const task of tasks) place(task);
  return ordered;
}
