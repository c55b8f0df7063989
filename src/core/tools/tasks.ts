import { z } from "zod";
import type { Task } from "../domain.ts";
import { TASK_FILTERS, TASK_PRIORITIES } from "../domain.ts";
import { NotFoundError } from "../errors.ts";
import { FIELD_LIMITS } from "../field-limits.ts";
import { subtasksUnderParents, taskQuery } from "../tasks.ts";
import { defineTool, mutation, type ToolContext, type UndoTaskFields } from "./define-tool.ts";
import { taskView } from "./format.ts";
import { clockTime, idArgument, isoDate } from "./schemas.ts";

/**
 * The receipt keeps every task (up to this many, the store's page) and the true count; the model is handed a
 * shorter view of it (model-view.ts), marked as such.
 */
const STORED_TASKS = 500;

const FILTER_MEANING: Record<(typeof TASK_FILTERS)[number], string> = {
  due_today: "open tasks due today",
  overdue: "open tasks due before today",
  high_priority: "open high-priority tasks",
  open: "open tasks",
  completed_recently: "tasks completed since yesterday",
};

export const listTasksTool = defineTool({
  name: "list_tasks",
  description:
    "The user's tasks. filter: due_today, overdue (due before today), high_priority, open (all open), " +
    "completed_recently (done since yesterday). An empty list means none.",
  readOnly: true,
  input: z.object({
    filter: z.enum(TASK_FILTERS).default("open"),
  }),
  async handler({ filter }, context) {
    const query = taskQuery(filter, context.user.timeZone, context.clock.now(), STORED_TASKS);
    const found = await context.records.listTasks(context.user.id, query);
    const count =
      found.length < STORED_TASKS ? found.length : await context.records.countTasks(context.user.id, query);
    const names = await projectNames(context);
    return {
      filter,
      today: query.today,
      count,
      tasks: subtaskCounted(subtasksUnderParents(found), names),
      ...(count === 0 ? { note: `No ${FILTER_MEANING[filter]}.` } : {}),
      ...(count > found.length ? { note: `${count - found.length} more tasks not listed.` } : {}),
    };
  },
});

const taskFields = {
  notes: z.string().max(FIELD_LIMITS.taskNotes).optional().describe("Longer description"),
  due_date: isoDate.optional().describe("Due date, YYYY-MM-DD in the user's time zone"),
  due_time: clockTime.optional().describe("Optional due time, HH:MM (24-hour, local)"),
  priority: z.enum(TASK_PRIORITIES).optional().describe("low, normal or high"),
  project: z.string().trim().min(1).optional().describe("Name of one of the user's projects"),
};

export const createTaskTool = defineTool({
  name: "create_task",
  description: "Create a task for the user. Compute due dates from today's date given in the system prompt.",
  readOnly: false,
  input: z.object({
    title: z.string().trim().min(1, { error: "must not be empty" }).max(FIELD_LIMITS.taskTitle),
    ...taskFields,
  }),
  async describe(args) {
    return `Create task "${args.title}"${taskDetails({ dueDate: args.due_date ?? null, dueTime: args.due_time ?? null, priority: args.priority ?? "normal", project: args.project })}`;
  },
  async handler(args, context) {
    if (args.due_time && !args.due_date) throw new Error("due_time needs a due_date");
    const projectId = args.project ? await projectIdByName(context, args.project) : null;
    const task = await context.records.createTask({
      userId: context.user.id,
      title: args.title,
      notes: args.notes ?? "",
      dueDate: args.due_date ?? null,
      dueTime: args.due_time ?? null,
      priority: args.priority ?? "normal",
      projectId,
      createdAt: context.clock.now(),
      updatedAt: context.clock.now(),
    });
    return mutation(
      { created: taskView(task) },
      `Created task ${task.id} "${task.title}"${taskDetails({ ...task, project: args.project })}`,
      { op: "delete_task", id: task.id },
    );
  },
});

export const updateTaskTool = defineTool({
  name: "update_task",
  description:
    "Change a task's title, notes, due date/time, priority or project. Only the fields given change.",
  readOnly: false,
  input: z.object({
    id: idArgument("task"),
    title: z.string().trim().min(1).max(FIELD_LIMITS.taskTitle).optional(),
    ...taskFields,
    due_date: isoDate.nullable().optional().describe("New due date YYYY-MM-DD, or null to remove it"),
  }),
  async describe(args, context) {
    const task = await requireTask(context, args.id);
    const project =
      task.projectId === null ? null : ((await projectNames(context)).get(task.projectId) ?? null);
    const changes = describeChanges([
      ["title", task.title, args.title],
      ["notes", task.notes, args.notes],
      ["due date", task.dueDate, args.due_date],
      ["due time", task.dueTime, args.due_time],
      ["priority", task.priority, args.priority],
      ["project", project, args.project],
    ]);
    return `Change task ${task.id} "${task.title}": ${changes}`;
  },
  async handler(args, context) {
    const before = await requireTask(context, args.id);
    const changes = {
      ...(args.title !== undefined ? { title: args.title } : {}),
      ...(args.notes !== undefined ? { notes: args.notes } : {}),
      ...(args.due_date !== undefined
        ? { dueDate: args.due_date, ...(args.due_date === null ? { dueTime: null } : {}) }
        : {}),
      ...(args.due_time !== undefined ? { dueTime: args.due_time } : {}),
      ...(args.priority !== undefined ? { priority: args.priority } : {}),
      ...(args.project !== undefined ? { projectId: await projectIdByName(context, args.project) } : {}),
    };
    if (Object.keys(changes).length === 0) throw new Error("nothing to change: give at least one field");
    const task = await context.records.updateTask(context.user.id, args.id, changes, context.clock.now());
    const previous: UndoTaskFields = Object.fromEntries(
      Object.keys(changes).map((field) => [field, before[field as keyof UndoTaskFields]]),
    );
    return mutation(
      { updated: taskView(task) },
      `Updated task ${task.id} "${task.title}"${taskDetails(task)}`,
      { op: "restore_task", id: task.id, fields: previous },
    );
  },
});

export const completeTaskTool = defineTool({
  name: "complete_task",
  description: "Mark one of the user's tasks as done (not its subtasks).",
  readOnly: false,
  input: z.object({ id: idArgument("task") }),
  async describe({ id }, context) {
    const task = await requireTask(context, id);
    return `Mark task ${task.id} "${task.title}" done`;
  },
  async handler({ id }, context) {
    const before = await requireTask(context, id);
    const task = await context.records.completeTask(context.user.id, id, context.clock.now());
    return mutation(
      { completed: taskView(task) },
      `Completed task ${task.id} "${task.title}"${task.sourceName ? ` on ${task.sourceName}` : ""}`,
      before.status === "open" ? { op: "reopen_task", id: task.id } : undefined,
    );
  },
});

export const deleteTaskTool = defineTool({
  name: "delete_task",
  description: "Delete one of the user's tasks. The user must confirm before it happens.",
  readOnly: false,
  input: z.object({ id: idArgument("task") }),
  alwaysConfirm: true,
  async describe({ id }, context) {
    const task = await requireTask(context, id);
    return `Delete task ${task.id} "${task.title}"`;
  },
  async handler({ id }, context) {
    const task = await context.records.deleteTask(context.user.id, id);
    return mutation(
      { deleted: taskView(task) },
      `Deleted task ${task.id} "${task.title}"${task.sourceName ? ` from ${task.sourceName}` : ""}`,
    );
  },
});

export const taskTools = [listTasksTool, createTaskTool, updateTaskTool, completeTaskTool, deleteTaskTool];

/** Each task's view, a parent's with the number of its subtasks in this list. */
function subtaskCounted(
  tasks: readonly Task[],
  names: ReadonlyMap<number, string>,
): Record<string, unknown>[] {
  const subtasks = new Map<number, number>();
  for (const task of tasks)
    if (task.parentId !== null) subtasks.set(task.parentId, (subtasks.get(task.parentId) ?? 0) + 1);
  return tasks.map((task) => {
    const count = subtasks.get(task.id);
    return count === undefined ? taskView(task, names) : { ...taskView(task, names), subtasks: count };
  });
}

async function requireTask(context: ToolContext, id: number): Promise<Task> {
  const task = await context.records.getTask(context.user.id, id);
  if (!task) throw new NotFoundError(`no task ${id}`);
  return task;
}

/** " (due 2025-06-06 14:30, high priority, project Home)", or "" when there is nothing to add. */
function taskDetails(task: {
  dueDate: string | null;
  dueTime: string | null;
  priority: string;
  project?: string | undefined;
  sourceName?: string | null | undefined;
}): string {
  const parts = [
    task.dueDate ? `due ${task.dueDate}${task.dueTime ? ` ${task.dueTime}` : ""}` : "",
    task.priority === "normal" ? "" : `${task.priority} priority`,
    task.project ? `project ${task.project}` : "",
    task.sourceName ? `on ${task.sourceName}` : "",
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** `due date 2025-06-03 → 2025-06-05; priority normal → high`: only the fields the call gives. */
export function describeChanges(
  fields: ReadonlyArray<[string, string | null, string | null | undefined]>,
): string {
  const changed = fields.filter(([, , next]) => next !== undefined);
  if (changed.length === 0) return "nothing";
  return changed
    .map(([label, before, next]) => `${label} ${quoted(before)} → ${quoted(next ?? null)}`)
    .join("; ");
}

function quoted(value: string | null): string {
  return value === null || value === "" ? "(none)" : `"${value}"`;
}

async function projectNames(context: ToolContext): Promise<Map<number, string>> {
  const projects = await context.records.listProjects(context.user.id);
  return new Map(projects.map((project) => [project.id, project.name]));
}

async function projectIdByName(context: ToolContext, name: string): Promise<number> {
  const project = await context.records.findProjectByName(context.user.id, name);
  if (!project) throw new NotFoundError(`no project named "${name}"`);
  return project.id;
}
