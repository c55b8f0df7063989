/**
 * What a Todoist task means to briefbot: a DerivedTask. Due times come in three shapes (see task-json.ts):
 * an instant ("…Z"), a time fixed in a named zone, or a floating time that means the same clock time
 * wherever the person is; the first two are moved into the user's zone, the third is taken as it is.
 */
import { DateTime } from "luxon";
import type { DerivedItems, DerivedTask, DeriveOptions, RemoteObject } from "../../../core/accounts/ports.ts";
import { priorityFromTodoist } from "./priority.ts";
import { readTaskJson, type TaskJson } from "./task-json.ts";
import { TodoistItemError } from "./todoist-error.ts";

const HAS_OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function deriveTodoistTask(object: RemoteObject, options: DeriveOptions): DerivedItems {
  const task = readTaskJson(object);
  // A deleted task derives to nothing; the sync reports it as removed and it never reaches here.
  if (task.is_deleted) return { tasks: [], events: [] };
  return { tasks: [derivedTask(task, options.timeZone)], events: [] };
}

function derivedTask(task: TaskJson, timeZone: string): DerivedTask {
  const due = dueOf(task, timeZone);
  const completedAt = task.completed_at === null ? null : new Date(task.completed_at);
  if (completedAt !== null && Number.isNaN(completedAt.getTime())) {
    throw new TodoistItemError(
      `Todoist task ${task.id} has an unreadable completed_at: ${task.completed_at}`,
    );
  }
  return {
    title: task.content,
    notes: task.description,
    dueDate: due.date,
    dueTime: due.time,
    priority: priorityFromTodoist(task.priority),
    status: task.checked ? "done" : "open",
    completedAt: task.checked ? completedAt : null,
    parentRemoteId: task.parent_id,
    labels: task.labels,
  };
}

function dueOf(task: TaskJson, timeZone: string): { date: string | null; time: string | null } {
  if (task.due === null) return { date: null, time: null };
  const { date, datetime, timezone } = task.due;
  const stamp = datetime ?? (date.includes("T") ? date : null);
  if (stamp === null) {
    if (!DATE_ONLY.test(date))
      throw new TodoistItemError(`Todoist task ${task.id} has an unreadable due date: ${date}`);
    return { date, time: null };
  }
  const read = HAS_OFFSET.test(stamp)
    ? DateTime.fromISO(stamp, { setZone: true })
    : DateTime.fromISO(stamp, { zone: timezone ?? timeZone });
  if (!read.isValid) {
    throw new TodoistItemError(
      `Todoist task ${task.id} has an unreadable due time: ${stamp} (${read.invalidExplanation ?? read.invalidReason})`,
    );
  }
  const local = read.setZone(timeZone);
  return { date: local.toISODate(), time: local.toFormat("HH:mm") };
}
