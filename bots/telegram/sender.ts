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

/** A briefing half posted when its attempt failed is resumed by a retry within the slot's window. */
const PARTIAL_KEPT_MS = 3 * 3_600_000;

export function createTelegramSender(deps: {
  api: Api;
  platformState: PlatformState;
  clock: Clock;
  logger: Logger;
  /** Spaces the outbox's posts under Telegram's limits; without one, posts go out as they come. */
  pacer?: SendPacer | undefined;
}): PlatformSender {
  // A briefing split over several messages that failed half-way resumes where it stopped on the retry.
  const partial = new Map<string, { ids: number[]; at: number }>();
  const forgetOldPartials = (now: number) => {
    for (const [key, entry] of partial) if (entry.at < now - PARTIAL_KEPT_MS) partial.delete(key);
  };

  return {
    platform: "telegram",
    async deliver({ recipient, message, begin }) {
      const chatId = recipient.chatId ?? recipient.externalUserId;
      await deps.pacer?.acquire(chatId);
      if (!(await begin())) return undefined;
      await deps.pacer?.beforeSend();
      const key = `${chatId}:${message.runId}`;
      const now = deps.clock.now().getTime();
      forgetOldPartials(now);
      let ids: number[];
      try {
        ids = await postBriefing(deps.api, chatId, message, {
          alreadySent: partial.get(key)?.ids ?? [],
          onPosted: (posted) => partial.set(key, { ids: [...posted], at: now }),
        });
      } catch (error) {
        if (error instanceof HttpError) {
          // Whether it reached Telegram is in the chain (the transport's code, or the socket error).
          throw new Error(`telegram network error: ${networkDetail(error)}`, { cause: error });
        }
        const failure = toDeliveryError(error);
        if (failure.permanent) partial.delete(key);
        throw failure;
      }
      partial.delete(key);
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

/** grammY's HttpError says only "Network request for 'sendMessage' failed!"; the fetch error says why. */
function networkDetail(error: HttpError): string {
  const inner = error.error;
  return inner instanceof Error ? `${error.message} ${inner.message}` : error.message;
}
