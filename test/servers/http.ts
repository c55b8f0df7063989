/**
 * What every local test server needs from HTTP, written once: reading a request's body, answering JSON,
 * and listening on an ephemeral port of 127.0.0.1 with a close that does not wait for kept-alive sockets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** The whole request body as UTF-8 text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBytes(request)).toString("utf8");
}

/** The whole request body as bytes (file uploads). */
export async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** A file part of a multipart/form-data body. */
export interface UploadedFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * A multipart/form-data body's fields: text fields as strings, file parts as {@link UploadedFile}. Read as
 * leniently as the platforms do (tdlib's HttpReader): grammY writes `content-disposition:form-data;name="x"`
 * without spaces and file names unquoted, which undici's own FormData parser refuses.
 */
export function parseMultipart(body: Buffer, contentType: string): Record<string, string | UploadedFile> {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) throw new Error("multipart body without a boundary");
  const delimiter = Buffer.from(`--${marker}`);
  const fields: Record<string, string | UploadedFile> = {};
  let at = body.indexOf(delimiter);
  if (at < 0) throw new Error("multipart body without its boundary");
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === "--") return fields;
    const headersEnd = body.indexOf("\r\n\r\n", at);
    const next = body.indexOf(delimiter, headersEnd);
    if (headersEnd < 0 || next < 0) throw new Error("truncated multipart body");
    const headers = body.subarray(at, headersEnd).toString("utf8");
    // The part's bytes end before the CRLF that precedes the next delimiter.
    const content = body.subarray(headersEnd + 4, next - 2);
    const disposition = /content-disposition:\s*form-data\s*((?:;[^\r\n]*)?)/i.exec(headers)?.[1] ?? "";
    const name = parameter(disposition, "name");
    if (name === undefined) throw new Error("multipart part without a name");
    const filename = parameter(disposition, "filename");
    fields[name] =
      filename === undefined
        ? content.toString("utf8")
        : {
            filename,
            contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? "",
            bytes: Buffer.from(content),
          };
    at = next;
  }
}

function parameter(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"([^"]*)"|([^;\\s]*))`, "i").exec(disposition);
  return match ? (match[1] ?? match[2]) : undefined;
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return isRecord(value) && Buffer.isBuffer(value.bytes) && typeof value.filename === "string";
}

/** A JSON answer; nothing when the response already went (or its socket was dropped on purpose). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  response.end(JSON.stringify(body));
}

/**
 * A platform's scripted network failures: `reset-before-body` resets the connection once the headers are in,
 * before the body is read (before `100 Continue` when the client asked for it), so nothing is carried out;
 * `drop-response` carries the call out (the message is posted), then drops the connection unanswered.
 */
export type NetworkFailure = "reset-before-body" | "drop-response";

/** When a platform server's call came, and what its rate limits made of it. */
export interface CallTiming {
  /** `performance.now()` when the request's headers arrived (before its body). */
  receivedAt: number;
  /** For a 429: the seconds given to wait, the scope it closed and when it was answered. */
  retryAfter?: number;
  limitScope?: string;
  answeredAt?: number;
  /** Arrived while a 429 this server gave for its scope had not yet elapsed. */
  beforeRetryAfter?: boolean;
  /** A scripted network failure instead of (or after) handling the call. */
  network?: NetworkFailure;
}

/**
 * A platform server that honours `Expect: 100-continue` (Node answers it) and can reset a request before its
 * body: `resetBeforeBody` sees each request once its headers are in, and returns true when it reset it.
 */
export function createPlatformServer(handlers: {
  resetBeforeBody: (request: IncomingMessage, receivedAt: number) => boolean;
  handle: (request: IncomingMessage, response: ServerResponse, receivedAt: number) => Promise<void>;
  /** A handler that threw: answer or drop the connection. */
  onError: (request: IncomingMessage, response: ServerResponse, error: unknown) => void;
}): Server {
  const serve = (request: IncomingMessage, response: ServerResponse, continued: boolean) => {
    const receivedAt = performance.now();
    if (handlers.resetBeforeBody(request, receivedAt)) return;
    if (continued) response.writeContinue();
    handlers.handle(request, response, receivedAt).catch((error: unknown) => {
      handlers.onError(request, response, error);
    });
  };
  const server = createServer((request, response) => serve(request, response, false));
  server.on("checkContinue", (request, response) => serve(request, response, true));
  return server;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface Listening {
  /** `http://<host>:<port>`, no trailing slash. */
  url: string;
  port: number;
  /** Stops listening; open connections (keep-alive, hanging or streaming answers) are cut, not awaited. */
  close(): Promise<void>;
}

/** Listens on a free port of `host`. */
export async function listen(server: Server, host = "127.0.0.1"): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** How a platform's outage looks from the client: a proxy answering 502 for an upstream that is gone, or
 * connections reset as soon as they are made (a host that is down, a load balancer with no backend). */
export type OutageKind = "5xx" | "refuse";

export interface OutageSwitch {
  /** The outage's kind while it lasts, undefined when the platform is up. */
  readonly kind: OutageKind | undefined;
  set(on: boolean, kind?: OutageKind): void;
}

/**
 * The part of an outage every platform server shares: while refusing, each new connection is reset the
 * moment it is accepted, and the ones already open are cut when the outage begins. What a 5xx outage
 * answers is each server's own (`onStart` ends what it holds open, such as a long poll).
 */
export function outageSwitch(server: Server, onStart: (kind: OutageKind) => void): OutageSwitch {
  let kind: OutageKind | undefined;
  server.on("connection", (socket: Socket) => {
    if (kind === "refuse") socket.resetAndDestroy();
  });
  return {
    get kind() {
      return kind;
    },
    set(on, given = "5xx") {
      const starting = on && kind === undefined;
      kind = on ? given : undefined;
      if (!starting) return;
      onStart(given);
      if (given === "refuse") server.closeAllConnections();
    },
  };
}
