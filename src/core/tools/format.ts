/**
 * Compact JSON shapes of rows as the model sees them. Times are the user's wall-clock ("HH:MM") and dates
 * their local dates, so the model repeats local times and the grounding check finds them in the receipts.
 * Compact means: no null or empty fields, no field that only repeats the default (an open task's status, a
 * normal priority), and lists cut at a bound with a line saying how many were left out.
 */
import { DateTime } from "luxon";
import type { Note, Project, Task } from "../domain.ts";

export function taskView(task: Task, projectNames?: ReadonlyMap<number, string>): Record<string, unknown> {
  return compact({
    id: task.id,
    title: task.title,
    due: task.dueDate,
    due_time: task.dueTime,
    priority: task.priority === "normal" ? null : task.priority,
    status: task.status === "open" ? null : task.status,
    project: task.projectId !== null ? (projectNames?.get(task.projectId) ?? task.projectId) : null,
    /** Where an account's task lives ("Nextcloud · Personal"); absent for a local task. */
    from: task.sourceName ?? null,
    /** A subtask's parent task id (the parent is listed right before its subtasks when it is listed). */
    parent: task.parentId,
    notes: clip(task.notes, 80),
  });
}

/** `listed`: the status the list was filtered by, which each project then need not repeat. */
export function projectView(project: Project, listed?: Project["status"]): Record<string, unknown> {
  return compact({
    id: project.id,
    name: project.name,
    status: project.status === listed ? null : project.status,
    summary: clip(project.summary, 100),
  });
}

export function noteView(note: Note, zone: string): Record<string, unknown> {
  return compact({
    id: note.id,
    title: note.title,
    body: clip(note.body, 200),
    written: localStamp(note.createdAt, zone),
  });
}

/**
 * The first `max` items, and the line that says how many were left out ("12 more events not shown."), so the
 * model never reads a cut list as the whole.
 */
export function cutList<T>(items: readonly T[], max: number, noun: string): { shown: T[]; more?: string } {
  if (items.length <= max) return { shown: [...items] };
  return { shown: items.slice(0, max), more: `${items.length - max} more ${noun} not shown.` };
}

/** When data was fetched, as a person reads it in their zone: "06:12" today, else "Sun 1 Jun 22:10". */
export function asOfStamp(instant: Date, zone: string, now: Date): string {
  const at = DateTime.fromJSDate(instant, { zone });
  return at.hasSame(DateTime.fromJSDate(now, { zone }), "day")
    ? at.toFormat("HH:mm")
    : at.toFormat("ccc d LLL HH:mm");
}

/** "2025-06-02 14:30" in the user's zone. */
export function localStamp(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-LL-dd HH:mm");
}

/** Drops null, undefined and empty strings: less for the model to read, nothing lost. */
export function compact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined && value !== ""),
  );
}

export function clip(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `${trimmed.slice(0, max - 1)}…`;
}
