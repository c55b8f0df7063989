/**
 * The webhook endpoint: grammY's `webhookCallback` (constant-time secret check, 401 on a wrong or missing
 * secret), with the body read here first, so a body that is not an update gets a clear 400 instead of a
 * parse error surfacing as a 500. The secret is still checked before the body is looked at: a caller
 * without it learns nothing about what we accept.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Bot, type Context, webhookCallback } from "grammy";
import type { Update } from "grammy/types";

export type WebhookHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** Telegram's updates are a few kilobytes; anything near this is not one. */
const MAX_BODY_BYTES = 1 << 20;

class MalformedUpdate extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message);
    this.name = "MalformedUpdate";
  }
}

export function createWebhookHandler<C extends Context>(
  bot: Bot<C>,
  options: { secretToken?: string | undefined; timeoutMilliseconds: number },
): WebhookHandler {
  const handle = webhookCallback(
    bot,
    (request: IncomingMessage, response: ServerResponse, body: Promise<Update>) => {
      const header = request.headers["x-telegram-bot-api-secret-token"];
      return {
        // Read only once the secret matched (grammY checks it first).
        get update() {
          return body;
        },
        header: Array.isArray(header) ? header[0] : header,
        end: () => {
          response.end();
        },
        respond: (json: string) => {
          response.writeHead(200, { "Content-Type": "application/json" }).end(json);
        },
        unauthorized: () => {
          response.writeHead(401).end("secret token is wrong");
        },
      };
    },
    {
      ...(options.secretToken ? { secretToken: options.secretToken } : {}),
      onTimeout: "return",
      timeoutMilliseconds: options.timeoutMilliseconds,
    },
  );
  return async (request, response) => {
    const body = readUpdate(request);
    // Nobody may wait on it when the secret is wrong; the handler below decides whether it is read.
    body.catch(() => undefined);
    try {
      await handle(request, response, body);
    } catch (error) {
      if (!(error instanceof MalformedUpdate) || response.headersSent) throw error;
      response
        .writeHead(error.status, { "Content-Type": "text/plain; charset=utf-8" })
        .end(`${error.message}\n`);
    }
  };
}

/** The body as a Telegram update, or a `MalformedUpdate` saying why it is not one. */
async function readUpdate(request: IncomingMessage): Promise<Update> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the limit the rest is read and dropped (memory stays bounded), so the socket can still answer.
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) throw new MalformedUpdate("update too large", 413);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new MalformedUpdate("body is not JSON", 400);
  }
  const updateId = (parsed as { update_id?: unknown } | null)?.update_id;
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Number.isSafeInteger(updateId)
  ) {
    throw new MalformedUpdate("body is not a Telegram update (no update_id)", 400);
  }
  return parsed as Update;
}
