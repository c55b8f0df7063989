/**
 * The send transport against small real HTTP servers: what it reports when a connection breaks before the
 * body left, after it left, or never opened; keep-alive; and its bound on requests in flight.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { classifySendFailure } from "../../src/delivery/send-outcome.ts";
import {
  createSendTransport,
  NOT_SENT,
  OUTCOME_UNKNOWN,
  type SendTransport,
} from "../../src/delivery/send-transport.ts";
import { listen } from "../servers/http.ts";
import { refusedUrl } from "../servers/ollama-server.ts";

interface Seen {
  bodies: string[];
  connections: number;
  continues: number;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(
  handler: (request: IncomingMessage, response: ServerResponse, seen: Seen) => void,
  options: { onCheckContinue?: (request: IncomingMessage, response: ServerResponse) => boolean } = {},
): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { bodies: [], connections: 0, continues: 0 };
  const respond = (request: IncomingMessage, response: ServerResponse) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      seen.bodies.push(Buffer.concat(parts).toString("utf8"));
      handler(request, response, seen);
    });
  };
  const server: Server = createServer(respond);
  server.on("connection", () => {
    seen.connections += 1;
  });
  server.on("checkContinue", (request, response) => {
    if (options.onCheckContinue?.(request, response)) return;
    seen.continues += 1;
    response.writeContinue();
    respond(request, response);
  });
  const listening = await listen(server);
  cleanups.push(listening.close);
  return { url: `${listening.url}/bot1/sendMessage`, seen };
}

function transport(options: Parameters<typeof createSendTransport>[0] = {}): SendTransport {
  const created = createSendTransport(options);
  cleanups.push(() => created.close());
  return created;
}

const post = (body = '{"chat_id":1,"text":"hi"}') => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body,
});

describe("send transport", () => {
  it("sends the body after 100 Continue and hands back the answer", async () => {
    const { url, seen } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"ok":true}');
    });
    const response = await transport().fetch(url, post());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(seen.continues).toBe(1);
    expect(seen.bodies).toEqual(['{"chat_id":1,"text":"hi"}']);
  });

  it("reports a connection reset before the body was read as not sent", async () => {
    const { url, seen } = await serve(() => {}, {
      onCheckContinue: (request) => {
        request.socket.resetAndDestroy();
        return true;
      },
    });
    const failure = await transport()
      .fetch(url, post())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "SendError", code: NOT_SENT });
    expect(classifySendFailure(failure).kind).toBe("not_sent");
    expect(seen.bodies).toEqual([]);
  });

  it("reports an answer lost after the request was carried out as outcome unknown", async () => {
    const { url, seen } = await serve((request) => request.socket.destroy());
    const failure = await transport()
      .fetch(url, post())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: OUTCOME_UNKNOWN });
    expect(classifySendFailure(failure).kind).toBe("unknown");
    expect(seen.bodies).toHaveLength(1);
  });

  it("reports a refused connection as not sent", async () => {
    const failure = await transport()
      .fetch(`${await refusedUrl()}/bot1/sendMessage`, post())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: NOT_SENT });
    expect((failure as Error).message).toContain("ECONNREFUSED");
  });

  it("gives up on a silent server at its deadline, as outcome unknown once the body went out", async () => {
    const { url } = await serve(() => {});
    const failure = await transport({ timeoutMs: 150 })
      .fetch(url, post())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: OUTCOME_UNKNOWN });
    expect((failure as Error).message).toContain("within 150 ms");
  });

  it("returns an answer given before 100 Continue without ever sending the body", async () => {
    const { url, seen } = await serve(() => {}, {
      onCheckContinue: (_request, response) => {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "3" });
        response.end('{"ok":false,"error_code":429}');
        return true;
      },
    });
    const response = await transport().fetch(url, post());
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(seen.bodies).toEqual([]);
  });

  it("keeps the connection alive across sends and holds requests beyond its bound", async () => {
    const held: ServerResponse[] = [];
    const { url, seen } = await serve((_request, response) => {
      held.push(response);
    });
    const client = transport({ maxConcurrent: 2 });
    const sends = [1, 2, 3].map((index) => client.fetch(url, post(`{"n":${index}}`)));
    for (let tick = 0; tick < 200 && held.length < 2; tick += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(held).toHaveLength(2);
    const answer = (response: ServerResponse | undefined) => {
      response?.writeHead(200, { "content-type": "application/json" });
      response?.end("{}");
    };
    answer(held[0]);
    for (let tick = 0; tick < 200 && held.length < 3; tick += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    answer(held[1]);
    answer(held[2]);
    expect((await Promise.all(sends)).map((response) => response.status)).toEqual([200, 200, 200]);
    expect(seen.bodies).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    // The third request reused a connection the first two opened.
    expect(seen.connections).toBe(2);
  });
});
