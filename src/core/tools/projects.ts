import { z } from "zod";
import { PROJECT_STATUSES, type Project } from "../domain.ts";
import { NotFoundError } from "../errors.ts";
import { FIELD_LIMITS } from "../field-limits.ts";
import { defineTool, mutation, type ToolContext, type UndoProjectFields } from "./define-tool.ts";
import { cutList, projectView } from "./format.ts";
import { idArgument, searchQuery } from "./schemas.ts";

/** Bounds the receipt (and so the prompt) for people with very many projects. */
const MAX_PROJECTS = 15;

export const listProjectsTool = defineTool({
  name: "list_projects",
  description: "The user's projects with their status and summary.",
  readOnly: true,
  input: z.object({ status: z.enum(PROJECT_STATUSES).optional().describe("Only projects with this status") }),
  async handler({ status }, context) {
    const found = await context.records.listProjects(context.user.id, status);
    const { shown, more } = cutList(found, MAX_PROJECTS, "projects");
    return {
      ...(status ? { status } : {}),
      count: found.length,
      projects: shown.map((project) => projectView(project, status)),
      ...(found.length === 0 ? { note: status ? `No ${status} projects.` : "No projects." } : {}),
      ...(more ? { note: more } : {}),
    };
  },
});

export const searchProjectsTool = defineTool({
  name: "search_projects",
  description: "The user's projects whose name or summary contains the query (any case).",
  readOnly: true,
  input: z.object({ query: searchQuery.describe("Words to look for") }),
  async handler({ query }, context) {
    const found = await context.records.searchProjects(context.user.id, query);
    const { shown, more } = cutList(found, MAX_PROJECTS, "projects");
    return {
      query,
      count: found.length,
      projects: shown.map((project) => projectView(project)),
      ...(more ? { note: more } : {}),
      ...(found.length === 0 ? { note: `No project matches "${query}".` } : {}),
    };
  },
});

export const createProjectTool = defineTool({
  name: "create_project",
  description: "Create a project for the user.",
  readOnly: false,
  input: z.object({
    name: z.string().trim().min(1, { error: "must not be empty" }).max(FIELD_LIMITS.projectName),
    summary: z.string().max(FIELD_LIMITS.projectSummary).optional(),
    status: z.enum(PROJECT_STATUSES).optional(),
  }),
  async describe(args) {
    return `Create project "${args.name}"${args.status ? ` (${args.status})` : ""}`;
  },
  async handler(args, context) {
    const existing = await context.records.findProjectByName(context.user.id, args.name);
    if (existing) throw new Error(`a project named "${existing.name}" already exists (id ${existing.id})`);
    const project = await context.records.createProject({
      userId: context.user.id,
      name: args.name,
      ...(args.summary !== undefined ? { summary: args.summary } : {}),
      ...(args.status !== undefined ? { status: args.status } : {}),
    });
    return mutation({ created: projectView(project) }, `Created project ${project.id} "${project.name}"`, {
      op: "delete_project",
      id: project.id,
    });
  },
});

export const updateProjectTool = defineTool({
  name: "update_project",
  description: "Change a project's name, summary or status. Only the fields given change.",
  readOnly: false,
  input: z.object({
    id: idArgument("project"),
    name: z.string().trim().min(1).max(FIELD_LIMITS.projectName).optional(),
    summary: z.string().max(FIELD_LIMITS.projectSummary).optional(),
    status: z.enum(PROJECT_STATUSES).optional(),
  }),
  async describe({ id, ...changes }, context) {
    const project = await requireProject(context, id);
    const parts = [
      changes.name !== undefined ? `name → "${changes.name}"` : "",
      changes.status !== undefined ? `status ${project.status} → ${changes.status}` : "",
      changes.summary !== undefined ? "new summary" : "",
    ].filter(Boolean);
    return `Change project ${project.id} "${project.name}": ${parts.join("; ") || "nothing"}`;
  },
  async handler({ id, ...changes }, context) {
    const before = await requireProject(context, id);
    const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(given).length === 0) throw new Error("nothing to change: give name, summary or status");
    if (changes.name) {
      const clash = await context.records.findProjectByName(context.user.id, changes.name);
      if (clash && clash.id !== id)
        throw new Error(`a project named "${clash.name}" already exists (id ${clash.id})`);
    }
    const project = await context.records.updateProject(context.user.id, id, given, context.clock.now());
    const previous: UndoProjectFields = Object.fromEntries(
      Object.keys(given).map((field) => [field, before[field as keyof UndoProjectFields]]),
    );
    return mutation(
      { updated: projectView(project) },
      `Updated project ${project.id} "${project.name}" (${project.status})`,
      { op: "restore_project", id: project.id, fields: previous },
    );
  },
});

async function requireProject(context: ToolContext, id: number): Promise<Project> {
  const project = (await context.records.listProjects(context.user.id)).find((entry) => entry.id === id);
  if (!project) throw new NotFoundError(`no project ${id}`);
  return project;
}

export const projectTools = [listProjectsTool, searchProjectsTool, createProjectTool, updateProjectTool];
