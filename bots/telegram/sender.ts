/**
 * The outbox's Telegram sender: posts a generated briefing to a chat, records its messages as the run's
 * reply chain, and reports failures as `DeliveryError`s the outbox can act on.
 */
import { type Api, HttpError } from "grammy";
import type { Database } from "../../db/client.ts";
import type { BriefingMessage, DeliveryReceipt, PlatformSender } from "../../src/core/assistant.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { TelegramLogger } from "./logger.ts";
import { postBriefing } from "./post.ts";
import { toDeliveryError } from "./send.ts";
import { rememberRunMessages } from "./thread-map.ts";

/** Failures that happen before a request leaves the machine: retrying cannot post a duplicate. */
const REFUSED_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

export function createTelegramSender(deps: {
  api: Api;
  db: Database;
  clock: Clock;
  logger?: TelegramLogger;
}): PlatformSender {
  // A briefing split over several messages that failed half-way resumes where it stopped on the retry.
  const partial = new Map<string, number[]>();

  return {
    platform: "telegram",
    async deliver(target: string, message: BriefingMessage): Promise<DeliveryReceipt> {
      const key = `${target}:${message.runId}`;
      let ids: number[];
      try {
        ids = await postBriefing(deps.api, target, message, {
          alreadySent: partial.get(key) ?? [],
          onPosted: (posted) => partial.set(key, [...posted]),
        });
      } catch (error) {
        if (error instanceof HttpError && !wasRefused(error.error)) {
          // The request may have reached Telegram: let the outbox treat the outcome as unknown.
          throw new Error(`telegram delivery outcome unknown: ${error.message}`, { cause: error.error });
        }
        const failure = toDeliveryError(error);
        if (failure.permanent) partial.delete(key);
        throw failure;
      }
      partial.delete(key);
      try {
        await rememberRunMessages(deps.db, {
          userId: message.userId,
          chatId: target,
          runId: message.runId,
          messageIds: ids,
          at: deps.clock.now(),
        });
      } catch (error) {
        // The briefing is posted; failing now would make the outbox post it twice. Replies lose their run.
        deps.logger?.error(
          { runId: message.runId, error: String(error) },
          "telegram reply-chain mapping not stored",
        );
      }
      const first = ids[0];
      if (first === undefined) throw toDeliveryError(new Error("nothing was posted"));
      return { platformMessageId: String(first) };
    },
  };
}

function wasRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code && REFUSED_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}
