/**
 * The running bot: wires the database, model routes, background syncs, scheduler, delivery outbox, HTTP
 * endpoints and platform adapters together, and takes them down in reverse order.
 */
import { createHash } from "node:crypto";
import type { SlackApp } from "../bots/slack/index.ts";
import type { TelegramBot } from "../bots/telegram/index.ts";
import type { Database, OpenDatabase } from "../db/client.ts";
import { expirePendingActions } from "../db/queries/pending-actions.ts";
import {
  createInboundUpdates,
  createMetricsReadings,
  createPlatformState,
  createRateBuckets,
} from "../db/stores/index.ts";
import { buildCore } from "./build-core.ts";
import type { Config } from "./config/config.ts";
import type { Assistant, PlatformSender } from "./core/assistant.ts";
import type { Clock } from "./core/clock.ts";
import type { Linking } from "./core/linking/linking.ts";
import type { InboundUpdates, PlatformState, Ports } from "./core/ports.ts";
import type { Settings } from "./core/settings/index.ts";
import type { UserDataService } from "./core/user-data/index.ts";
import type { DeliveryObserver } from "./delivery/hooks.ts";
import { createOutbox as createOutboxOver, type Outbox } from "./delivery/outbox.ts";
import {
  createSlackTransports,
  createTelegramTransports,
  type PlatformTransports,
} from "./delivery/platform-transports.ts";
import {
  createMemoryRateLimitStore,
  createSharedRateLimitStore,
  scopedStore,
} from "./delivery/rate-limits.ts";
import type { Logger } from "./logger.ts";
import { createModelClient } from "./models/index.ts";
import { watchDatabase } from "./runtime/database-watch.ts";
import { watchModelEndpoints } from "./runtime/model-endpoints.ts";
import { createPollingLease, pollingLeaseName } from "./runtime/polling-lease.ts";
import { holdProcessLease, newOwnerId } from "./runtime/process-lease.ts";
import { StartError } from "./runtime/start-error.ts";
import type { PlatformLink } from "./runtime/telegram-link.ts";
import { createScheduler } from "./scheduler/scheduler.ts";
import { createHealthCheck } from "./server/health.ts";
import { createHttpServer, type RouteHandler } from "./server/http-server.ts";
import { createMetrics } from "./server/metrics.ts";
import { startAccountSync } from "./sources/accounts/account-sync.ts";
import { type PeriodicSync, type SyncLogger, startPeriodicSync } from "./sources/periodic-sync.ts";

/** What the running bot is built from; the `start` command (and `brief --deliver`) supply it. */
export interface AppDeps {
  db: Database;
  /** The open database itself: /healthz pings it, the start-up summary names it. */
  database: OpenDatabase;
  config: Config;
  clock: Clock;
  fetch: typeof fetch;
  logger: Logger;
}

export interface StartOptions {
  /** A line per slow step of the start (checking Telegram, probing models), before the summary. */
  progress?: (line: string) => void;
  /** How long start-up waits for a platform before going on without it (Telegram) or giving up (Slack). */
  platformTimeoutMs?: number;
}

export interface RunningApp {
  /** What runs and why, for the operator: database, endpoints, platforms on or off. */
  summary: string[];
  /** The HTTP port actually bound. */
  port: number;
  stop(): Promise<void>;
}

const MINUTE = 60_000;
const MAINTENANCE_INTERVAL_MS = 10 * MINUTE;
/** A rate-limit scope unused this long is a full bucket: its row can go. */
const RATE_BUCKET_IDLE_MS = 60 * MINUTE;
/** An expired /forget question is kept this long, so a late press is told "expired", not "unknown". */
const FORGET_QUESTION_KEEP_MS = 24 * 60 * MINUTE;
/** Bolt's auth.test retries (3, up to 10 s apart) fit inside this. */
const SLACK_START_TIMEOUT_MS = 45_000;

export interface Platforms {
  telegram: TelegramBot | undefined;
  slack: SlackApp | undefined;
  /** Where Slack's HTTP mode is served, when Slack is configured. */
  slackEventsPath: string | undefined;
  senders: PlatformSender[];
  /** The platforms' flood gates, for `/metrics`. */
  floodGates: PlatformTransports["gate"][];
  /** Starts polling / sockets; call after the HTTP server listens (Telegram's setWebhook needs it up). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What the chat adapters offer beyond the assistant. */
export interface ChatServices {
  /** `/link CODE` and `/start CODE`; without it only `briefbot user link` links. */
  linking?: Linking;
  /** `/export` and `/forget`. */
  userData?: UserDataService;
  /** `/settings`. */
  settings?: Settings;
}

/** The configured platform adapters over one assistant; shared by `start` and `brief --deliver`. */
export async function createPlatforms(
  deps: Omit<AppDeps, "database"> & { database: Pick<AppDeps["database"], "kind"> },
  assistant: Assistant,
  /** Services the chat adapters offer beyond the assistant; a platform without one does not offer its commands. */
  services: ChatServices = {},
  /** The process that receives updates, when this one may (`start`): they are kept until handled. */
  poller?: { owner: string },
): Promise<Platforms> {
  const { config, clock, logger } = deps;
  // On PostgreSQL every replica sending on a token takes from the same budget; the embedded database has
  // one process, whose memory is enough.
  const limits =
    deps.database.kind === "postgres"
      ? createSharedRateLimitStore(createRateBuckets(deps.db, "postgres"))
      : createMemoryRateLimitStore();
  const storeFor = (platform: string, token: string) =>
    scopedStore(limits, `${platform}:${fingerprint(token)}`);
  // The adapters keep their state through the core's port; this assignment checks the store fits it.
  const platformState: PlatformState = createPlatformState(deps.db);
  const inboundUpdates: InboundUpdates = createInboundUpdates(deps.db);
  // One flood gate per token, shared by chat replies and the outbox.
  const telegramTransports = config.telegram
    ? createTelegramTransports({ store: storeFor("telegram", config.telegram.token) })
    : undefined;
  const slackTransports = config.slack
    ? createSlackTransports({ store: storeFor("slack", config.slack.botToken) })
    : undefined;
  // Each adapter (grammY, Bolt and what they pull in) loads only when its platform is configured.
  const telegram = config.telegram
    ? (await import("../bots/telegram/index.ts")).createTelegramBot({
        config: config.telegram,
        assistant,
        platformState,
        clock,
        logger: logger.child({ platform: "telegram" }),
        ...services,
        ...(telegramTransports ? { transports: telegramTransports } : {}),
        ...(poller
          ? {
              durable: {
                updates: inboundUpdates,
                source: `telegram:${fingerprint(config.telegram.token)}`,
                owner: poller.owner,
                everyOtherOwner: deps.database.kind === "pglite",
                clock,
              },
            }
          : {}),
      })
    : undefined;
  const slackModule = config.slack ? await import("../bots/slack/index.ts") : undefined;
  const slackLink = config.slack ? await import("./runtime/slack-link.ts") : undefined;
  const slack =
    config.slack && slackModule && slackLink
      ? await slackLink.createSlackWithin(
          slackModule.createSlackApp({
            config: config.slack,
            assistant,
            platformState,
            clock,
            logger: logger.child({ platform: "slack" }),
            ...services,
            ...(slackTransports ? { transports: slackTransports } : {}),
            ...(poller
              ? {
                  durable: {
                    updates: inboundUpdates,
                    owner: poller.owner,
                    everyOtherOwner: deps.database.kind === "pglite",
                    clock,
                  },
                }
              : {}),
          }),
          config.slack.apiUrl,
          SLACK_START_TIMEOUT_MS,
        )
      : undefined;
  return {
    telegram,
    slack,
    slackEventsPath: slackModule?.SLACK_EVENTS_PATH,
    senders: [telegram?.sender, slack?.sender].filter(
      (sender): sender is PlatformSender => sender !== undefined,
    ),
    floodGates: [telegramTransports?.gate, slackTransports?.gate].filter(
      (gate): gate is PlatformTransports["gate"] => gate !== undefined,
    ),
    async start() {
      await telegram?.start();
      await slack?.start();
    },
    async stop() {
      await Promise.allSettled([telegram?.stop(), slack?.stop()]);
      telegramTransports?.close();
      slackTransports?.close();
    },
  };
}

/** The delivery outbox over the configured platforms, sending as `owner`. */
export function createOutbox(
  deps: Pick<AppDeps, "clock" | "logger">,
  ports: Ports,
  owner: string,
  senders: PlatformSender[],
  observer?: DeliveryObserver,
): Outbox {
  return createOutboxOver({
    ports,
    clock: deps.clock,
    owner,
    senders,
    logger: deps.logger.child({ component: "delivery" }),
    ...(observer ? { observer } : {}),
  });
}

/**
 * Starts the bot, failing fast: a busy port or a refused platform token stops the start with a
 * `StartError` (one line for the operator) after undoing what had started. An unreachable Telegram API
 * does not: the bot starts degraded, says so, and keeps trying (see `runtime/telegram-link.ts`).
 */
export async function startApp(deps: AppDeps, options: StartOptions = {}): Promise<RunningApp> {
  const { config, database, db, clock, logger } = deps;
  const progress = options.progress ?? (() => {});
  const undo: Array<() => Promise<unknown>> = [];
  const rollback = async () => {
    for (const step of undo.reverse()) await step().catch(() => {});
  };
  try {
    const owner = newOwnerId("bot");
    const core = buildCore({
      db,
      config,
      clock,
      fetch: deps.fetch,
      logger: logger.child({ component: "core" }),
      owner,
    });
    const processLease = await holdProcessLease(core.ports.leases, owner, {
      clock,
      logger: logger.child({ component: "lease" }),
    });
    undo.push(() => processLease.stop());
    // One process owns the embedded database: whatever an earlier process held died with it, so the runs
    // and sends it left are reclaimed at once instead of when its lease would have lapsed.
    if (database.kind === "pglite") await core.ports.leases.voidOthers(owner);
    if (config.slack) progress(`checking Slack at ${config.slack.apiUrl}…`);
    const platforms = await createPlatforms(
      deps,
      core.assistant,
      { linking: core.linking, userData: core.userData, settings: core.settings },
      { owner },
    );
    undo.push(() => platforms.stop());
    const links: PlatformLink[] = [];
    // One connection per token in these modes: the lease's holder connects, other processes stand by.
    const pollingLease = (platform: "telegram" | "slack", token: string) =>
      createPollingLease({
        leases: core.ports.leases,
        name: pollingLeaseName(platform, fingerprint(token)),
        owner,
        clock,
        logger: logger.child({ component: "lease" }),
      });
    if (platforms.telegram) {
      // grammY's error classes come with it: loaded only when Telegram is configured.
      const { linkTelegram } = await import("./runtime/telegram-link.ts");
      links.push(
        linkTelegram(platforms.telegram, {
          clock,
          apiRoot: config.telegram?.apiRoot ?? "",
          logger: logger.child({ platform: "telegram" }),
          ...(options.platformTimeoutMs ? { connectTimeoutMs: options.platformTimeoutMs } : {}),
          ...(config.telegram && !config.telegram.webhookUrl
            ? { pollingLease: pollingLease("telegram", config.telegram.token) }
            : {}),
        }),
      );
    }
    if (platforms.slack) {
      const { linkSlack } = await import("./runtime/slack-link.ts");
      links.push(
        linkSlack(platforms.slack, {
          clock,
          logger: logger.child({ platform: "slack" }),
          ...(options.platformTimeoutMs ? { connectTimeoutMs: options.platformTimeoutMs } : {}),
          ...(config.slack?.appToken ? { pollingLease: pollingLease("slack", config.slack.appToken) } : {}),
        }),
      );
    }
    undo.push(() => Promise.all(links.map((link) => link.stop())));

    const metrics = createMetrics({
      readings: createMetricsReadings(db),
      model: core.model,
      floodGates: platforms.floodGates,
      scheduler: {
        get lastTickAt() {
          return scheduler.lastTickAt;
        },
      },
    });
    const outbox = createOutbox(deps, core.ports, owner, platforms.senders, metrics);
    const scheduler = createScheduler({
      ports: core.ports,
      owner,
      clock,
      deliver: outbox,
      model: core.model,
      // Ahead of each slot, so the slot's own refresh step finds the user's sources fresh.
      refreshSources: async (user, deadline) => core.ports.sources.refresh?.(user, deadline),
      staleAfterMinutes: config.briefing.staleAfterMinutes,
      logger: logger.child({ component: "scheduler" }),
      observer: metrics,
      runner: core.generateBriefing,
    });

    const statusLogger = logger.child({ component: "health" });
    const endpoints = watchModelEndpoints(config.models.endpoints, {
      fetch: deps.fetch,
      clock,
      logger: statusLogger,
    });
    const routes: Record<string, RouteHandler> = {};
    if (platforms.telegram?.webhookHandler) routes["/telegram/webhook"] = platforms.telegram.webhookHandler;
    if (platforms.slack && platforms.slackEventsPath && !config.slack?.appToken)
      routes[platforms.slackEventsPath] = platforms.slack.requestHandler;
    const http = createHttpServer({
      routes,
      health: createHealthCheck({
        clock,
        pingDatabase: () => database.ping(),
        scheduler,
        platforms: () => Object.fromEntries(links.map((link) => [link.name, link.health()])),
        models: () => endpoints.health(),
      }),
      metrics: () => metrics.render(),
      logger,
    });
    const port = await listenOrExplain(http, config.port);
    undo.push(() => http.close());

    // Platforms connect (bounded) while the model endpoints are probed for the summary.
    for (const link of links)
      progress(
        `connecting to ${link.name === "telegram" ? `Telegram at ${config.telegram?.apiRoot}` : "Slack"}…`,
      );
    const [connections, modelLines] = await Promise.all([
      Promise.all(links.map(async (link) => ({ link, outcome: await link.connect() }))),
      describeModels(config, deps.fetch),
    ]);

    scheduler.start();
    undo.push(() => scheduler.stop());
    const databaseWatch = watchDatabase(() => database.ping(), { clock, logger: statusLogger });
    undo.push(() => databaseWatch.stop());

    const syncLogger = logger.child({ component: "sync" });
    // Replicas on one database fetch each source once: the one that finds it being fetched skips it. The
    // refresh before a briefing holds the same leases, so this process never fetches a source twice at once.
    const sourceLeases = core.sourceLeases;
    // What every source loop shares: where it stores, how it fetches, whose leases it takes.
    const sync = { db, fetch: deps.fetch, clock, logger: syncLogger, leases: sourceLeases };
    const loops = [
      loadedLater(syncLogger, "calendar", async () =>
        (await import("./sources/calendar/calendar-sync-loop.ts")).startCalendarSync({
          ...sync,
          network: config.sources,
          intervalMs: config.sync.calendarMinutes * MINUTE,
        }),
      ),
      loadedLater(syncLogger, "feed", async () =>
        (await import("./sources/feeds/sync-feed.ts")).startFeedSync({
          ...sync,
          network: config.sources,
          intervalMs: config.sync.feedMinutes * MINUTE,
        }),
      ),
      loadedLater(syncLogger, "weather", async () =>
        (await import("./sources/weather/get-weather.ts")).startWeatherSync({
          ...sync,
          forecastUrl: config.openMeteo.forecastUrl,
          intervalMs: config.sync.weatherMinutes * MINUTE,
        }),
      ),
      startAccountSync({
        service: core.accounts,
        intervalMs: config.sync.calendarMinutes * MINUTE,
        logger: syncLogger,
        leases: sourceLeases,
      }),
      startPeriodicSync({
        name: "maintenance",
        intervalMs: MAINTENANCE_INTERVAL_MS,
        logger: syncLogger,
        run: async () => {
          const now = clock.now();
          const expired = await expirePendingActions(db, now);
          const archivedRuns = await core.ports.lifecycle.archiveOld({
            now,
            retentionDays: config.briefing.retentionDays,
          });
          const forgetQuestions = await core.ports.forgetQuestions.expire(
            new Date(now.getTime() - FORGET_QUESTION_KEEP_MS),
          );
          const rateBuckets = await createRateBuckets(db, database.kind).pruneIdle(RATE_BUCKET_IDLE_MS);
          if (expired > 0 || archivedRuns.length > 0 || forgetQuestions > 0 || rateBuckets > 0) {
            syncLogger.info(
              { expired, archived: archivedRuns.length, forgetQuestions, rateBuckets },
              "maintenance: expired confirmations and forget questions, archived runs, idle rate buckets",
            );
          }
        },
      }),
    ];

    const degraded = (name: string) => {
      const found = connections.find((connection) => connection.link.name === name)?.outcome;
      if (found?.connected && found.standby)
        return ` — STANDBY: another process (${found.standby.holder ?? "unknown"}) holds this token's connection; this one takes over when that one's lease lapses`;
      return found && !found.connected
        ? ` — UNREACHABLE at start (${found.reason}); retrying in the background, /healthz answers 503 until it connects`
        : "";
    };
    const summary = [
      "briefbot is running",
      `  database   ${describeDatabase(database)}`,
      `  http       http://0.0.0.0:${port} (/healthz, /metrics${Object.keys(routes)
        .map((path) => `, ${path}`)
        .join("")})`,
      ...modelLines,
      `  telegram   ${
        config.telegram
          ? `on (${config.telegram.webhookUrl ? `webhook ${config.telegram.webhookUrl}` : "long polling"})${degraded("telegram")}`
          : "off (set TELEGRAM_BOT_TOKEN to enable)"
      }`,
      `  slack      ${
        config.slack
          ? `on (${config.slack.appToken ? "Socket Mode" : `HTTP at ${platforms.slackEventsPath}`})${config.slack.teamChannels.length > 0 ? `; team channels (answers read by all): ${config.slack.teamChannels.join(", ")}` : ""}${degraded("slack")}`
          : "off (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to enable)"
      }`,
      `  access     ${
        config.access.selfSignup
          ? "self-signup ON: /start (Telegram) or /link (Slack) from anyone creates a user"
          : "linked accounts only (briefbot user invite <name> prints a one-time code)"
      }`,
      `  syncs      calendars every ${config.sync.calendarMinutes} min, feeds every ${config.sync.feedMinutes} min, weather every ${config.sync.weatherMinutes} min`,
    ];

    return {
      summary,
      port,
      async stop() {
        // Stop taking work first, then let what is in flight finish, then close the doors.
        await scheduler.stop();
        await outbox.drain();
        await Promise.allSettled(loops.map((loop) => loop.stop()));
        await databaseWatch.stop();
        await Promise.allSettled(links.map((link) => link.stop()));
        await platforms.stop();
        await http.close();
        await processLease.stop();
      },
    };
  } catch (error) {
    await rollback();
    throw error;
  }
}

/**
 * A background sync whose module (the calendar and feed parsers, the weather client) is imported when the
 * loop starts rather than with the app: `/healthz` answers without waiting for them, and the loop's first
 * run starts as soon as they are in.
 */
function loadedLater(logger: SyncLogger, name: string, start: () => Promise<PeriodicSync>): PeriodicSync {
  const loop = start().catch((error: unknown) => {
    logger.warn(
      { sync: name, error: error instanceof Error ? error.message : String(error) },
      `${name} sync failed to load`,
    );
    return undefined;
  });
  return {
    runNow: async () => (await loop)?.runNow(),
    stop: async () => (await loop)?.stop(),
  };
}

/** A token's short, stable name: scopes and leases say which bot they are for without holding the secret. */
export function fingerprint(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 12);
}

/** The port is the operator's to free or change; say which. */
async function listenOrExplain(http: ReturnType<typeof createHttpServer>, port: number): Promise<number> {
  try {
    return await http.listen(port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new StartError(
        `port ${port} is already in use; stop what listens there or set PORT to a free port`,
      );
    if (code === "EACCES")
      throw new StartError(`port ${port} needs privileges this user does not have; set PORT above 1023`);
    throw error;
  }
}

function describeDatabase(database: OpenDatabase): string {
  if (database.kind === "postgres") return `PostgreSQL ${database.location}`;
  const served = database.socketPath ? `; CLI commands work through ${database.socketPath}` : "";
  return `embedded PGlite in ${database.location}${served}`;
}

/** One line per route, with what a probe of its endpoint found, so a dead Ollama is visible at start. */
async function describeModels(config: AppDeps["config"], fetch: typeof globalThis.fetch): Promise<string[]> {
  const inspection = await createModelClient({
    routes: config.models,
    fetch,
    probeTimeoutMs: 3000,
  }).inspect();
  const endpoints = new Map(inspection.endpoints.map((endpoint) => [endpoint.name, endpoint]));
  return inspection.routes.map((route, index) => {
    const endpoint = endpoints.get(route.endpoint);
    const reach = !endpoint
      ? "?"
      : endpoint.reachable
        ? route.agentic.ok
          ? "ready"
          : `legacy mode: ${route.agentic.reason ?? "cannot run agentic briefings"}`
        : "UNREACHABLE: briefings fall back to a plain digest of the receipts until it answers";
    const label = index === 0 ? "  models     " : "             ";
    const spread =
      route.endpoints.length > 1 ? `, also ${route.endpoints.slice(1).join(", ")} when free` : "";
    return `${label}${route.role.padEnd(12)}${route.model} on ${route.endpoint} (${endpoint?.url ?? "?"})${spread}${
      route.fallback ? `, fallback ${route.fallback}` : ""
    } — ${reach}`;
  });
}
