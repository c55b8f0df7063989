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
