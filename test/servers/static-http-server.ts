/**
 * A small scripted HTTP server for source-sync tests (calendars, feeds, weather): each path serves a
 * scripted body, status, headers and delay, honours ETag / Last-Modified revalidation, and records every
 * request's headers so tests can assert what the client sent.
 *
 *   const server = await startStaticHttpServer();
 *   server.route("/cal.ics", { body: ics, etag: '"v1"' });
 *   … fetch(`${server.url}/cal.ics`) …
 *   expect(server.requestsTo("/cal.ics")[1]?.headers["if-none-match"]).toBe('"v1"');
 *   await server.close();
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { NetworkPolicy } from "../../src/sources/network/address-policy.ts";
import { listen } from "./http.ts";

/**
 * These servers listen on 127.0.0.1, which subscription fetches refuse by default; a sync that is meant
 * to reach them says so with this policy (and only loopback's 127.0.0.1 is opened, nothing else).
 */
export const LOOPBACK_SOURCES: NetworkPolicy = { allowPrivateNetworks: false, allowHosts: ["127.0.0.1"] };

export interface ScriptedResponse {
  /** Default 200. */
  status?: number;
  body?: string | Uint8Array;
  /** Default "text/plain; charset=utf-8". */
  contentType?: string;
  headers?: Record<string, string>;
  /** Sent as ETag; a request whose If-None-Match matches gets 304 with no body. */
  etag?: string;
  /** Sent as Last-Modified; a request whose If-Modified-Since equals it gets 304. */
  lastModified?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
  /** Never answer; the socket stays open until the client gives up or the server closes. */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** A fixed response, a sequence (the last one repeats), or a function of the request. */
export type RouteScript =
  | ScriptedResponse
  | ScriptedResponse[]
  | ((request: RecordedRequest) => ScriptedResponse);

export interface StaticHttpServer {
  /** "http://127.0.0.1:PORT" (or the host it was started on), no trailing slash. */
  url: string;
  requests: RecordedRequest[];
  requestsTo(path: string): RecordedRequest[];
  /** Sets (or replaces) what a path serves; unknown paths get 404. */
  route(path: string, script: RouteScript): void;
  close(): Promise<void>;
}

export async function startStaticHttpServer(
  routes: Record<string, RouteScript> = {},
  /** Any loopback address works on Linux; a second one lets a test play "public host" and "internal service". */
  options: { host?: string } = {},
): Promise<StaticHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const scripts = new Map<string, RouteScript>(Object.entries(routes));
  const served = new Map<string, number>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const recorded: RecordedRequest = {
      method: request.method ?? "GET",
      path,
      headers: { ...request.headers },
    };
    requests.push(recorded);
    const script = scripts.get(path);
    if (!script) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const count = served.get(path) ?? 0;
    served.set(path, count + 1);
    const scripted = pickResponse(script, count, recorded);
    if (scripted.hang) return;
    const send = () => respond(response, scripted, recorded);
    if (scripted.delayMs && scripted.delayMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, scripted.delayMs);
      timers.add(timer);
    } else {
      send();
    }
  });

  const listening = await listen(server, host);

  return {
    url: listening.url,
    requests,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    route(path, script) {
      scripts.set(path, script);
      served.delete(path);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      // Hanging and delayed responses keep sockets open; closing cuts them rather than wait forever.
      await listening.close();
    },
  };
}

function pickResponse(script: RouteScript, count: number, request: RecordedRequest): ScriptedResponse {
  if (typeof script === "function") return script(request);
  if (Array.isArray(script)) return script[Math.min(count, script.length - 1)] ?? { status: 500 };
  return script;
}

function respond(response: ServerResponse, scripted: ScriptedResponse, request: RecordedRequest): void {
  if (response.destroyed) return;
  const headers: Record<string, string> = {
    "content-type": scripted.contentType ?? "text/plain; charset=utf-8",
    ...scripted.headers,
  };
  if (scripted.etag) headers.etag = scripted.etag;
  if (scripted.lastModified) headers["last-modified"] = scripted.lastModified;

  const status = scripted.status ?? 200;
  if (status === 200 && isNotModified(scripted, request)) {
    response.writeHead(304, headers).end();
    return;
  }
  response.writeHead(status, headers).end(scripted.body ?? "");
}

function isNotModified(scripted: ScriptedResponse, request: RecordedRequest): boolean {
  const ifNoneMatch = request.headers["if-none-match"];
  if (scripted.etag && ifNoneMatch) {
    return ifNoneMatch.split(",").some((tag) => tag.trim() === scripted.etag);
  }
  const ifModifiedSince = request.headers["if-modified-since"];
  return Boolean(scripted.lastModified && ifModifiedSince && ifModifiedSince === scripted.lastModified);
}
