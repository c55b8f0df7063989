/**
 * Todoist's four priorities onto briefbot's three. Todoist's numbers run backwards to its labels: 4 is
 * "p1" (urgent, red), 1 is "p4" (no flag, every new task's default). So 4 is high and 1 low; 2 and 3
 * ("p3", "p2") are both normal, because our scale has one step between "urgent" and "unflagged", and a
 * flagged-but-not-urgent task is neither.
 */
import type { TaskPriority } from "../../../core/domain.ts";

export function priorityFromTodoist(priority: number): TaskPriority {
  if (priority >= 4) return "high";
  if (priority <= 1) return "low";
  return "normal";
}

/**
 * Ours back to Todoist's. `normal` keeps a task's 2 or 3 when it already has one, so writing a task back
 * does not flatten "p2" to "p3".
 */
export function priorityToTodoist(priority: TaskPriority, current?: number): number {
  if (priority === "high") return 4;
  if (priority === "low") return 1;
  return current === 2 || current === 3 ? current : 2;
}
