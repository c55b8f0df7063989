/**
 * Writes to Todoist, each conditional on the version the mirror holds. Todoist has no If-Match, so the task
 * is read first and its `updated_at` compared with the mirror's etag: when it moved on, the write stops
 * with a ConflictError carrying the task as it is now, and nothing is written. (What changes between that
 * read and the write itself, a few milliseconds later, Todoist does not let us detect.)
 */
import { TodoistRequestError } from "@doist/todoist-sdk";
import {
  type AccountConnection,
  ConflictError,
  type RemoteCollection,
  type RemoteObject,
  type TaskDraft,
  type TaskWrite,
} from "../../../core/accounts/ports.ts";
import { addTaskArguments, updateTaskArguments } from "./task-arguments.ts";
import { readTaskJson, remoteTask, sameVersion } from "./task-json.ts";
import { TodoistError, todoistFailure } from "./todoist-error.ts";
import { openTodoistSession, type TodoistSession } from "./todoist-session.ts";
import type { WireOptions } from "./todoist-wire.ts";

export async function createTodoistTask(
  connection: AccountConnection,
  collection: RemoteCollection,
  draft: TaskDraft,
  options: WireOptions = {},
): Promise<RemoteObject> {
  const session = openTodoistSession(connection, options);
  const args = addTaskArguments(collection.remoteId, draft);
  const task = await session.call(`creating a task in "${collection.name}"`, (api) => api.addTask(args));
  return answered(session, task.id);
}

export async function writeTodoistTask(
  connection: AccountConnection,
  current: RemoteObject,
  write: TaskWrite,
  options: WireOptions = {},
): Promise<RemoteObject> {
  const session = openTodoistSession(connection, options);
  const now = await readUnchanged(session, current);
  const id = current.remoteId;
  if (write.kind === "update") {
    const args = updateTaskArguments(readTaskJson(now), write.changes, write.timeZone);
    await session.call(`updating task ${id}`, (api) => api.updateTask(id, args));
    return answered(session, id);
  }
  // Close and reopen answer 204 without the task: one more read for the version to mirror.
  if (write.kind === "complete") await session.call(`completing task ${id}`, (api) => api.closeTask(id));
  else await session.call(`reopening task ${id}`, (api) => api.reopenTask(id));
  await session.call(`reading task ${id}`, (api) => api.getTask(id));
  return answered(session, id);
}

export async function deleteTodoistTask(
  connection: AccountConnection,
  current: RemoteObject,
  options: WireOptions = {},
): Promise<void> {
  const session = openTodoistSession(connection, options);
  await readUnchanged(session, current);
  await session.call(`deleting task ${current.remoteId}`, (api) => api.deleteTask(current.remoteId));
}

/** The task as Todoist holds it now, when that is still the version the mirror read; else a ConflictError. */
async function readUnchanged(session: TodoistSession, current: RemoteObject): Promise<RemoteObject> {
  const id = current.remoteId;
  try {
    await session.api.getTask(id);
  } catch (error) {
    if (error instanceof TodoistRequestError && error.httpStatusCode === 404) {
      throw deletedConflict(id);
    }
    throw todoistFailure(error, `reading task ${id}`, session.wire.rateLimit());
  }
  const now = answered(session, id);
  if (isDeleted(now.body)) {
    throw deletedConflict(id);
  }
  if (!sameVersion(now.etag, current.etag)) {
    throw new ConflictError(
      `Task ${id} was changed on Todoist since briefbot read it (${current.etag} → ${now.etag}); nothing was written`,
      now,
    );
  }
  return now;
}

/** The task the latest answer carried, in Todoist's own words (the SDK's reading is camelCased). */
function answered(session: TodoistSession, id: string): RemoteObject {
  const body = session.wire.lastBody();
  if (body === undefined) throw new TodoistError("todoist_unreadable", `Todoist sent no body for task ${id}`);
  const parsed: unknown = JSON.parse(body);
  const updatedAt =
    typeof parsed === "object" && parsed !== null && "updated_at" in parsed
      ? String(parsed.updated_at)
      : undefined;
  return remoteTask(id, updatedAt, body);
}

const deletedConflict = (id: string) =>
  new ConflictError(
    `Task ${id} was deleted on Todoist since briefbot read it; nothing was written`,
    undefined,
  );

/** Todoist may answer a deleted task's read with the task marked `is_deleted` instead of a 404. */
function isDeleted(body: string): boolean {
  const parsed: unknown = JSON.parse(body);
  return (
    typeof parsed === "object" && parsed !== null && "is_deleted" in parsed && parsed.is_deleted === true
  );
}
