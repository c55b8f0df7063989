/**
 * A Todoist test server speaking the parts of the v1 API (https://developer.todoist.com/api/v1/) briefbot
 * uses, so the official SDK (`@doist/todoist-sdk`) can do the talking in tests:
 *
 * - `GET /api/v1/projects`, `/labels`, `/tasks` with cursor pagination (`{ results, next_cursor }`,
 *   `cursor` and `limit`); `GET /api/v1/tasks/{id}`;
 * - `POST /api/v1/tasks` (create), `POST /api/v1/tasks/{id}` (update), `POST …/{id}/close` and `/reopen`,
 *   `DELETE /api/v1/tasks/{id}`;
 * - `POST /api/v1/sync` with `sync_token` ("*" for everything, the returned token for what changed since;
 *   a token it does not know answers a full sync, `full_sync: true`), `resource_types` and `commands`
 *   (`sync_status` per command uuid: "ok" or an error object);
 * - error bodies `{ error, error_code, error_extra, error_tag, http_code }`; Bearer tokens (a wrong one is a
 *   401); scripted 429s with `Retry-After`.
 *
 * Every object it answers is complete for the SDK's strict zod schemas (the SDK refuses a task without, say,
 * `day_order`). Times advance one second per change on a logical clock, so `updated_at` (Todoist's only
 * version, it has no ETags) differs after every change however fast the test runs.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import { isRecord, type Listening, listen, readBody } from "./http.ts";

export type TodoistJson = Record<string, unknown>;

export interface TodoistRequest {
  method: string;
  path: string;
  status: number;
  /** When it arrived, `performance.now()`. */
  receivedAt: number;
  /** The request body as received ("" for none). */
  body: string;
}

export interface TodoistServer {
  url: string;
  token: string;
  /** Every request answered, in order. */
  requests: TodoistRequest[];
  /** Response body bytes sent. */
  bytesSent: () => number;
  resetCounts: () => void;
  addProject: (name: string) => string;
  addLabel: (name: string) => void;
  /** A task made "in the Todoist app": fields override the defaults. */
  addTask: (projectId: string, fields?: TodoistJson) => TodoistJson;
  /** Changes a task behind the bot's back (bumps `updated_at`). */
  editTask: (id: string, fields: TodoistJson) => TodoistJson;
  completeTask: (id: string) => void;
  deleteTask: (id: string) => void;
  /** Stores an item exactly as given (a malformed one, for isolation tests); it shows in the next sync. */
  putRawItem: (item: TodoistJson) => void;
  task: (id: string) => TodoistJson | undefined;
  /** The next `count` requests answer 429 with `Retry-After: seconds`. */
  throttle: (count: number, seconds: number) => void;
  /** Forgets every issued sync token: the next incremental sync gets a full one. */
  forgetSyncTokens: () => void;
  close: () => Promise<void>;
}

interface Stored {
  item: TodoistJson;
  /** The change sequence number it was last changed at. */
  seq: number;
}

const CLOCK_START = Date.parse("2026-12-01T08:00:00Z");
const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 50;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startTodoistServer(options: { token?: string } = {}): Promise<TodoistServer> {
  const token = options.token ?? "todoist-test-token-0123456789abcdef";
  const projects = new Map<string, TodoistJson>();
  const labels = new Map<string, TodoistJson>();
  const tasks = new Map<string, Stored>();
  const issuedTokens = new Map<string, number>();
  const requests: TodoistRequest[] = [];
  let bytes = 0;
  let seq = 0;
  let nextId = 6_000_000_000;
  let throttled = { count: 0, seconds: 0 };

  const newId = () => String(nextId++);
  const tick = () => {
    seq += 1;
    return new Date(CLOCK_START + seq * 1000).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
  };
  const touch = (stored: Stored, fields: TodoistJson) => {
    stored.item = { ...stored.item, ...fields, updated_at: tick() };
    stored.seq = seq;
    return stored.item;
  };
  const found = (id: string) => {
    const stored = tasks.get(id);
    if (!stored || stored.item.is_deleted === true) throw new HttpProblem(404, "NOT_FOUND", "Task not found");
    return stored;
  };

  const createTask = (projectId: string, fields: TodoistJson = {}): TodoistJson => {
    const at = tick();
    const item: TodoistJson = {
      id: newId(),
      user_id: "2671355",
      project_id: projectId,
      section_id: null,
      parent_id: null,
      added_by_uid: "2671355",
      assigned_by_uid: null,
      responsible_uid: null,
      labels: [],
      deadline: null,
      duration: null,
      checked: false,
      is_deleted: false,
      added_at: at,
      completed_at: null,
      updated_at: at,
      due: null,
      priority: 1,
      child_order: tasks.size + 1,
      content: "Task",
      description: "",
      day_order: -1,
      is_collapsed: false,
      note_count: 0,
      ...fields,
    };
    tasks.set(String(item.id), { item, seq });
    return item;
  };

  const bodies = new WeakMap<IncomingMessage, string>();
  const server = createServer((request, response) => {
    const receivedAt = performance.now();
    handle(request, response)
      .catch((error: unknown) => {
        const problem =
          error instanceof HttpProblem ? error : new HttpProblem(500, "INTERNAL", String(error));
        send(response, problem.status, errorBody(problem));
      })
      .finally(() => {
        const path = new URL(request.url ?? "/", "http://x").pathname;
        requests.push({
          method: request.method ?? "GET",
          path,
          status: response.statusCode,
          receivedAt,
          body: bodies.get(request) ?? "",
        });
      });
  });

  const send = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const text = body === undefined ? "" : JSON.stringify(body);
    bytes += Buffer.byteLength(text);
    response.writeHead(status, {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    });
    response.end(text);
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://x");
    const method = request.method ?? "GET";
    const text = await readBody(request);
    bodies.set(request, text);
    if (throttled.count > 0) {
      throttled.count -= 1;
      const problem = new HttpProblem(429, "LIMITS_REACHED", "Too many requests");
      send(response, 429, errorBody(problem), { "retry-after": String(throttled.seconds) });
      return;
    }
    if (request.headers.authorization !== `Bearer ${token}`) {
      throw new HttpProblem(401, "AUTH_INVALID_TOKEN", "Invalid token");
    }
    const body = parseBody(text, request.headers["content-type"]);
    const parts = url.pathname.replace(/^\/api\/v1\//, "").split("/");
    if (!url.pathname.startsWith("/api/v1/")) throw new HttpProblem(404, "NOT_FOUND", "Not found");
    const [resource, id, action] = parts;

    if (method === "GET" && resource === "projects" && id === undefined) {
      return send(response, 200, page([...projects.values()], url));
    }
    if (method === "GET" && resource === "labels" && id === undefined) {
      return send(response, 200, page([...labels.values()], url));
    }
    if (resource === "sync" && method === "POST") return send(response, 200, sync(body));
    if (resource !== "tasks") throw new HttpProblem(404, "NOT_FOUND", "Not found");
    if (method === "GET" && id === undefined) {
      const project = url.searchParams.get("project_id");
      const active = [...tasks.values()]
        .map((stored) => stored.item)
        .filter((item) => item.is_deleted !== true && item.checked !== true)
        .filter((item) => project === null || item.project_id === project);
      return send(response, 200, page(active, url));
    }
    if (id === undefined && method === "POST") {
      if (typeof body.content !== "string" || body.content === "") {
        throw new HttpProblem(400, "ARGUMENT_MISSING", "Required argument is missing: content");
      }
      const projectId = typeof body.project_id === "string" ? body.project_id : [...projects.keys()][0];
      if (projectId === undefined || !projects.has(projectId)) {
        throw new HttpProblem(400, "INVALID_ARGUMENT_VALUE", "Invalid argument value: project_id");
      }
      return send(response, 200, createTask(projectId, taskFields(body)));
    }
    if (id === undefined) throw new HttpProblem(405, "METHOD_NOT_ALLOWED", "Method not allowed");
    const stored = found(id);
    if (method === "GET" && action === undefined) return send(response, 200, stored.item);
    if (method === "DELETE" && action === undefined) {
      touch(stored, { is_deleted: true });
      return send(response, 204, undefined);
    }
    if (method === "POST" && action === undefined)
      return send(response, 200, touch(stored, taskFields(body)));
    if (method === "POST" && action === "close") {
      touch(stored, { checked: true, completed_at: new Date(CLOCK_START + seq * 1000).toISOString() });
      return send(response, 204, undefined);
    }
    if (method === "POST" && action === "reopen") {
      touch(stored, { checked: false, completed_at: null });
      return send(response, 204, undefined);
    }
    throw new HttpProblem(404, "NOT_FOUND", "Not found");
  }

  function sync(body: TodoistJson): TodoistJson {
    const status: Record<string, unknown> = {};
    for (const command of Array.isArray(body.commands) ? body.commands : []) {
      if (!isRecord(command)) continue;
      status[String(command.uuid)] = runCommand(command);
    }
    const given = typeof body.sync_token === "string" ? body.sync_token : "*";
    const since = given === "*" ? undefined : issuedTokens.get(given);
    const full = since === undefined;
    const types = parseResourceTypes(body.resource_types);
    const wants = (type: string) => types.includes("all") || types.includes(type);
    const syncToken = `st-${seq}-${issuedTokens.size}`;
    issuedTokens.set(syncToken, seq);
    const answer: TodoistJson = { sync_token: syncToken, full_sync: full, temp_id_mapping: {} };
    if (Object.keys(status).length > 0) answer.sync_status = status;
    if (wants("items")) {
      // A full sync lists active tasks, as Todoist's does; an incremental one every change since the token,
      // completions and deletions (`is_deleted: true`) included.
      answer.items = [...tasks.values()]
        .filter((stored) =>
          full ? stored.item.is_deleted !== true && stored.item.checked !== true : stored.seq > (since ?? 0),
        )
        .map((stored) => stored.item);
    }
    if (wants("projects") && full) answer.projects = [...projects.values()];
    if (wants("labels") && full) answer.labels = [...labels.values()];
    return answer;
  }

  function runCommand(command: TodoistJson): unknown {
    const args = isRecord(command.args) ? command.args : {};
    const stored = typeof args.id === "string" ? tasks.get(args.id) : undefined;
    const missing = {
      error: "Item not found",
      error_code: 22,
      error_extra: {},
      error_tag: "NOT_FOUND",
      http_code: 404,
    };
    switch (command.type) {
      case "item_close":
        if (!stored) return missing;
        touch(stored, { checked: true, completed_at: new Date(CLOCK_START + seq * 1000).toISOString() });
        return "ok";
      case "item_update":
        if (!stored) return missing;
        touch(stored, taskFields(args));
        return "ok";
      case "item_delete":
        if (!stored) return missing;
        touch(stored, { is_deleted: true });
        return "ok";
      default:
        return {
          error: `Unknown command: ${String(command.type)}`,
          error_code: 21,
          error_extra: {},
          error_tag: "INVALID_COMMAND",
          http_code: 400,
        };
    }
  }

  function page(all: TodoistJson[], url: URL): TodoistJson {
    const limit = Math.min(
      Number(url.searchParams.get("limit") ?? DEFAULT_LIMIT) || DEFAULT_LIMIT,
      MAX_LIMIT,
    );
    const cursor = url.searchParams.get("cursor");
    const start = cursor ? Number(Buffer.from(cursor, "base64url").toString()) : 0;
    if (!Number.isInteger(start) || start < 0) {
      throw new HttpProblem(400, "INVALID_ARGUMENT_VALUE", "Invalid argument value: cursor");
    }
    const results = all.slice(start, start + limit);
    const next = start + limit < all.length ? Buffer.from(String(start + limit)).toString("base64url") : null;
    return { results, next_cursor: next };
  }

  const listening: Listening = await listen(server);
  return {
    url: listening.url,
    token,
    requests,
    bytesSent: () => bytes,
    resetCounts: () => {
      requests.length = 0;
      bytes = 0;
    },
    addProject: (name) => {
      const at = new Date(CLOCK_START).toISOString();
      const id = newId();
      projects.set(id, {
        id,
        can_assign_tasks: false,
        child_order: projects.size,
        color: "charcoal",
        created_at: at,
        is_archived: false,
        is_deleted: false,
        is_favorite: false,
        is_frozen: false,
        name,
        updated_at: at,
        view_style: "list",
        default_order: 0,
        description: "",
        is_collapsed: false,
        is_shared: false,
        parent_id: null,
        inbox_project: projects.size === 0,
      });
      return id;
    },
    addLabel: (name) => {
      const id = newId();
      labels.set(id, { id, order: labels.size + 1, name, color: "charcoal", is_favorite: false });
    },
    addTask: (projectId, fields) => createTask(projectId, fields),
    editTask: (id, fields) => touch(found(id), fields),
    completeTask: (id) => {
      touch(found(id), {
        checked: true,
        completed_at: new Date(CLOCK_START + (seq + 1) * 1000).toISOString(),
      });
    },
    deleteTask: (id) => {
      touch(found(id), { is_deleted: true });
    },
    putRawItem: (item) => {
      tick();
      tasks.set(String(item.id), { item, seq });
    },
    task: (id) => tasks.get(id)?.item,
    throttle: (count, seconds) => {
      throttled = { count, seconds };
    },
    forgetSyncTokens: () => issuedTokens.clear(),
    close: () => listening.close(),
  };
}

function errorBody(problem: HttpProblem): TodoistJson {
  return {
    error: problem.message,
    error_code: problem.status,
    error_extra: {},
    error_tag: problem.tag,
    http_code: problem.status,
  };
}

function parseBody(text: string, contentType: string | undefined): TodoistJson {
  if (text === "") return {};
  if (contentType?.includes("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // answered below
  }
  throw new HttpProblem(400, "INVALID_JSON", "The request body is not a JSON object");
}

function parseResourceTypes(value: unknown): string[] {
  const list = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(list) ? list.map(String) : [];
}

/** The task fields a create or update sets, as Todoist turns its arguments into the stored object. */
function taskFields(body: TodoistJson): TodoistJson {
  const fields: TodoistJson = {};
  if (typeof body.content === "string") fields.content = body.content;
  if (typeof body.description === "string") fields.description = body.description;
  if (typeof body.priority === "number") {
    if (![1, 2, 3, 4].includes(body.priority)) {
      throw new HttpProblem(400, "INVALID_ARGUMENT_VALUE", "Invalid argument value: priority");
    }
    fields.priority = body.priority;
  }
  if (Array.isArray(body.labels)) fields.labels = body.labels.map(String);
  if (typeof body.parent_id === "string") fields.parent_id = body.parent_id;
  if (typeof body.due_date === "string") {
    fields.due = due(body.due_date, null, body.due_date);
  } else if (typeof body.due_datetime === "string") {
    const instant = new Date(body.due_datetime);
    if (Number.isNaN(instant.getTime())) {
      throw new HttpProblem(400, "INVALID_ARGUMENT_VALUE", "Invalid argument value: due_datetime");
    }
    fields.due = due(
      instant.toISOString().slice(0, 10),
      instant.toISOString().replace(/\.\d+Z$/, "Z"),
      body.due_datetime,
    );
  } else if (typeof body.due_string === "string") {
    fields.due = dueFromString(body.due_string);
  }
  return fields;
}

function due(date: string, datetime: string | null, string: string): TodoistJson {
  return { date, datetime, timezone: null, string, lang: "en", is_recurring: false };
}

/** The few due strings the tests send: "no date", "YYYY-MM-DD" and "YYYY-MM-DD HH:MM" (a floating time). */
function dueFromString(text: string): TodoistJson | null {
  if (text === "no date") return null;
  const match = /^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}))?$/.exec(text);
  if (!match?.[1]) throw new HttpProblem(400, "INVALID_ARGUMENT_VALUE", `Cannot parse due string: ${text}`);
  return due(match[1], match[2] ? `${match[1]}T${match[2]}:00` : null, text);
}
