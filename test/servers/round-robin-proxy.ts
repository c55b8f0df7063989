/**
 * One address in front of several replicas, as a load balancer puts it: each request goes to the next
 * upstream in turn. An upstream that refuses the connection (a replica that is down or not up yet) is
 * skipped and the request tried on the next one, as nginx's `proxy_next_upstream error` and Caddy's
 * `lb_try_duration` do; nothing is retried once an upstream has accepted the request, because a webhook
 * POST may already have been acted on (the platform's own retry decides then).
 *
 * ```ts
 * const proxy = await startRoundRobinProxy([portA, portB, portC]);
 * slack.setAppUrl(`${proxy.url}/slack/events`);
 * proxy.servedBy;   // requests answered per upstream port
 * ```
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, readBytes } from "./http.ts";

export interface RoundRobinProxy {
  url: string;
  /** Requests each upstream port answered. */
  servedBy: Map<number, number>;
  /** Requests no upstream would take (every one refused the connection): answered 502. */
  unserved: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host"]);

export async function startRoundRobinProxy(upstreams: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const servedBy = new Map<number, number>(upstreams.map((port) => [port, 0]));
  const state = { unserved: 0 };

  const forward = (
    port: number,
    incoming: IncomingMessage,
    body: Buffer,
    response: ServerResponse,
  ): Promise<"refused" | "done"> =>
    new Promise((resolve) => {
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      const outgoing = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...headers, "content-length": String(body.length) },
        },
        (answer) => {
          servedBy.set(port, (servedBy.get(port) ?? 0) + 1);
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
          answer.on("end", () => resolve("done"));
          answer.on("error", () => {
            response.destroy();
            resolve("done");
          });
        },
      );
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        // Refused before anything was sent: safe to try elsewhere. Anything later is the replica's answer.
        if (error.code === "ECONNREFUSED") return resolve("refused");
        if (!response.headersSent) response.writeHead(502).end();
        else response.destroy();
        resolve("done");
      });
      outgoing.end(body);
    });

  const server = createServer((incoming, response) => {
    void (async () => {
      const body = await readBytes(incoming);
      for (let tried = 0; tried < upstreams.length; tried += 1) {
        const port = upstreams[next % upstreams.length] as number;
        next += 1;
        if ((await forward(port, incoming, body, response)) === "done") return;
      }
      state.unserved += 1;
      response.writeHead(502).end();
    })();
  });
  const listening = await listen(server);
  return {
    url: listening.url,
    servedBy,
    get unserved() {
      return state.unserved;
    },
    close: () => listening.close(),
  };
}
