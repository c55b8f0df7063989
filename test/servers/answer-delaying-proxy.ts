/**
 * A pass-through proxy that keeps each answer back for as long as the caller says, after the upstream has
 * given it: a long round trip, or a loaded machine slow to read an answer that the platform has already
 * acted on (a 429 that closed the token the moment it was answered).
 *
 * ```ts
 * const proxy = await startAnswerDelayingProxy(telegram.url, () => sleep(100)); // +100 ms on every answer
 * const held = await startAnswerDelayingProxy(telegram.url, (status) => (status === 429 ? gate : undefined));
 * ```
 */
import { createServer, request as httpRequest } from "node:http";
import { listen, readBytes } from "./http.ts";

export interface AnswerDelayingProxy {
  url: string;
  close(): Promise<void>;
}

/** `delay` is asked about each answer by its status; the answer goes once its promise settles. */
export async function startAnswerDelayingProxy(
  upstream: string,
  delay: (status: number) => Promise<void> | undefined,
): Promise<AnswerDelayingProxy> {
  const target = new URL(upstream);
  const server = createServer((incoming, response) => {
    void (async () => {
      const body = await readBytes(incoming);
      // The proxy answers `Expect: 100-continue` itself (node's default) and forwards the whole body.
      const { host: _host, connection: _connection, expect: _expect, ...headers } = incoming.headers;
      const outgoing = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...headers, "content-length": String(body.length) },
        },
        (answer) => {
          void (async () => {
            const bytes = await readBytes(answer);
            await delay(answer.statusCode ?? 502);
            const { connection: _c, "transfer-encoding": _t, ...answerHeaders } = answer.headers;
            response.writeHead(answer.statusCode ?? 502, answerHeaders);
            response.end(bytes);
          })();
        },
      );
      outgoing.on("error", () => response.destroy());
      outgoing.end(body);
    })();
  });
  const listening = await listen(server);
  return { url: listening.url, close: () => listening.close() };
}
