/**
 * Posting a briefing to Slack as a thread parent, and the `PlatformSender` the delivery outbox calls.
 * The thread (channel + ts) is remembered as a conversation about the run, so replies in it are follow-ups.
 */
import { webApi } from "@slack/bolt";
import type { Database } from "../../db/client.ts";
import { findOrCreateConversation } from "../../db/queries/conversations.ts";
import type { BriefingMessage, PlatformSender } from "../../src/core/assistant.ts";
import { DeliveryError } from "../../src/core/assistant.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { Logger } from "../../src/logger.ts";
import { dmChannelFor, isUserId } from "./dm-channels.ts";
import { briefingMessages } from "./format.ts";
import { briefingThreadKey } from "./threads.ts";

/** Slack errors no retry can fix: the channel or account is gone, or the token is wrong. */
const PERMANENT_ERRORS = new Set([
  "channel_not_found",
  "is_archived",
  "not_in_channel",
  "account_inactive",
  "invalid_auth",
  "not_authed",
  "token_revoked",
  "token_expired",
  "missing_scope",
  "user_not_found",
  "cannot_dm_bot",
  "user_disabled",
]);

export interface BriefingPostDeps {
  client: webApi.WebClient;
  db: Database;
  clock: Clock;
  logger: Logger;
}

/** Posts the briefing as a thread parent (overflow in the thread) and maps the thread to the run. */
export async function postBriefing(
  deps: BriefingPostDeps,
  channel: string,
  message: BriefingMessage,
): Promise<string> {
  const [parent, ...overflow] = briefingMessages(message);
  if (!parent) throw new Error("briefing rendered to no message");
  const posted = await deps.client.chat.postMessage({
    channel,
    text: parent.text,
    blocks: parent.blocks,
    unfurl_links: false,
  });
  const ts = posted.ts;
  const postedChannel = posted.channel ?? channel;
  if (!ts) throw new Error("chat.postMessage answered without a ts");
  try {
    await findOrCreateConversation(deps.db, {
      userId: message.userId,
      platform: "slack",
      threadKey: briefingThreadKey(postedChannel, ts),
      runId: message.runId,
      at: deps.clock.now(),
    });
  } catch (error) {
    // The briefing is out; failing now would make the outbox post it twice. Follow-ups lose the run link only.
    deps.logger.error(
      { err: error, runId: message.runId, channel: postedChannel, ts },
      "slack: could not record the briefing thread",
    );
  }
  for (const page of overflow) {
    await deps.client.chat.postMessage({
      channel: postedChannel,
      thread_ts: ts,
      text: page.text,
      blocks: page.blocks,
    });
  }
  return ts;
}

/**
 * The outbox's way to Slack. `target` is the identity's DM channel (D…), the configured channel, or a Slack
 * user id whose DM is opened first. Errors become `DeliveryError`s: permanent ones are never retried, rate limits
 * carry `retryAfterMs`. The client should reject rate-limited calls rather than wait, so the outbox decides.
 */
export function createSlackSender(options: BriefingPostDeps): PlatformSender {
  return {
    platform: "slack",
    async deliver(target, message) {
      try {
        const channel = isUserId(target) ? await dmChannelFor(options, target) : target;
        const ts = await postBriefing(options, channel, message);
        return { platformMessageId: ts };
      } catch (error) {
        throw toDeliveryError(error);
      }
    },
  };
}

export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof webApi.WebAPIRateLimitedError) {
    return new DeliveryError("slack: rate limited", false, error.retryAfter * 1000, { cause: error });
  }
  if (error instanceof webApi.WebAPIPlatformError) {
    const code = error.data.error;
    if (code === "ratelimited" || code === "rate_limited") {
      return new DeliveryError(`slack: ${code}`, false, 1000, { cause: error });
    }
    return new DeliveryError(`slack: ${code}`, PERMANENT_ERRORS.has(code), undefined, { cause: error });
  }
  if (error instanceof webApi.WebAPIHTTPError) {
    const retryAfter = Number(error.headers["retry-after"]);
    return new DeliveryError(
      `slack: HTTP ${error.statusCode}`,
      false,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DeliveryError(`slack: ${message}`, false, undefined, { cause: error });
}
