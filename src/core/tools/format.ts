/**
 * Compact JSON shapes of rows as the model sees them. Times are the user's wall-clock ("HH:MM") and dates
 * their local dates, so the model repeats local times and the grounding check finds them in the receipts.
 */
import { DateTime } from "luxon";
import type { Note, Project, Task } from "../domain.ts";

export function taskView(task: Task, projectNames?: ReadonlyMap<number, string>): Record<string, unknown> {
  return compact({
    id: task.id,
    title: task.title,
    due: task.dueDate,
    due_time: task.dueTime,
    priority: task.priority,
    status: task.status,
    project: task.projectId !== null ? (projectNames?.get(task.projectId) ?? task.projectId) : null,
    notes: clip(task.notes, 200),
  });
}

export function projectView(project: Project): Record<string, unknown> {
  return compact({
    id: project.id,
    name: project.name,
    status: project.status,
    summary: clip(project.summary, 300),
  });
}

export function noteView(note: Note, zone: string): Record<string, unknown> {
  return compact({
    id: note.id,
    title: note.title,
    body: clip(note.body, 400),
    written: localStamp(note.createdAt, zone),
  });
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
