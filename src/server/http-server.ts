/**
 * The one HTTP listener on PORT: `/healthz`, `/metrics`, and whatever the platform adapters mount
 * (`/telegram/webhook`, `/slack/events`). Routes match on the path only; the query string is ignored.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../core/errors.ts";

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface HttpServerOptions {
  /** Exact paths, e.g. `{ "/telegram/webhook": handler }`. `/healthz` and `/metrics` are reserved. */
  routes?: Record<string, RouteHandler>;
  /** The health report (`createHealthCheck`); `ok: false` answers 503. */
  health: () => Promise<{ ok: boolean }>;
  /** Prometheus text exposition and its content type. */
  metrics: () => Promise<{ contentType: string; body: string }>;
  logger?: { error?(details: object, message: string): void };
}

export interface HttpServer {
  readonly server: Server;
  /** Resolves with the bound port (pass 0 for any free port). */
  listen(port: number, host?: string): Promise<number>;
  close(): Promise<void>;
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const routes = new Map<string, RouteHandler>(Object.entries(options.routes ?? {}));
  for (const reserved of ["/healthz", "/metrics"]) {
    if (routes.has(reserved)) throw new Error(`route ${reserved} is served by the HTTP server itself`);
  }
  routes.set("/healthz", async (request, response) => {
    if (!allowRead(request, response)) return;
    const report = await options.health();
    send(response, report.ok ? 200 : 503, "application/json; charset=utf-8", `${JSON.stringify(report)}\n`);
  });
  routes.set("/metrics", async (request, response) => {
    if (!allowRead(request, response)) return;
    const { contentType, body } = await options.metrics();
    send(response, 200, contentType, body);
  });

  const server = createServer((request, response) => {
    const path = pathOf(request.url);
    const handler = path === undefined ? undefined : routes.get(path);
    if (!handler) {
      send(response, 404, "text/plain; charset=utf-8", "not found\n");
      return;
    }
    Promise.resolve()
      .then(() => handler(request, response))
      .catch((error: unknown) => {
        options.logger?.error?.({ path, error: errorMessage(error) }, "HTTP handler failed");
        if (!response.headersSent) send(response, 500, "text/plain; charset=utf-8", "internal error\n");
        else response.end();
      });
  });

  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function pathOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url, "http://localhost").pathname;
  } catch {
    return undefined;
  }
}

function allowRead(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  response.setHeader("Allow", "GET, HEAD");
  send(response, 405, "text/plain; charset=utf-8", "method not allowed\n");
  return false;
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { "Content-Type": contentType, "Cache-Control": "no-store" });
  response.end(body);
}
