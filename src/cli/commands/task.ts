/**
 * `briefbot task …`: a user's tasks. Adding and completing go through the same `Records` as chat, with
 * write-through: a user with a task account (CalDAV, Todoist) gets the task on the server, and the mirror
 * takes what the server answered; a user without one keeps a local task. The listing says where each lives.
 */
import { findProjectByName } from "../../../db/queries/projects.ts";
import { getTask, listTasks } from "../../../db/queries/tasks.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import { createRecords, createUsers } from "../../../db/stores/index.ts";
import { buildAccountService } from "../../build-core.ts";
import { writeThroughRecords } from "../../core/accounts/write-through.ts";
import { TASK_FILTERS, type Task, type TaskFilter } from "../../core/domain.ts";
import { errorMessage } from "../../core/errors.ts";
import { FIELD_LIMITS } from "../../core/field-limits.ts";
import { silentLogger } from "../../core/logger.ts";
import type { Records } from "../../core/ports.ts";
import { redactAddressesIn } from "../../core/redact.ts";
import { taskQuery } from "../../core/tasks.ts";
import { type CliContext, CliError, type RegisterCommands, withContext } from "../context.ts";
import { parseClockTime, parseDueDate, parseId, parsePriority, parseText } from "../parse.ts";

interface TaskOptions {
  user: string;
  due?: string;
  at?: string;
  priority?: string;
  project?: string;
  notes?: string;
  filter?: string;
  json?: boolean;
}

export const registerTaskCommands: RegisterCommands = (program, context) => {
  const task = program.command("task").description("a user's tasks");

  task
    .command("add <title...>")
    .description("add a task")
    .requiredOption("--user <name>", "whose task")
    .option("--due <date>", "due date: YYYY-MM-DD, today or tomorrow (in the user's zone)")
    .option("--at <time>", "due time HH:MM (with --due)")
    .option("--priority <level>", "low, normal or high", "normal")
    .option("--project <name>", "an existing project")
    .option("--notes <text>", "details")
    .option("--json", "machine-readable output")
    .action((words: string[], options: TaskOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUserByName(ctx.db, options.user);
        const title = parseText("the title", words.join(" ").trim(), FIELD_LIMITS.taskTitle);
        if (!title) throw new CliError("a task needs a title");
        const notes = parseText("--notes", options.notes ?? "", FIELD_LIMITS.taskNotes);
        if (options.at && !options.due) throw new CliError("--at needs --due");
        const dueDate = options.due ? parseDueDate(options.due, ctx.clock.now(), owner.timeZone) : null;
        const dueTime = options.at ? parseClockTime("--at", options.at) : null;
        const priority = parsePriority(options.priority ?? "normal");
        let projectId: number | null = null;
        if (options.project) {
          const project = await findProjectByName(ctx.db, owner.id, options.project);
          if (!project)
            throw new CliError(
              `${owner.name} has no project "${options.project}" (see: briefbot project list)`,
            );
          projectId = project.id;
        }
        const created = await onServer("add the task", () =>
          taskRecords(ctx).createTask({
            userId: owner.id,
            title,
            notes,
            dueDate,
            dueTime,
            priority,
            projectId,
          }),
        );
        if (options.json) ctx.out.json(created);
        else ctx.out.line(`added task ${created.id}: ${describeTask(created)}`);
      }),
    );

  task
    .command("list")
    .description("list tasks (dates in the user's zone)")
    .requiredOption("--user <name>", "whose tasks")
    .option("--filter <filter>", `one of ${TASK_FILTERS.join(", ")}`, "open")
    .option("--json", "machine-readable output")
    .action((options: TaskOptions) =>
      withContext(context, async (ctx) => {
        const filter = options.filter ?? "open";
        if (!(TASK_FILTERS as readonly string[]).includes(filter)) {
          throw new CliError(`--filter "${filter}" must be one of ${TASK_FILTERS.join(", ")}`);
        }
        const owner = await requireUserByName(ctx.db, options.user);
        const rows = await listTasks(
          ctx.db,
          owner.id,
          taskQuery(filter as TaskFilter, owner.timeZone, ctx.clock.now()),
        );
        if (options.json) return ctx.out.json(rows);
        if (rows.length === 0) return ctx.out.line(`no ${filter.replace("_", " ")} tasks`);
        for (const row of rows) ctx.out.line(`${String(row.id).padStart(4)}  ${describeTask(row)}`);
      }),
    );

  task
    .command("done <id>")
    .description("mark a task completed")
    .requiredOption("--user <name>", "whose task")
    .option("--json", "machine-readable output")
    .action((id: string, options: TaskOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUserByName(ctx.db, options.user);
        const taskId = parseId("task id", id);
        const existing = taskId === undefined ? undefined : await getTask(ctx.db, owner.id, taskId);
        if (!existing || taskId === undefined) throw new CliError(`${owner.name} has no task ${id.trim()}`);
        if (existing.status === "done") throw new CliError(`task ${taskId} is already done`);
        const done = await onServer("complete the task", () =>
          taskRecords(ctx).completeTask(owner.id, taskId, ctx.clock.now()),
        );
        if (options.json) ctx.out.json(done);
        else ctx.out.line(`done: ${done.title}`);
      }),
    );
};

export function describeTask(task: Task): string {
  const due = task.dueDate ? ` · due ${task.dueDate}${task.dueTime ? ` ${task.dueTime}` : ""}` : "";
  const priority = task.priority === "normal" ? "" : ` · ${task.priority} priority`;
  const status = task.status === "done" ? " · done" : "";
  const where = task.sourceName ? ` · on ${task.sourceName}` : "";
  return `${task.title}${due}${priority}${status}${where}`;
}

/** The records chat uses: an account task's change goes to its server first. */
function taskRecords(ctx: CliContext): Records {
  const accounts = buildAccountService({
    db: ctx.db,
    config: ctx.config,
    clock: ctx.clock,
    logger: silentLogger,
  });
  return writeThroughRecords(createRecords(ctx.db), accounts, createUsers(ctx.db));
}

/** A refusal (the server's, a missing key, a project on an account) as one line; nothing stored here. */
async function onServer<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`could not ${what}: ${redactAddressesIn(errorMessage(error))}`, 1);
  }
}
