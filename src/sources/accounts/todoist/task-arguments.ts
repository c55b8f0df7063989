/**
 * briefbot's drafts and changes as the SDK's task arguments. Due times: a time the user gives (on a new
 * task or a change) is their wall time in their zone, sent as the instant (`due_datetime`, RFC 3339 in
 * UTC, as Todoist's v1 API documents it), so it does not depend on the zone set in the Todoist account; a
 * kept time (only the date moves) is written back in the frame the task already had, so it does not move.
 */
import type { AddTaskArgs, UpdateTaskArgs } from "@doist/todoist-sdk";
import { DateTime } from "luxon";
import type { TaskDraft, TaskWrite } from "../../../core/accounts/ports.ts";
import { priorityToTodoist } from "./priority.ts";
import type { TaskJson } from "./task-json.ts";
import { TodoistError } from "./todoist-error.ts";

const HAS_OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

export function addTaskArguments(projectId: string, draft: TaskDraft): AddTaskArgs {
  const base = {
    content: draft.title,
    description: draft.notes ?? "",
    projectId,
    priority: priorityToTodoist(draft.priority ?? "normal"),
  };
  const date = draft.dueDate ?? null;
  const time = draft.dueTime ?? null;
  if (date === null) {
    if (time !== null) throw new TodoistError("todoist_bad_write", "A due time needs a due date");
    return base;
  }
  if (time === null) return { ...base, dueDate: date };
  return { ...base, dueDatetime: instant(date, time, draft.timeZone) };
}

type Changes = Extract<TaskWrite, { kind: "update" }>["changes"];

export function updateTaskArguments(current: TaskJson, changes: Changes, timeZone: string): UpdateTaskArgs {
  const args: UpdateTaskArgs = {};
  if (changes.title !== undefined) args.content = changes.title;
  if (changes.notes !== undefined) args.description = changes.notes;
  if (changes.priority !== undefined) args.priority = priorityToTodoist(changes.priority, current.priority);
  if (changes.dueDate === undefined && changes.dueTime === undefined) return args;
  return { ...args, ...dueArguments(current, changes, timeZone) };
}

function dueArguments(current: TaskJson, changes: Changes, timeZone: string): UpdateTaskArgs {
  const kept = keptDue(current);
  const date = changes.dueDate !== undefined ? changes.dueDate : kept.date;
  if (date === null) {
    if (changes.dueTime) throw new TodoistError("todoist_bad_write", "A due time needs a due date");
    return { dueString: null };
  }
  if (changes.dueTime === null) return { dueDate: date };
  if (changes.dueTime !== undefined) return { dueDatetime: instant(date, changes.dueTime, timeZone) };
  if (kept.time === null) return { dueDate: date };
  return kept.zone === null
    ? { dueString: `${date} ${kept.time}` }
    : { dueDatetime: instant(date, kept.time, kept.zone) };
}

/** The current due date and time in the task's own frame: its zone, UTC for a bare instant, none if floating. */
function keptDue(current: TaskJson): { date: string | null; time: string | null; zone: string | null } {
  if (current.due === null) return { date: null, time: null, zone: null };
  const stamp = current.due.datetime ?? (current.due.date.includes("T") ? current.due.date : null);
  if (stamp === null) return { date: current.due.date, time: null, zone: null };
  const zone = current.due.timezone ?? (HAS_OFFSET.test(stamp) ? "UTC" : null);
  const read = zone === null ? DateTime.fromISO(stamp, { zone: "UTC" }) : DateTime.fromISO(stamp, { zone });
  if (!read.isValid) return { date: current.due.date.slice(0, 10), time: null, zone: null };
  return { date: read.toISODate(), time: read.toFormat("HH:mm"), zone };
}

function instant(date: string, time: string, zone: string): string {
  const local = DateTime.fromISO(`${date}T${time}`, { zone });
  if (!local.isValid)
    throw new TodoistError("todoist_bad_write", `Not a due date and time in ${zone}: ${date} ${time}`);
  return local.toUTC().toISO({ suppressMilliseconds: true }) ?? `${date}T${time}:00Z`;
}
