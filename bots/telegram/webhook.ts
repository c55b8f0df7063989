/**
 * The webhook endpoint. Telegram forgets an update once it got its 200 and re-posts one it did not, so the
 * 200 comes only after the update is safe: with `intake`, stored in the database (bots/durable-intake.ts),
 * where a process killed mid-answer leaves it for the next start or another replica to take over. The answer
 * is worked out after the 200 — an answer takes longer than Telegram waits — and the update marked handled
 * when its handler ends. An update stored already (Telegram posted it again) gets its 200 and nothing else.
 * A store that fails answers 500, and Telegram posts the update again later.
 *
 * The secret is checked (in constant time) before the body is looked at: a caller without it learns nothing
 * about what we accept (401). A body that is not an update gets a clear 400.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Bot, Context } from "grammy";
import type { Update } from "grammy/types";
import { errorMessage, type Logger } from "../../src/core/index.ts";
import type { DurableIntake } from "../durable-intake.ts";
import { failureReporter } from "./report-failure.ts";

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

export interface WebhookOptions {
  secretToken?: string | undefined;
  /**
   * Keeps each update until handled (its handler initialises the bot and reports failures); without it an
   * update is handled in memory only, and lost with the process.
   */
  intake?: DurableIntake | undefined;
  /** Handling not tracked by the intake (no `intake`), for `idle`. */
  inFlight: Set<Promise<void>>;
  logger: Logger;
}

export function createWebhookHandler<C extends Context>(
  bot: Bot<C>,
  options: WebhookOptions,
): WebhookHandler {
  const { intake, logger } = options;
  const secretMatches = options.secretToken ? secretCheck(options.secretToken) : () => true;

  const reportFailure = failureReporter(bot, logger);

  function handleInMemory(update: Update): void {
    const work = (async () => {
      await bot.init();
      await bot.handleUpdate(update);
    })().catch(reportFailure);
    options.inFlight.add(work);
    const done = () => options.inFlight.delete(work);
    work.then(done, done);
  }

  return async (request, response) => {
    const header = request.headers["x-telegram-bot-api-secret-token"];
    if (!secretMatches(Array.isArray(header) ? header[0] : header)) {
      request.resume();
      response.writeHead(401).end("secret token is wrong");
      return;
    }
    let update: Update;
    try {
      update = await readUpdate(request);
    } catch (error) {
      if (!(error instanceof MalformedUpdate)) throw error;
      response
        .writeHead(error.status, { "Content-Type": "text/plain; charset=utf-8" })
        .end(`${error.message}\n`);
      return;
    }
    const updateId = String(update.update_id);
    if (!intake) {
      response.writeHead(200).end();
      handleInMemory(update);
      return;
    }
    let fresh: boolean;
    try {
      fresh = (await intake.accept([{ updateId, payload: update }])).includes(updateId);
    } catch (error) {
      logger.warn(
        { updateId, error: errorMessage(error) },
        "telegram: could not store a posted update; Telegram will post it again",
      );
      response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("not stored\n");
      return;
    }
    response.writeHead(200).end();
    if (fresh) void intake.handle(updateId, update);
    else logger.info({ updateId }, "telegram: update posted again, already stored; not handled twice");
  };
}

/** Compares digests, so neither the comparison's time nor a length check tells how much of a guess matched. */
function secretCheck(secret: string): (given: string | undefined) => boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  const expected = digest(secret);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
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
