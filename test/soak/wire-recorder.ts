/**
 * A pass-through proxy in front of an account server (Radicale, the Todoist test server) that writes down
 * what each request was and how many objects its answer carried, so the soak can tell a sync with nothing
 * changed (one sync-collection REPORT per collection, or one Todoist sync, and no object) from one that
 * fetched. The counting proxy of test/servers counts requests and bytes; this one reads the bodies.
 */
import { createServer, request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { listen, readBytes } from "../servers/http.ts";

/**
 * `sync`: a CalDAV sync-collection REPORT or a Todoist read sync; `fetch`: a calendar-multiget;
 * `write`: a PUT/DELETE or a Todoist sync carrying commands (or a REST write); `other`: discovery and the rest.
 */
export type WireKind = "sync" | "fetch" | "write" | "other";

export interface WireRequest {
  /** `Date.now()` when the request arrived and when its answer ended. */
  at: number;
  endedAt: number;
  method: string;
  path: string;
  kind: WireKind;
  status: number;
  /** Calendar objects (CalDAV: VCALENDARs in the answer) or Todoist items, projects and labels in it. */
  objects: number;
}

export interface WireRecorder {
  url: string;
  requests: WireRequest[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host"]);

export async function startWireRecorder(
  upstream: string,
  flavour: "caldav" | "todoist",
): Promise<WireRecorder> {
  const target = new URL(upstream);
  const requests: WireRequest[] = [];
  const server = createServer((incoming, response) => {
    void (async () => {
      const at = Date.now();
      const body = await readBytes(incoming);
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      const outgoing = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...headers, host: incoming.headers.host ?? "", "content-length": String(body.length) },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.on("end", () => {
            const text = decoded(Buffer.concat(chunks), answer.headers["content-encoding"]);
            const method = incoming.method ?? "";
            const path = new URL(incoming.url ?? "/", "http://x").pathname;
            const kind = (flavour === "caldav" ? caldavKind : todoistKind)(
              method,
              path,
              body.toString("utf8"),
            );
            requests.push({
              at,
              endedAt: Date.now(),
              method,
              path,
              kind,
              status: answer.statusCode ?? 0,
              objects: flavour === "caldav" ? caldavObjects(text) : todoistObjects(text),
            });
          });
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
          answer.on("error", () => response.destroy());
        },
      );
      outgoing.on("error", () => {
        if (!response.headersSent) response.writeHead(502).end();
        else response.destroy();
      });
      outgoing.end(body);
    })();
  });
  const listening = await listen(server);
  return { url: listening.url, requests, close: () => listening.close() };
}

function caldavKind(method: string, _path: string, body: string): WireKind {
  if (method === "REPORT" && body.includes("sync-collection")) return "sync";
  if (method === "REPORT" && body.includes("calendar-multiget")) return "fetch";
  if (method === "PUT" || method === "DELETE") return "write";
  return "other";
}

function todoistKind(method: string, path: string, body: string): WireKind {
  if (path.endsWith("/sync")) {
    const commands = /"commands"\s*:\s*\[\s*\{/.test(body) || /commands=%5B%7B/i.test(body);
    return commands ? "write" : "sync";
  }
  return method === "GET" ? "other" : "write";
}

const caldavObjects = (text: string) => text.match(/BEGIN:VCALENDAR/g)?.length ?? 0;

function todoistObjects(text: string): number {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return ["items", "projects", "labels"].reduce((sum, key) => {
      const list = parsed[key];
      return sum + (Array.isArray(list) ? list.length : 0);
    }, 0);
  } catch {
    return 0;
  }
}

/** The answer's body as text: Radicale compresses when the client accepts it. */
function decoded(body: Buffer, encoding: string | undefined): string {
  try {
    if (encoding === "gzip") return gunzipSync(body).toString("utf8");
    if (encoding === "deflate") return inflateSync(body).toString("utf8");
    if (encoding === "br") return brotliDecompressSync(body).toString("utf8");
  } catch {
    return "";
  }
  return body.toString("utf8");
}
