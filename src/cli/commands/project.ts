import { createProject, findProjectByName, listProjects } from "../../../db/queries/projects.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import type { ProjectStatus } from "../../../db/schema/users.ts";
import { FIELD_LIMITS } from "../../core/field-limits.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";
import { parseText } from "../parse.ts";

const STATUSES: ProjectStatus[] = ["active", "paused", "done", "archived"];

interface ProjectOptions {
  user: string;
  summary?: string;
  status?: string;
  json?: boolean;
}

function parseStatus(value: string): ProjectStatus {
  if (!(STATUSES as string[]).includes(value))
    throw new CliError(`--status "${value}" must be one of ${STATUSES.join(", ")}`);
  return value as ProjectStatus;
}

export const registerProjectCommands: RegisterCommands = (program, context) => {
  const project = program.command("project").description("a user's projects");

  project
    .command("add <name...>")
    .description("add a project")
    .requiredOption("--user <name>", "whose project")
    .option("--summary <text>", "what it is about and where it stands", "")
    .option("--status <status>", STATUSES.join(", "), "active")
    .option("--json", "machine-readable output")
    .action((words: string[], options: ProjectOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUserByName(ctx.db, options.user);
        const name = parseText("the name", words.join(" ").trim(), FIELD_LIMITS.projectName);
        if (!name) throw new CliError("a project needs a name");
        const summary = parseText("--summary", options.summary ?? "", FIELD_LIMITS.projectSummary);
        const status = parseStatus(options.status ?? "active");
        if (await findProjectByName(ctx.db, owner.id, name))
          throw new CliError(`${owner.name} already has a project "${name}"`);
        const created = await createProject(ctx.db, {
          userId: owner.id,
          name,
          summary,
          status,
        });
        if (options.json) ctx.out.json(created);
        else ctx.out.line(`added project ${created.id}: ${created.name} (${created.status})`);
      }),
    );

  project
    .command("list")
    .description("list projects")
    .requiredOption("--user <name>", "whose projects")
    .option("--status <status>", `only ${STATUSES.join(" / ")}`)
    .option("--json", "machine-readable output")
    .action((options: ProjectOptions) =>
      withContext(context, async (ctx) => {
        const status = options.status ? parseStatus(options.status) : undefined;
        const owner = await requireUserByName(ctx.db, options.user);
        const rows = await listProjects(ctx.db, owner.id, status);
        if (options.json) return ctx.out.json(rows);
        if (rows.length === 0) return ctx.out.line("no projects");
        for (const row of rows) {
          ctx.out.line(
            `${String(row.id).padStart(4)}  ${row.name} (${row.status})${row.summary ? ` — ${row.summary}` : ""}`,
          );
        }
      }),
    );
};
