/**
 * Posting a briefing to Slack as a thread parent, and the `PlatformSender` the delivery outbox calls.
 * The thread (channel + ts) is linked to the run, so replies in it are follow-ups.
 */
import { webApi } from "@slack/bolt";
import {
  type BriefingMessage,
  type Clock,
  DeliveryError,
  errorMessage,
  type Logger,
  type PlatformSender,
  type PlatformState,
  type SendPacer,
} from "../../src/core/index.ts";
import { dmChannelOf } from "./dm-channels.ts";
import { briefingMessages } from "./format.ts";
import { linkBriefingThread } from "./threads.ts";

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
  platformState: PlatformState;
  clock: Clock;
  logger: Logger;
}

/** How far an interrupted post got: the parent and the overflow pages already in its thread. */
export interface PostProgress {
  channel: string;
  ts: string;
  pages: number;
}

/**
 * Posts the briefing as a thread parent (overflow in the thread) and maps the thread to the run. With
 * `resume`, an earlier attempt's parent and pages are kept and only the rest is posted.
 */
export async function postBriefing(
  deps: BriefingPostDeps,
  channel: string,
  message: BriefingMessage,
  options: {
    resume?: PostProgress | undefined;
    onProgress?: (progress: PostProgress) => void | Promise<void>;
  } = {},
): Promise<string> {
  const [parent, ...overflow] = briefingMessages(message);
  if (!parent) throw new Error("briefing rendered to no message");
  let progress = options.resume;
  if (!progress) {
    const posted = await deps.client.chat.postMessage({
      channel,
      text: parent.text,
      blocks: parent.blocks,
      unfurl_links: false,
    });
    if (!posted.ts) throw new Error("chat.postMessage answered without a ts");
    progress = { channel: posted.channel ?? channel, ts: posted.ts, pages: 0 };
    await options.onProgress?.(progress);
    await rememberThread(deps, message, progress);
  }
  const { ts, channel: postedChannel } = progress;
  for (const [index, page] of overflow.entries()) {
    if (index < progress.pages) continue;
    await deps.client.chat.postMessage({
      channel: postedChannel,
      thread_ts: ts,
      text: page.text,
      blocks: page.blocks,
    });
    progress = { ...progress, pages: index + 1 };
    await options.onProgress?.(progress);
  }
  return ts;
}

async function rememberThread(
  deps: BriefingPostDeps,
  message: BriefingMessage,
  { channel: postedChannel, ts }: PostProgress,
): Promise<void> {
  try {
    await linkBriefingThread(deps.platformState, {
      userId: message.userId,
      runId: message.runId,
      channel: postedChannel,
      ts,
      at: deps.clock.now(),
    });
  } catch (error) {
    // The briefing is out; failing now would make the outbox post it twice. Follow-ups lose the run link only.
    deps.logger.error(
      { err: error, runId: message.runId, channel: postedChannel, ts },
      "slack: could not record the briefing thread",
    );
  }
}

/**
 * The outbox's way to Slack. A briefing goes to the configured channel (SLACK_CHANNEL) when there is one,
 * otherwise to the user's DM, opened first when the bot has none with them yet; posts to one channel wait
 * their turn under Slack's limits. Slack's answers become `DeliveryError`s: permanent ones are never
 * retried, rate limits carry `retryAfterMs` (the client rejects rate-limited calls rather than wait, so the
 * outbox decides). A network failure while posting is passed on with its cause, so the outbox can tell
 * whether the post reached Slack; one while opening the DM is harmless to retry and says so.
 */
export function createSlackSender(
  options: BriefingPostDeps & {
    /** Every briefing goes to this channel instead of each user's DM. */
    channel?: string | undefined;
    pacer?: SendPacer | undefined;
  },
): PlatformSender {
  return {
    platform: "slack",
    async deliver({ recipient, message, begin, progress, saveProgress }) {
      let channel: string;
      try {
        channel = options.channel ?? (await dmChannelOf(options, recipient));
      } catch (error) {
        // conversations.open posts nothing; repeating it is always safe.
        throw isNetworkError(error)
          ? new DeliveryError(`slack: ${errorMessage(error)}`, false, undefined, { cause: error })
          : toDeliveryError(error);
      }
      await options.pacer?.acquire(channel);
      if (!(await begin(channel))) return undefined;
      try {
        // A briefing split over several messages that failed half-way resumes where it stopped.
        const ts = await postBriefing(options, channel, message, {
          resume: postProgressOf(progress),
          onProgress: (post) => saveProgress(post),
        });
        return { platformMessageId: ts, target: channel };
      } catch (error) {
        if (isNetworkError(error)) {
          throw new Error(`slack network error: ${errorMessage(error)}`, { cause: error });
        }
        throw toDeliveryError(error);
      }
    },
  };
}

/** What an earlier attempt saved, when it has the shape `postBriefing` saves. */
function postProgressOf(progress: unknown): PostProgress | undefined {
  const saved = progress as Partial<PostProgress> | undefined;
  return typeof saved?.channel === "string" && typeof saved.ts === "string" && typeof saved.pages === "number"
    ? { channel: saved.channel, ts: saved.ts, pages: saved.pages }
    : undefined;
}

/** The request failed on the way (no answer from Slack): the Web API client's request error. */
function isNetworkError(error: unknown): boolean {
  return error instanceof webApi.WebAPIRequestError;
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
  return new DeliveryError(`slack: ${errorMessage(error)}`, false, undefined, { cause: error });
}
