/**
 * Todoist's four priorities onto briefbot's three. Todoist's numbers run backwards to its labels: 4 is
 * "p1" (urgent, red), 3 "p2", 2 "p3", 1 "p4" (no flag, every new task's default). The default maps to our
 * default, `normal`, so an unflagged list is not read out as "low priority"; the two flags Todoist shows as
 * urgent and high (p1, p2) are our `high`, p3 is `normal`. Nothing in Todoist means "lower than unflagged",
 * so no Todoist task is `low`.
 */
import type { TaskPriority } from "../../../core/domain.ts";

export function priorityFromTodoist(priority: number): TaskPriority {
  return priority >= 3 ? "high" : "normal";
}

/**
 * Ours back to Todoist's. A level keeps the task's own number when it already maps to it, so writing a
 * task back does not turn a "p2" into a "p1" or a "p3" into no flag; `low` is no flag.
 */
export function priorityToTodoist(priority: TaskPriority, current?: number): number {
  if (priority === "high") return current === 3 || current === 4 ? current : 4;
  if (priority === "low") return 1;
  return current === 1 || current === 2 ? current : 1;
}
