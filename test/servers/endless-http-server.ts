/**
 * Streams a response body that never ends (chunked, no Content-Length), to prove a client stops reading
 * once it passes its size limit. Records how many bytes it managed to write before the client hung up.
 */
import { createServer } from "node:http";
import { listen } from "./http.ts";

export interface EndlessHttpServer {
  url: string;
  bytesWritten(): number;
  /** Resolves when the client has closed the connection. */
  clientGone: Promise<void>;
  close(): Promise<void>;
}

export async function startEndlessHttpServer(
  chunk = "<item>".padEnd(64 * 1024, "x"),
): Promise<EndlessHttpServer> {
  let written = 0;
  let markGone: () => void = () => {};
  const clientGone = new Promise<void>((resolve) => {
    markGone = resolve;
  });
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/rss+xml" });
    const pump = () => {
      while (!response.destroyed && response.write(chunk)) written += chunk.length;
      if (!response.destroyed) response.once("drain", pump);
    };
    response.on("close", markGone);
    pump();
  });
  const { url, close } = await listen(server);
  return { url, bytesWritten: () => written, clientGone, close };
}
