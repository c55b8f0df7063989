/**
 * The outbox's Telegram sender: resolves the chat (the linked account's private chat, which on Telegram is
 * the account's own id until the user writes), waits for the post's turn under Telegram's limits, posts the
 * briefing, links its messages as the run's reply chain, and reports failures so the outbox can act on them:
 * Telegram's answers as `DeliveryError`s (permanent, or transient with retry_after), network failures as
 * errors whose cause chain tells whether the request reached Telegram (the outbox retries only those that
 * certainly did not).
 */
import { type Api, HttpError } from "grammy";
import {
  type Clock,
  errorMessage,
  type Logger,
  type PlatformSender,
  type PlatformState,
  type SendPacer,
} from "../../src/core/index.ts";
import { postBriefing } from "./post.ts";
import { toDeliveryError } from "./send.ts";
import { linkToChain } from "./thread-map.ts";

export function createTelegramSender(deps: {
  api: Api;
  platformState: PlatformState;
  clock: Clock;
  logger: Logger;
  /** Spaces the outbox's posts under Telegram's limits; without one, posts go out as they come. */
  pacer?: SendPacer | undefined;
}): PlatformSender {
  return {
    platform: "telegram",
    async deliver({ recipient, message, begin, progress, saveProgress }) {
      // The one place the chat is chosen: the account's private chat, which is its own id until it writes.
      const chatId = recipient.chatId ?? recipient.externalUserId;
      await deps.pacer?.acquire(chatId);
      if (!(await begin(chatId))) return undefined;
      let ids: number[];
      try {
        // A briefing split over several messages that failed half-way resumes where it stopped.
        ids = await postBriefing(deps.api, chatId, message, {
          alreadySent: postedIds(progress),
          onPosted: (posted) => saveProgress({ messageIds: posted }),
        });
      } catch (error) {
        if (error instanceof HttpError) {
          // Whether it reached Telegram is in the chain (the transport's code, or the socket error).
          throw new Error(`telegram network error: ${networkDetail(error)}`, { cause: error });
        }
        throw toDeliveryError(error);
      }
      try {
        await linkToChain(deps.platformState, {
          userId: message.userId,
          chatId,
          runId: message.runId,
          messageIds: ids,
          at: deps.clock.now(),
        });
      } catch (error) {
        // The briefing is posted; failing now would make the outbox post it twice. Replies lose their run.
        deps.logger.error(
          { runId: message.runId, error: errorMessage(error) },
          "telegram reply-chain links not stored",
        );
      }
      const first = ids[0];
      if (first === undefined) throw toDeliveryError(new Error("nothing was posted"));
      return { platformMessageId: String(first), target: chatId };
    },
  };
}

/** The message ids an earlier attempt saved, or none. */
function postedIds(progress: unknown): number[] {
  const ids = (progress as { messageIds?: unknown } | undefined)?.messageIds;
  return Array.isArray(ids) && ids.every((id) => Number.isInteger(id)) ? (ids as number[]) : [];
}

/** grammY's HttpError says only "Network request for 'sendMessage' failed!"; the fetch error says why. */
function networkDetail(error: HttpError): string {
  const inner = error.error;
  return inner instanceof Error ? `${error.message} ${inner.message}` : error.message;
}
