/** A user's tasks, projects, notes and chat-created events, as the core's tools read and change them. */
import type { Database } from "../client.ts";
import {
  type ChatEventChanges,
  createEvent,
  deleteEvent,
  getEvent,
  type NewChatEvent,
  updateEvent,
} from "../queries/events.ts";
import { createNote, deleteNote, listNotes, searchNotes } from "../queries/notes.ts";
import {
  createProject,
  deleteProject,
  findProjectByName,
  listProjects,
  searchProjects,
  updateProject,
} from "../queries/projects.ts";
import {
  completeTask,
  countTasks,
  createTask,
  deleteTask,
  getTask,
  listTasks,
  reopenTask,
  type TaskChanges,
  type TaskQuery,
  updateTask,
} from "../queries/tasks.ts";
import type { NewTask, ProjectStatus } from "../schema/index.ts";

export function createRecords(db: Database) {
  return {
    listTasks: (userId: number, query: TaskQuery) => listTasks(db, userId, query),
    countTasks: (userId: number, query: TaskQuery) => countTasks(db, userId, query),
    getTask: (userId: number, id: number) => getTask(db, userId, id),
    createTask: (task: NewTask) => createTask(db, task),
    updateTask: (userId: number, id: number, changes: TaskChanges, now: Date) =>
      updateTask(db, userId, id, changes, now),
    completeTask: (userId: number, id: number, now: Date) => completeTask(db, userId, id, now),
    reopenTask: (userId: number, id: number, now: Date) => reopenTask(db, userId, id, now),
    deleteTask: (userId: number, id: number) => deleteTask(db, userId, id),

    listProjects: (userId: number, status?: ProjectStatus) => listProjects(db, userId, status),
    searchProjects: (userId: number, query: string) => searchProjects(db, userId, query),
    findProjectByName: (userId: number, name: string) => findProjectByName(db, userId, name),
    createProject: (project: { userId: number; name: string; summary?: string; status?: ProjectStatus }) =>
      createProject(db, project),
    updateProject: (
      userId: number,
      id: number,
      changes: { name?: string; summary?: string; status?: ProjectStatus },
      now: Date,
    ) => updateProject(db, userId, id, changes, now),
    deleteProject: (userId: number, id: number) => deleteProject(db, userId, id),

    listNotes: (userId: number, query: { since?: Date; limit: number }) => listNotes(db, userId, query),
    searchNotes: (userId: number, query: string) => searchNotes(db, userId, query),
    createNote: (note: { userId: number; body: string; title?: string; createdAt: Date }) =>
      createNote(db, note),
    deleteNote: (userId: number, id: number) => deleteNote(db, userId, id),

    getEvent: (userId: number, id: number) => getEvent(db, userId, id),
    createEvent: (userId: number, event: NewChatEvent) => createEvent(db, userId, event),
    updateEvent: (userId: number, id: number, changes: ChatEventChanges, timeZone: string, now: Date) =>
      updateEvent(db, userId, id, changes, timeZone, now),
    deleteEvent: (userId: number, id: number) => deleteEvent(db, userId, id),
  };
}
