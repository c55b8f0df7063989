/**
 * Slack's side of start-up and health. Bolt needs `auth.test` before the app exists, so Slack fails fast:
 * a refused token or an unreachable API within the bound is a `StartError` (the restart policy tries again
 * later). Once running, `auth.test` every 30 s (more often while failing) keeps `/healthz` honest. Socket
 * Mode reconnects by itself, and Slack asks for a reconnect every few hours: a socket that stays down past a
 * grace period is `unreachable` (the Web API may answer while the socket cannot). With a polling lease (Socket Mode on a shared database), only its holder
 * connects; the others stand by (`standby`, healthy) and connect when the lease becomes theirs.
 */
import type { SlackApp } from "../../bots/slack/index.ts";
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import { backoffDelay, pause } from "./backoff.ts";
import { createComponentStatus, type StatusLogger } from "./component-status.ts";
import type { PollingLease } from "./polling-lease.ts";
import { StartError } from "./start-error.ts";
import { PLATFORM_CHECK_MS, type PlatformLink } from "./telegram-link.ts";

/** Longer than a routine refresh takes Bolt (about 5 s), short enough that a dead link shows within a minute. */
export const SOCKET_GRACE_MS = 30_000;

const REFUSED = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"]);

/** Builds the Slack app within `timeoutMs`, turning Slack's refusals and silences into one-line start errors. */
export async function createSlackWithin<T>(
  create: Promise<T>,
  apiUrl: string,
  timeoutMs: number,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new StartError(`no answer from Slack at ${apiUrl} within ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([create, timeout]);
  } catch (error) {
    if (error instanceof StartError) throw error;
    const refusal = slackRefusal(error);
    if (refusal) {
      throw new StartError(
        `Slack refused SLACK_BOT_TOKEN (${refusal}); check the token in your Slack app`,
        2,
        {
          cause: error,
        },
      );
    }
    throw new StartError(`cannot reach Slack at ${apiUrl}: ${errorMessage(error)}`, 1, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

export function linkSlack(
  slack: SlackApp,
  options: {
    clock: Clock;
    logger: StatusLogger;
    checkEveryMs?: number;
    connectTimeoutMs?: number;
    /** Socket Mode on a shared database: connect only while holding this lease. */
    pollingLease?: PollingLease;
    /** How long the socket may be down before health says so. Default {@link SOCKET_GRACE_MS}. */
    socketGraceMs?: number;
  },
): PlatformLink {
  const lease = options.pollingLease;
  const checkEveryMs = options.checkEveryMs ?? PLATFORM_CHECK_MS;
  const status = createComponentStatus("slack", { clock: options.clock, logger: options.logger });
  const stopping = new AbortController();
  let checking: Promise<void> | undefined;
  /** Not connected because another process holds the lease; auth.test still keeps the token checked. */
  let standingBy = false;
  const upState = () => (standingBy ? "standby" : "connected");
  const socket = watchSocket(slack, options.socketGraceMs ?? SOCKET_GRACE_MS, {
    lost: () => {
      if (!standingBy && !stopping.signal.aborted)
        status.down("unreachable", "the Socket Mode connection is down; reconnecting");
    },
    back: () => {
      if (!standingBy) status.up("connected");
    },
  });

  function standBy(holder: string | undefined): void {
    standingBy = true;
    status.up("standby");
    options.logger.info(
      { component: "slack", holder },
      "slack: another process holds this app's Socket Mode connection; standing by",
    );
  }

  /** The lease decides from the first connection on: connect when it is ours, disconnect when it is not. */
  function keepLease(): void {
    lease?.keep(async (turn) => {
      if (stopping.signal.aborted) return;
      if (turn.holds) {
        await slack.start();
        standingBy = false;
        status.up("connected");
        return;
      }
      await slack.stop();
      standBy(turn.holder);
    });
  }

  async function check(): Promise<boolean> {
    try {
      await slack.app.client.auth.test();
      if (!socket.down()) status.up(upState());
      return true;
    } catch (error) {
      const refusal = slackRefusal(error);
      status.down(
        refusal ? "unauthorized" : "unreachable",
        refusal ?? errorMessage(error),
        refusal ? "error" : "warn",
      );
      return false;
    }
  }

  function watch(): void {
    checking = (async () => {
      for (let failures = 0; !stopping.signal.aborted; ) {
        const delay = failures === 0 ? checkEveryMs : backoffDelay(failures, { maxMs: checkEveryMs });
        if (!(await pause(delay, stopping.signal))) return;
        failures = (await check()) ? 0 : failures + 1;
      }
    })();
  }

  return {
    name: "slack",
    health: () => status.health(),
    async connect() {
      const timeoutMs = options.connectTimeoutMs ?? 20_000;
      let timer: NodeJS.Timeout | undefined;
      try {
        if (lease) {
          const turn = await lease.check();
          keepLease();
          if (!turn.holds) {
            standBy(turn.holder);
            return { connected: true, standby: { holder: turn.holder } };
          }
        }
        await Promise.race([
          slack.start(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)),
              timeoutMs,
            );
          }),
        ]);
        status.up("connected");
        return { connected: true };
      } catch (error) {
        const reason = errorMessage(error);
        status.down("unreachable", reason);
        return { connected: false, reason };
      } finally {
        clearTimeout(timer);
        watch();
      }
    },
    async stop() {
      stopping.abort();
      socket.stop();
      await checking;
      if (lease) {
        if (lease.holds()) await slack.stop();
        await lease.stop();
      }
    },
  };
}

/**
 * Follows the Socket Mode client: `lost` once the socket has been down for `graceMs` (a routine refresh
 * does not count), `back` when it opens again after that. Does nothing in HTTP mode.
 */
function watchSocket(
  slack: SlackApp,
  graceMs: number,
  on: { lost: () => void; back: () => void },
): { down: () => boolean; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let lost = false;
  let stopped = false;
  slack.onSocketChange?.((open) => {
    if (stopped) return;
    if (open) {
      clearTimeout(timer);
      timer = undefined;
      if (lost) on.back();
      lost = false;
      return;
    }
    if (timer !== undefined || lost) return;
    timer = setTimeout(() => {
      timer = undefined;
      lost = true;
      on.lost();
    }, graceMs);
  });
  return {
    down: () => lost,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Slack's error code when the Web API refused our token, else undefined. */
function slackRefusal(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } })?.data?.error;
  return typeof code === "string" && REFUSED.has(code) ? code : undefined;
}
