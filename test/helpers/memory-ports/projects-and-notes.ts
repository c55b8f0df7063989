/** A user's projects and notes in memory, as `Records` reads and changes them. */
import type { Note, Project } from "../../../src/core/domain.ts";
import { NotFoundError } from "../../../src/core/errors.ts";
import type { Records } from "../../../src/core/ports.ts";
import { copyRow, type MemoryTables, removeWhere, UniqueViolation } from "./tables.ts";
import { compareText } from "./users.ts";

const SEARCH_LIMIT = 10;
const NOTES_DEFAULT_LIMIT = 20;

type ProjectAndNotePort = Pick<
  Records,
  | "listProjects"
  | "searchProjects"
  | "findProjectByName"
  | "createProject"
  | "updateProject"
  | "deleteProject"
  | "listNotes"
  | "searchNotes"
  | "createNote"
  | "deleteNote"
>;

export function createMemoryProjectsAndNotes(tables: MemoryTables): ProjectAndNotePort {
  const projectsOf = (userId: number) =>
    tables.projects.filter((row) => row.userId === userId).sort((a, b) => compareText(a.name, b.name));
  const notesNewestFirst = (userId: number) =>
    tables.notes
      .filter((row) => row.userId === userId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
  /** The unique index on (user, lower(name)). */
  function refuseTakenName(userId: number, name: string, except?: number): void {
    if (
      tables.projects.some(
        (row) => row.userId === userId && row.id !== except && row.name.toLowerCase() === name.toLowerCase(),
      )
    )
      throw new UniqueViolation("projects_user_name_idx");
  }
  return {
    listProjects: async (userId, status) =>
      projectsOf(userId)
        .filter((row) => status === undefined || row.status === status)
        .map(copyRow),
    searchProjects: async (userId, query) =>
      projectsOf(userId)
        .filter((row) => containsIgnoringCase(row.name, query) || containsIgnoringCase(row.summary, query))
        .slice(0, SEARCH_LIMIT)
        .map(copyRow),
    findProjectByName: async (userId, name) => {
      const found = tables.projects.find(
        (row) => row.userId === userId && row.name.toLowerCase() === name.toLowerCase(),
      );
      return found && copyRow(found);
    },
    async createProject(values) {
      refuseTakenName(values.userId, values.name);
      const at = tables.now();
      const project: Project = {
        id: tables.nextId("projects"),
        userId: values.userId,
        name: values.name,
        status: values.status ?? "active",
        summary: values.summary ?? "",
        createdAt: at,
        updatedAt: at,
      };
      tables.projects.push(project);
      return copyRow(project);
    },
    async updateProject(userId, id, changes, now) {
      const project = tables.projects.find((row) => row.userId === userId && row.id === id);
      if (!project) throw new NotFoundError(`no project ${id}`);
      if (changes.name !== undefined) refuseTakenName(userId, changes.name, id);
      for (const [key, value] of Object.entries(changes))
        if (value !== undefined) Object.assign(project, { [key]: value });
      project.updatedAt = now;
      return copyRow(project);
    },
    async deleteProject(userId, id) {
      const [project] = removeWhere(tables.projects, (row) => row.userId === userId && row.id === id);
      if (!project) throw new NotFoundError(`no project ${id}`);
      // Its tasks stay, without a project (on delete set null).
      for (const task of tables.tasks) if (task.projectId === id) task.projectId = null;
      return project;
    },

    listNotes: async (userId, query) =>
      notesNewestFirst(userId)
        .filter((row) => query.since === undefined || row.createdAt >= query.since)
        .slice(0, query.limit ?? NOTES_DEFAULT_LIMIT)
        .map(copyRow),
    searchNotes: async (userId, query) =>
      notesNewestFirst(userId)
        .filter((row) => containsIgnoringCase(row.title, query) || containsIgnoringCase(row.body, query))
        .slice(0, SEARCH_LIMIT)
        .map(copyRow),
    async createNote(values) {
      const note: Note = {
        id: tables.nextId("notes"),
        userId: values.userId,
        title: values.title ?? "",
        body: values.body,
        createdAt: values.createdAt,
      };
      tables.notes.push(note);
      return copyRow(note);
    },
    async deleteNote(userId, id) {
      const [note] = removeWhere(tables.notes, (row) => row.userId === userId && row.id === id);
      if (!note) throw new NotFoundError(`no note ${id}`);
      return note;
    },
  };
}

/** `ilike '%query%'`: a case-insensitive substring, with `%` and `_` in the query taken literally. */
export function containsIgnoringCase(text: string, query: string): boolean {
  return text.toLowerCase().includes(query.toLowerCase());
}
