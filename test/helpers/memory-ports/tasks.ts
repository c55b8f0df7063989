/** A user's tasks in memory, as `Records` reads and changes them. */
import type { Task, TaskQuery } from "../../../src/core/domain.ts";
import { NotFoundError } from "../../../src/core/errors.ts";
import type { Records } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables, removeTasks } from "./tables.ts";

/** What a list holds when the query names no limit, as the database's query does. */
const DEFAULT_LIMIT = 50;

type TaskPort = Pick<
  Records,
  | "listTasks"
  | "countTasks"
  | "getTask"
  | "createTask"
  | "updateTask"
  | "completeTask"
  | "reopenTask"
  | "deleteTask"
>;

export function createMemoryTasks(tables: MemoryTables): TaskPort {
  function change(userId: number, id: number, changes: Partial<Task>): Task {
    const task = tables.tasks.find((row) => row.userId === userId && row.id === id);
    if (!task) throw new NotFoundError(`no task ${id}`);
    for (const [key, value] of Object.entries(changes))
      if (value !== undefined) Object.assign(task, { [key]: value });
    return copyRow(task);
  }
  const matching = (userId: number, query: TaskQuery) =>
    tables.tasks.filter((task) => task.userId === userId && matches(task, query));
  return {
    listTasks: async (userId, query) =>
      matching(userId, query)
        .sort(query.filter === "completed_recently" ? byCompletionNewestFirst : byDue)
        .slice(0, query.limit ?? DEFAULT_LIMIT)
        .map(copyRow),
    countTasks: async (userId, query) => matching(userId, query).length,
    getTask: async (userId, id) => {
      const task = tables.tasks.find((row) => row.userId === userId && row.id === id);
      return task && copyRow(task);
    },
    async createTask(values) {
      const at = tables.now();
      const task: Task = {
        id: tables.nextId("tasks"),
        userId: values.userId,
        projectId: values.projectId ?? null,
        title: values.title,
        notes: values.notes ?? "",
        dueDate: values.dueDate ?? null,
        dueTime: values.dueTime ?? null,
        priority: values.priority ?? "normal",
        status: "open",
        completedAt: null,
        parentId: null,
        createdAt: values.createdAt ?? at,
        updatedAt: values.updatedAt ?? at,
      };
      tables.tasks.push(task);
      return copyRow(task);
    },
    updateTask: async (userId, id, changes, now) => change(userId, id, { ...changes, updatedAt: now }),
    completeTask: async (userId, id, now) =>
      change(userId, id, { status: "done", completedAt: now, updatedAt: now }),
    async reopenTask(userId, id, now) {
      const task = change(userId, id, { status: "open", updatedAt: now });
      const stored = tables.tasks.find((row) => row.id === task.id);
      if (stored) stored.completedAt = null;
      return { ...task, completedAt: null };
    },
    async deleteTask(userId, id) {
      const [task] = removeTasks(tables, (row) => row.userId === userId && row.id === id);
      if (!task) throw new NotFoundError(`no task ${id}`);
      return task;
    },
  };
}

function matches(task: Task, query: TaskQuery): boolean {
  const open = task.status === "open";
  switch (query.filter) {
    case "due_today":
      return open && task.dueDate === query.today;
    case "overdue":
      return open && task.dueDate !== null && task.dueDate < query.today;
    case "high_priority":
      return open && task.priority === "high";
    case "open":
      return open;
    case "completed_recently":
      return task.status === "done" && task.completedAt !== null && task.completedAt >= query.completedSince;
  }
}

/** Soonest due first, undated last; then by time (untimed last, as nulls sort last ascending), then id. */
function byDue(a: Task, b: Task): number {
  return nullsLast(a.dueDate, b.dueDate) || nullsLast(a.dueTime, b.dueTime) || a.id - b.id;
}

function byCompletionNewestFirst(a: Task, b: Task): number {
  return (b.completedAt?.getTime() ?? 0) - (a.completedAt?.getTime() ?? 0);
}

function nullsLast(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
