/**
 * A `fetch` for platform sends that knows how far a failed request got, so the outbox can tell a send
 * that certainly never reached the platform (safe to retry) from one that may have (never re-sent).
 *
 * - `Expect: 100-continue` (on by default for deliveries): the body leaves only after the server's
 *   `100 Continue`. A platform cannot act on a request whose body it never received, so a connection that
 *   breaks before that — a reset, a stale keep-alive socket, a refused or half-open connection — is
 *   certainly "not sent". Nginx (in front of api.telegram.org and slack.com) and Node answer it; a server
 *   that ignores it gets the body after `continueTimeoutMs`, as curl does.
 * - Keep-alive connections and a request deadline (with the caller's bound on requests in flight) keep the
 *   other kind, "outcome unknown" (the body went out and the answer was lost), rare.
 *
 * Errors carry `code`: `ERR_REQUEST_NOT_SENT` or `ERR_SEND_OUTCOME_UNKNOWN`, with the network error as
 * `cause` (grammY and the Slack client wrap them, keeping the chain; see `send-outcome.ts`).
 *
 * Hand-written on `node:http` rather than undici or node-fetch: neither reports whether the body was
 * written when a request fails, which is the whole point here.
 */
import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { BriefbotError } from "../core/errors.ts";

export interface SendTransportOptions {
  /** Send the body only after `100 Continue`. Default true. */
  expectContinue?: boolean;
  /** How long to wait for `100 Continue` before sending the body anyway. Default 1 s. */
  continueTimeoutMs?: number;
  /** Deadline for the whole request, connection to last byte of the answer. Default 30 s. */
  timeoutMs?: number;
  /** Connections kept per host (the caller bounds requests in flight to the same). Default 8. */
  maxConcurrent?: number;
  /** Idle keep-alive sockets are closed after this, before typical server idle timeouts. Default 20 s. */
  idleSocketMs?: number;
}

export interface SendTransport {
  fetch: typeof fetch;
  /** Closes idle connections (shutdown, tests). */
  close(): void;
}

export const NOT_SENT = "ERR_REQUEST_NOT_SENT";
export const OUTCOME_UNKNOWN = "ERR_SEND_OUTCOME_UNKNOWN";

/** A request that failed, and whether its body could have reached the server. */
export class SendError extends BriefbotError<typeof NOT_SENT | typeof OUTCOME_UNKNOWN> {
  constructor(message: string, code: typeof NOT_SENT | typeof OUTCOME_UNKNOWN, options: { cause: unknown }) {
    super(code, message, options);
  }
}

interface Phase {
  connected: boolean;
  bodySent: boolean;
}

export function createSendTransport(options: SendTransportOptions = {}): SendTransport {
  const expectContinue = options.expectContinue ?? true;
  const continueTimeoutMs = options.continueTimeoutMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? 8);
  const agentOptions = {
    keepAlive: true,
    maxSockets: maxConcurrent,
    maxFreeSockets: maxConcurrent,
    timeout: options.idleSocketMs ?? 20_000,
  };
  const agents = { "http:": new http.Agent(agentOptions), "https:": new https.Agent(agentOptions) };

  const send = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const protocol = url.protocol === "https:" ? "https:" : url.protocol === "http:" ? "http:" : undefined;
    if (!protocol) throw new TypeError(`unsupported protocol: ${url.protocol}`);
    const method = (init.method ?? "GET").toUpperCase();
    const { body, contentType } = await bodyBytes(init.body);
    const headers = headerRecord(init.headers);
    if (contentType && !Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
      headers["content-type"] = contentType;
    }
    return exchange({
      url,
      method,
      headers,
      body,
      agent: agents[protocol],
      signal: init.signal ?? undefined,
      expectContinue: expectContinue && body !== undefined && body.length > 0,
    });
  };

  function exchange(request: {
    url: URL;
    method: string;
    headers: Record<string, string>;
    body: Buffer | undefined;
    agent: http.Agent;
    signal: AbortSignal | undefined;
    expectContinue: boolean;
  }): Promise<Response> {
    const { url, body } = request;
    const phase: Phase = { connected: false, bodySent: false };
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      let continueTimer: NodeJS.Timeout | undefined;
      const library = url.protocol === "https:" ? https : http;
      // Already aborted: no request at all (one made and left without an error listener would crash the
      // process when its socket later closes).
      if (request.signal?.aborted) {
        settled = true;
        reject(toSendError(abortReason(request.signal), phase, url));
        return;
      }
      const outgoing = library.request(url, {
        method: request.method,
        agent: request.agent,
        headers: {
          ...request.headers,
          ...(body === undefined ? {} : { "content-length": String(body.length) }),
          ...(request.expectContinue ? { expect: "100-continue" } : {}),
        },
      });
      const fail = (cause: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        reject(toSendError(cause, phase, url));
      };
      const deadline = setTimeout(
        () => outgoing.destroy(new Error(`no answer from ${url.host} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => outgoing.destroy(abortReason(request.signal));
      const cleanup = () => {
        clearTimeout(deadline);
        clearTimeout(continueTimer);
        request.signal?.removeEventListener("abort", onAbort);
      };
      const sendBody = () => {
        if (phase.bodySent) return;
        clearTimeout(continueTimer);
        phase.bodySent = true;
        outgoing.end(body);
      };
      request.signal?.addEventListener("abort", onAbort, { once: true });

      outgoing.on("socket", (socket: Socket) => {
        const connected = () => {
          phase.connected = true;
          if (request.expectContinue) continueTimer = setTimeout(sendBody, continueTimeoutMs);
        };
        if (outgoing.reusedSocket || !socket.connecting) connected();
        else socket.once(url.protocol === "https:" ? "secureConnect" : "connect", connected);
      });
      outgoing.on("continue", sendBody);
      outgoing.on("error", fail);
      outgoing.on("response", (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", fail);
        incoming.on("close", () => {
          if (!incoming.complete) fail(new Error("connection closed before the answer was complete"));
        });
        incoming.on("end", () => {
          if (settled) return;
          settled = true;
          cleanup();
          // Answered before we sent the body (an early 4xx/429): the half-written request must not be reused.
          if (!phase.bodySent && body !== undefined) outgoing.destroy();
          resolve(toResponse(incoming, Buffer.concat(chunks)));
        });
      });
      if (request.expectContinue) outgoing.flushHeaders();
      else {
        phase.bodySent = true;
        outgoing.end(body);
      }
    });
  }

  return {
    fetch: send as typeof fetch,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

function toSendError(cause: unknown, phase: Phase, url: URL): SendError {
  const detail = describe(cause);
  // Without the body the platform had nothing to act on; with it, only its answer could tell.
  return !phase.connected || !phase.bodySent
    ? new SendError(`request to ${url.host} was not sent: ${detail}`, NOT_SENT, { cause })
    : new SendError(`request to ${url.host} was sent but its answer was lost: ${detail}`, OUTCOME_UNKNOWN, {
        cause,
      });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error("request aborted");
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function toResponse(incoming: http.IncomingMessage, body: Buffer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const status = incoming.statusCode ?? 502;
  return new Response(NULL_BODY_STATUSES.has(status) ? null : new Uint8Array(body), {
    status,
    statusText: incoming.statusMessage ?? "",
    headers,
  });
}

/** Any fetch body as bytes (bodies here are small JSON or form posts), with the type it implies. */
async function bodyBytes(
  body: RequestInit["body"] | undefined,
): Promise<{ body: Buffer | undefined; contentType: string | undefined }> {
  if (body === undefined || body === null) return { body: undefined, contentType: undefined };
  if (typeof body === "string") return { body: Buffer.from(body), contentType: undefined };
  if (body instanceof Uint8Array) return { body: Buffer.from(body), contentType: undefined };
  // URLSearchParams, FormData, Blob, streams and async iterables (grammY's multipart uploads).
  const normalized = new Response(body as ConstructorParameters<typeof Response>[0]);
  return {
    body: Buffer.from(await normalized.arrayBuffer()),
    contentType: normalized.headers.get("content-type") ?? undefined,
  };
}

function headerRecord(headers: RequestInit["headers"] | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  new Headers(headers).forEach((value, name) => {
    record[name] = value;
  });
  return record;
}
