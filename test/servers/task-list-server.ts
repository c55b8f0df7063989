/**
 * A tiny task-list server for the account service's tests, until the real providers land: collections
 * of JSON task objects over HTTP with ETags, a change feed keyed by a sync token, and conditional writes
 * (If-Match, If-None-Match: *) that answer 412 with the current object. Bearer-token auth. Every request
 * is counted, so tests can assert what a sync cost.
 *
 *   GET    /collections                         → [{ id, name, holds }]
 *   GET    /c/:collection/changes?token=T       → { changed: [{ id, etag, body }], removed, token, full }
 *   PUT    /c/:collection/o/:id  (If-Match | If-None-Match: *)  → 201/200 { id, etag, body } | 412 current
 *   DELETE /c/:collection/o/:id  (If-Match)     → 204 | 412
 */
import { createServer, type IncomingMessage } from "node:http";
import { type Listening, listen, readBody, sendJson } from "./http.ts";

interface StoredItem {
  etag: string;
  body: string;
  /** The change counter when it last changed. */
  version: number;
}

export interface TaskListServer extends Listening {
  /** Adds or changes an object as another client would (a new ETag); returns the ETag. */
  put(collection: string, id: string, body: string): string;
  remove(collection: string, id: string): void;
  body(collection: string, id: string): string | undefined;
  /** Requests since start (or the last reset), by method and path without the query. */
  requests: Array<{ method: string; path: string }>;
  /** The next request answers this status (e.g. 503), once. */
  failNext(status: number): void;
}

export async function startTaskListServer(options: {
  token: string;
  collections: Array<{ id: string; name: string; holds: Array<"tasks" | "events"> }>;
}): Promise<TaskListServer> {
  const items = new Map<string, Map<string, StoredItem>>(options.collections.map((c) => [c.id, new Map()]));
  const removedAt = new Map<string, Map<string, number>>(options.collections.map((c) => [c.id, new Map()]));
  let counter = 0;
  let failure: number | undefined;
  const requests: Array<{ method: string; path: string }> = [];

  const change = (collection: string, id: string, body: string): StoredItem => {
    counter += 1;
    const item = { etag: `"v${counter}"`, body, version: counter };
    items.get(collection)?.set(id, item);
    removedAt.get(collection)?.delete(id);
    return item;
  };
  const drop = (collection: string, id: string) => {
    counter += 1;
    items.get(collection)?.delete(id);
    removedAt.get(collection)?.set(id, counter);
  };

  const server = createServer((request: IncomingMessage, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      requests.push({ method: request.method ?? "GET", path: url.pathname });
      if (failure !== undefined) {
        const status = failure;
        failure = undefined;
        return sendJson(response, status, { error: "scripted failure" });
      }
      if (request.headers.authorization !== `Bearer ${options.token}`)
        return sendJson(response, 401, { error: "bad token" });
      if (url.pathname === "/collections") return sendJson(response, 200, options.collections);
      const match = /^\/c\/([^/]+)\/(changes|o\/([^/]+))$/.exec(url.pathname);
      const collection = match ? decodeURIComponent(match[1] ?? "") : "";
      const store = items.get(collection);
      if (!match || !store) return sendJson(response, 404, { error: "no such collection" });
      if (match[2] === "changes") {
        const token = Number(url.searchParams.get("token") ?? "NaN");
        const full = !Number.isInteger(token) || token > counter;
        const changed = [...store.entries()]
          .filter(([, item]) => full || item.version > token)
          .map(([id, item]) => ({ id, etag: item.etag, body: item.body }));
        const removed = full
          ? []
          : [...(removedAt.get(collection)?.entries() ?? [])]
              .filter(([, at]) => at > token)
              .map(([id]) => id);
        return sendJson(response, 200, { changed, removed, token: String(counter), full });
      }
      const id = decodeURIComponent(match[3] ?? "");
      const current = store.get(id);
      const ifMatch = request.headers["if-match"];
      const ifNoneMatch = request.headers["if-none-match"];
      const conflict = () =>
        sendJson(
          response,
          412,
          current ? { id, etag: current.etag, body: current.body } : { id, gone: true },
        );
      if (request.method === "PUT") {
        const body = await readBody(request);
        if (ifNoneMatch === "*" ? current !== undefined : current?.etag !== ifMatch) return conflict();
        const item = change(collection, id, body);
        return sendJson(response, current ? 200 : 201, { id, etag: item.etag, body: item.body });
      }
      if (request.method === "DELETE") {
        if (!current || current.etag !== ifMatch) return conflict();
        drop(collection, id);
        response.writeHead(204).end();
        return;
      }
      return sendJson(response, 405, { error: "method not allowed" });
    })();
  });
  const listening = await listen(server);
  return {
    ...listening,
    requests,
    put: (collection, id, body) => change(collection, id, body).etag,
    remove: drop,
    body: (collection, id) => items.get(collection)?.get(id)?.body,
    failNext(status) {
      failure = status;
    },
  };
}
