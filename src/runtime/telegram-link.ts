/**
 * Keeps the Telegram adapter connected and says how it stands.
 *
 * At start, `getMe` gets a bounded time: a refused token is a `StartError` (the process exits saying so);
 * an API that does not answer lets the bot start degraded — the start-up summary says so, `/healthz` is
 * 503 — while this keeps trying with backoff and starts polling (or sets the webhook) once it answers.
 * After start, every API call's outcome updates the status, and a polling loop that grammY gave up on
 * (401, 409 from another process) is restarted with backoff, the old runner stopped first: one poller, ever.
 * With a polling lease (several processes on one database), only its holder polls; the others stand by
 * (`standby`, healthy) and the lease says when to start or stop (see `polling-lease.ts`).
 */
import { GrammyError, HttpError } from "grammy";
import type { TelegramBot } from "../../bots/telegram/index.ts";
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import type { ComponentHealth } from "../server/health.ts";
import { backoffDelay, pause } from "./backoff.ts";
import { createComponentStatus, type StatusLogger } from "./component-status.ts";
import type { PollingLease, PollingTurn } from "./polling-lease.ts";
import { StartError } from "./start-error.ts";

/**
 * How often a link that is not polling asks the platform whether it is there (Telegram's webhook mode,
 * Slack): an outage shows in `/healthz` within half a minute, inside what a liveness probe of three
 * 10-s failures waits, at one cheap call per half minute.
 */
export const PLATFORM_CHECK_MS = 30_000;

export interface PlatformLink {
  readonly name: string;
  health(): ComponentHealth;
  /**
   * The first connection, bounded in time. Throws a `StartError` when the platform refuses our token.
   * `standby`: the token is fine, but another process holds the one connection it allows.
   */
  connect(): Promise<
    { connected: true; standby?: { holder: string | undefined } } | { connected: false; reason: string }
  >;
  stop(): Promise<void>;
}

export interface TelegramLinkOptions {
  clock: Clock;
  /** For messages: where the Bot API is (TELEGRAM_API_ROOT). */
  apiRoot: string;
  logger: StatusLogger;
  /** How long start-up waits for Telegram before going on degraded. Default 10 s. */
  connectTimeoutMs?: number;
  /** Longest pause between reconnection attempts. Default 60 s. */
  maxBackoffMs?: number;
  /** Webhook mode: how often the API is called to keep health true. Default {@link PLATFORM_CHECK_MS}. */
  checkEveryMs?: number;
  /** Long polling on a shared database: poll only while holding this lease. */
  pollingLease?: PollingLease;
}

export function linkTelegram(telegram: TelegramBot, options: TelegramLinkOptions): PlatformLink {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const webhookMode = telegram.webhookHandler !== undefined;
  const checkEveryMs = options.checkEveryMs ?? PLATFORM_CHECK_MS;
  const host = hostOf(options.apiRoot);
  const status = createComponentStatus("telegram", { clock: options.clock, logger: options.logger });
  const stopping = new AbortController();
  let running = false;
  /** Until the first start, `connect` and the reconnect loop report; afterwards every API call does. */
  let everStarted = false;
  let reconnecting: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  const poller = telegram.poller;
  const supervisor = poller ? superviseOf(poller) : undefined;
  const lease = webhookMode ? undefined : options.pollingLease;
  /** Set while standing by at the first connection, for the start-up summary. */
  let standingBy: Extract<PollingTurn, { holds: false }> | undefined;
  let keepingLease = false;

  // Every API attempt reports on the connection: an answer means reachable, a network failure or a 5xx
  // not — each attempt, not each call, so an outage shows while auto-retry is still waiting it out.
  telegram.observeAttempts(async (previous, method, payload, signal) => {
    if (!everStarted) return previous(method, payload, signal);
    try {
      // While unreachable, a long poll is sent as a short one: a long poll that Telegram accepts answers
      // only when it ends (30 s later with no updates), so health would stay 503 that long after an
      // outage. The runner polls again at once; only this attempt is short.
      const probe = method === "getUpdates" && isLongPoll(payload) && status.health().state === "unreachable";
      const sent = probe ? ({ ...payload, timeout: 0 } as typeof payload) : payload;
      const result = await previous(method, sent, signal);
      if (result.ok) {
        if (method === "getUpdates" && isLongPoll(payload)) supervisor?.answered();
        if (running && !supervisor?.inConflict()) status.up(webhookMode ? "webhook" : "polling");
      } else if (result.error_code === 401) {
        status.down("unauthorized", `${method}: ${result.description}`, "error");
      } else if (result.error_code >= 500) {
        status.down("unreachable", `${method}: ${result.error_code} ${result.description}`);
      }
      // A 409 on getUpdates ends the runner; the supervisor says so once it has.
      return result;
    } catch (error) {
      if (!stopping.signal.aborted) status.down("unreachable", `${method}: ${describe(error)}`);
      throw error;
    }
  });

  /**
   * Keeps the one runner alive. The runner retries network failures and 5xx itself and gives up only on
   * 401 and 409; each time it gives up, this restarts it after a back-off (1 s doubling to the cap) that
   * resets once a poll comes back answered. Since this process never runs two pollers, a 409 means another
   * process polls the same token: `conflict`, logged once, until one of our polls is answered again.
   */
  function superviseOf(current: NonNullable<TelegramBot["poller"]>) {
    let failures = 0;
    let conflict = false;

    function follow(): void {
      current.ended().then(
        () => onEnded(undefined),
        (error: unknown) => onEnded(error),
      );
    }

    function onEnded(error: unknown): void {
      if (stopping.signal.aborted || !running) return;
      if (isConflict(error)) {
        status.down("conflict", `another process polls this bot token: ${describe(error)}`, "error");
        conflict = true;
      } else if (isUnauthorized(error)) {
        status.down("unauthorized", describe(error), "error");
      } else {
        status.down("stopped", error === undefined ? "polling stopped" : describe(error), "error");
      }
      const delay = backoffDelay(failures, { maxMs: maxBackoffMs });
      failures += 1;
      restarting = (async () => {
        // A lease lost meanwhile means another process polls now.
        if (!(await pause(delay, stopping.signal)) || !running) return;
        await current.start();
        follow();
      })()
        .catch((restartError: unknown) => {
          status.down("stopped", `polling could not restart: ${describe(restartError)}`, "error");
        })
        .finally(() => {
          restarting = undefined;
        });
    }

    return {
      follow,
      /** A poll came back answered: Telegram gave us, and nobody else, this stretch of updates. */
      answered(): void {
        failures = 0;
        conflict = false;
      },
      inConflict: () => conflict,
    };
  }

  /**
   * getMe, then start polling or set the webhook — or, without the polling lease, stand by. Resolves when
   * running or standing by; rejects as grammY does.
   */
  async function startOnce(signal: AbortSignal): Promise<void> {
    // grammY types its signal with an AbortController shim; Node's is the same thing at run time.
    await telegram.bot.init(signal as unknown as Parameters<typeof telegram.bot.init>[0]);
    if (lease) {
      const turn = await lease.check();
      if (!turn.holds) {
        standingBy = turn;
        standBy(turn);
        everStarted = true;
        keepLease();
        return;
      }
    }
    await startPolling();
    everStarted = true;
    keepLease();
  }

  async function startPolling(): Promise<void> {
    await telegram.start();
    running = true;
    status.up(webhookMode ? "webhook" : "polling");
    supervisor?.follow();
  }

  function standBy(turn: Extract<PollingTurn, { holds: false }>): void {
    status.up("standby");
    options.logger.info(
      { component: "telegram", holder: turn.holder },
      "telegram: another process polls this bot token; standing by",
    );
  }

  /** From the first start on, the lease decides: take over when it is ours, stop at once when it is not. */
  function keepLease(): void {
    if (!lease || keepingLease) return;
    keepingLease = true;
    lease.keep(async (turn) => {
      if (stopping.signal.aborted) return;
      if (turn.holds) {
        try {
          await startPolling();
        } catch (error) {
          status.down("unreachable", `taking over polling: ${describe(error)}`);
          throw error;
        }
        return;
      }
      running = false;
      await poller?.stop();
      standBy(turn);
    });
  }

  function reconnectInBackground(): void {
    if (reconnecting || stopping.signal.aborted) return;
    running = false;
    reconnecting = (async () => {
      for (let attempt = 0; !stopping.signal.aborted; attempt += 1) {
        if (!(await pause(backoffDelay(attempt, { maxMs: maxBackoffMs }), stopping.signal))) return;
        try {
          await startOnce(AbortSignal.any([stopping.signal, AbortSignal.timeout(connectTimeoutMs)]));
          return;
        } catch (error) {
          if (stopping.signal.aborted) return;
          const unauthorized = isUnauthorized(error);
          status.down(
            unauthorized ? "unauthorized" : "unreachable",
            describe(error),
            unauthorized ? "error" : "warn",
          );
        }
      }
    })().finally(() => {
      reconnecting = undefined;
    });
  }

  /** Webhook mode: Telegram pushes, so nothing fails on its own; an API call now and then keeps health true. */
  function watchWebhook(): void {
    if (!webhookMode) return;
    watchdog = setInterval(() => {
      if (running && !reconnecting) telegram.bot.api.getWebhookInfo().catch(() => {});
    }, checkEveryMs);
    watchdog.unref();
  }

  return {
    name: "telegram",
    health: () => status.health(),
    async connect() {
      let timer: NodeJS.Timeout | undefined;
      const started = startOnce(AbortSignal.any([stopping.signal, AbortSignal.timeout(connectTimeoutMs)]));
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), connectTimeoutMs + 1_000);
      });
      try {
        const outcome = await Promise.race([started.then(() => "started" as const), timedOut]);
        watchWebhook();
        if (outcome === "started")
          return standingBy
            ? { connected: true, standby: { holder: standingBy.holder } }
            : { connected: true };
        // getMe answered but polling (or setWebhook) has not come up yet; it goes on in the background.
        const reason = `no answer from ${host} within ${Math.round(connectTimeoutMs / 1000)} s`;
        status.down("connecting", reason);
        started.catch(() => reconnectInBackground());
        return { connected: false, reason };
      } catch (error) {
        if (isUnauthorized(error)) {
          throw new StartError(
            `Telegram refused TELEGRAM_BOT_TOKEN (${describe(error)}); check the token with @BotFather`,
            2,
            { cause: error },
          );
        }
        const reason = `cannot reach ${host}: ${describe(error)}`;
        status.down("unreachable", reason);
        watchWebhook();
        reconnectInBackground();
        return { connected: false, reason };
      } finally {
        clearTimeout(timer);
      }
    },
    async stop() {
      stopping.abort();
      clearInterval(watchdog);
      await Promise.allSettled([reconnecting, restarting]);
      if (lease) {
        // The lease goes only after our last poll has ended and its updates are confirmed: a standby
        // that took over earlier would be handed them again.
        running = false;
        if (lease.holds()) await poller?.stop();
        await lease.stop();
      }
    },
  };
}

/** The runner's polls wait; the poller's offset confirmation on stop does not, and proves nothing. */
function isLongPoll(payload: unknown): boolean {
  const timeout = (payload as { timeout?: unknown } | undefined)?.timeout;
  return typeof timeout === "number" && timeout > 0;
}

function isConflict(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 409;
}

function isUnauthorized(error: unknown): boolean {
  // A malformed token gets 404 Not Found from the real API; a wrong one 401 Unauthorized.
  return error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404);
}

function describe(error: unknown): string {
  if (error instanceof GrammyError) return `${error.error_code} ${error.description}`;
  if (error instanceof HttpError) return describeCause(error.error) ?? error.message;
  return describeCause(error) ?? errorMessage(error);
}

/** fetch failures hide the reason (ECONNREFUSED, a timeout) in their cause. */
function describeCause(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code) return code;
    // grammY's retry pause ends with "Aborted delay" when our deadline aborts it.
    if (
      current.name === "TimeoutError" ||
      current.name === "AbortError" ||
      current.message === "Aborted delay"
    )
      return "no answer in time";
    current = current.cause;
  }
  return error instanceof Error ? error.message : undefined;
}

function hostOf(apiRoot: string): string {
  try {
    return new URL(apiRoot).host;
  } catch {
    return apiRoot;
  }
}
