/**
 * A pass-through proxy that writes down every request it forwards: method, path, status and the bytes of
 * the answer's body. The CalDAV tests read it to count what the client really sent, independently of the
 * provider's own tally.
 *
 * ```ts
 * const proxy = await startCountingProxy(radicale.port);
 * proxy.reset();
 * await provider.sync(...);
 * proxy.requests;   // [{ method: "REPORT", path: "/ann/tasks/", status: 207, bytes: 312 }]
 * ```
 */
import { createServer, request as httpRequest } from "node:http";
import { listen, readBytes } from "./http.ts";

export interface ProxiedRequest {
  method: string;
  path: string;
  status: number;
  /** Bytes of the answer's body. */
  bytes: number;
  /** The request's preconditions, for the conditional writes (absent when it sent none). */
  ifMatch?: string;
  ifNoneMatch?: string;
}

export interface CountingProxy {
  url: string;
  requests: ProxiedRequest[];
  reset(): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host"]);

export async function startCountingProxy(upstreamPort: number): Promise<CountingProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer((incoming, response) => {
    void (async () => {
      const body = await readBytes(incoming);
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      const outgoing = httpRequest(
        {
          host: "127.0.0.1",
          port: upstreamPort,
          method: incoming.method,
          path: incoming.url,
          // The client's Host is kept, so any absolute href the server builds points back at the proxy.
          headers: { ...headers, host: incoming.headers.host ?? "", "content-length": String(body.length) },
        },
        (answer) => {
          const entry: ProxiedRequest = {
            method: incoming.method ?? "",
            path: incoming.url ?? "",
            status: answer.statusCode ?? 0,
            bytes: 0,
            ...precondition("ifMatch", incoming.headers["if-match"]),
            ...precondition("ifNoneMatch", incoming.headers["if-none-match"]),
          };
          requests.push(entry);
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.on("data", (chunk: Buffer) => {
            entry.bytes += chunk.length;
          });
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
  return {
    url: listening.url,
    requests,
    reset: () => {
      requests.length = 0;
    },
    close: () => listening.close(),
  };
}

function precondition<K extends "ifMatch" | "ifNoneMatch">(key: K, value: string | undefined) {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
