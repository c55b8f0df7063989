/**
 * What every local test server needs from HTTP, written once: reading a request's body, answering JSON,
 * and listening on an ephemeral port of 127.0.0.1 with a close that does not wait for kept-alive sockets.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The whole request body as UTF-8 text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
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
