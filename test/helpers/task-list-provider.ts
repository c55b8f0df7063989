/**
 * An `AccountProvider` for the task-list test server (test/servers/task-list-server.ts): what the account
 * service, the CLI and the write-through are tested with until the CalDAV and Todoist providers land. It
 * speaks real HTTP with `fetch`, keeps the port's rules (conditional writes, `ConflictError` with the
 * server's object, a parse error for an unreadable object), and counts requests and bytes.
 *
 * Objects are JSON: { title, notes?, due?, time?, priority?, done? } ("todoist-json" as the format).
 */
import {
  type AccountConnection,
  type AccountProvider,
  ConflictError,
  type RemoteObject,
} from "../../src/core/accounts/ports.ts";
import type { AccountKind, DerivedTask } from "../../src/core/domain.ts";

interface Body {
  title: string;
  notes?: string;
  due?: string | null;
  time?: string | null;
  priority?: "low" | "normal" | "high";
  done?: string | null;
}

export function taskListProvider(kind: AccountKind = "todoist"): AccountProvider {
  const call = async (connection: AccountConnection, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${connection.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${connection.secret}`, ...(init.headers ?? {}) },
    });
    const text = await response.text();
    return { response, text };
  };
  const refuse = (status: number, path: string): never => {
    throw new Error(`server answered HTTP ${status} for ${path}`);
  };
  const object = (raw: { id: string; etag: string; body: string }): RemoteObject => ({
    remoteId: raw.id,
    etag: raw.etag,
    format: "todoist-json",
    body: raw.body,
  });
  /** A conditional PUT of the object `remoteId` ("collection/id"). */
  const put = async (
    connection: AccountConnection,
    remoteId: string,
    body: Body,
    condition: Record<string, string>,
  ): Promise<RemoteObject> => {
    const [collection, ...rest] = remoteId.split("/");
    const path = `/c/${encodeURIComponent(collection ?? "")}/o/${encodeURIComponent(rest.join("/"))}`;
    const { response, text } = await call(connection, path, {
      method: "PUT",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...condition },
    });
    if (response.status === 412) {
      const current = JSON.parse(text) as { id: string; etag?: string; body?: string; gone?: boolean };
      throw new ConflictError(
        "the server's copy changed since it was read",
        current.gone || current.etag === undefined || current.body === undefined
          ? undefined
          : object({ id: remoteId, etag: current.etag, body: current.body }),
      );
    }
    if (!response.ok) refuse(response.status, path);
    const written = JSON.parse(text) as { etag: string; body: string };
    return object({ id: remoteId, etag: written.etag, body: written.body });
  };
  const collectionOf = (remoteId: string) => remoteId.split("/")[0] ?? "";
  return {
    kind,
    async discover(connection) {
      const { response, text } = await call(connection, "/collections");
      if (!response.ok) refuse(response.status, "/collections");
      const list = JSON.parse(text) as Array<{ id: string; name: string; holds: Array<"tasks" | "events"> }>;
      return list.map((entry) => ({ remoteId: entry.id, name: entry.name, holds: entry.holds }));
    },
    async sync(connection, collection, known) {
      const path = `/c/${encodeURIComponent(collection.remoteId)}/changes`;
      const query = collection.syncState ? `?token=${encodeURIComponent(collection.syncState)}` : "";
      const { response, text } = await call(connection, `${path}${query}`);
      if (!response.ok) refuse(response.status, path);
      const answer = JSON.parse(text) as {
        changed: Array<{ id: string; etag: string; body: string }>;
        removed: string[];
        token: string;
        full: boolean;
      };
      return {
        // Remote ids carry their collection, so one id names one object across the account.
        changed: answer.changed
          .filter((entry) => answer.full || known.get(`${collection.remoteId}/${entry.id}`) !== entry.etag)
          .map((entry) => object({ ...entry, id: `${collection.remoteId}/${entry.id}` })),
        removed: answer.removed.map((id) => `${collection.remoteId}/${id}`),
        full: answer.full,
        syncState: answer.token,
        requests: 1,
        bytes: Buffer.byteLength(text),
      };
    },
    derive(remote) {
      const body = JSON.parse(remote.body) as Partial<Body>;
      if (typeof body.title !== "string" || body.title.trim() === "")
        throw new Error("a task without a title");
      const task: DerivedTask = {
        title: body.title,
        notes: body.notes ?? "",
        dueDate: body.due ?? null,
        dueTime: body.time ?? null,
        priority: body.priority ?? "normal",
        status: body.done ? "done" : "open",
        completedAt: body.done ? new Date(body.done) : null,
        parentRemoteId: null,
        labels: [],
      };
      return { tasks: [task], events: [] };
    },
    async createTask(connection, collection, draft) {
      const id = `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
      const body: Body = {
        title: draft.title,
        ...(draft.notes ? { notes: draft.notes } : {}),
        due: draft.dueDate ?? null,
        time: draft.dueTime ?? null,
        priority: draft.priority ?? "normal",
      };
      return put(connection, `${collection.remoteId}/${id}`, body, { "if-none-match": "*" });
    },
    async writeTask(connection, current, write) {
      const body = JSON.parse(current.body) as Body;
      const next: Body =
        write.kind === "complete"
          ? { ...body, done: write.at.toISOString() }
          : write.kind === "reopen"
            ? { ...body, done: null }
            : {
                ...body,
                ...(write.changes.title !== undefined ? { title: write.changes.title } : {}),
                ...(write.changes.notes !== undefined ? { notes: write.changes.notes } : {}),
                ...(write.changes.dueDate !== undefined ? { due: write.changes.dueDate } : {}),
                ...(write.changes.dueTime !== undefined ? { time: write.changes.dueTime } : {}),
                ...(write.changes.priority !== undefined ? { priority: write.changes.priority } : {}),
              };
      return put(connection, current.remoteId, next, { "if-match": current.etag });
    },
    async deleteTask(connection, current) {
      const [collection, id] = [
        collectionOf(current.remoteId),
        current.remoteId.split("/").slice(1).join("/"),
      ];
      const path = `/c/${encodeURIComponent(collection)}/o/${id}`;
      const { response, text } = await call(connection, path, {
        method: "DELETE",
        headers: { "if-match": current.etag },
      });
      if (response.status === 412) {
        const now = JSON.parse(text) as { id: string; etag?: string; body?: string };
        throw new ConflictError(
          "the server's copy changed since it was read",
          now.etag && now.body
            ? { remoteId: current.remoteId, etag: now.etag, format: "todoist-json", body: now.body }
            : undefined,
        );
      }
      if (!response.ok) refuse(response.status, path);
    },
  };
}
