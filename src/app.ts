/**
 * The running bot: wires the database, model routes, background syncs, scheduler, delivery outbox, HTTP
 * endpoints and platform adapters together, and takes them down in reverse order.
 */
import { createSlackApp, SLACK_EVENTS_PATH, type SlackApp } from "../bots/slack/index.ts";
import { createTelegramBot, type TelegramBot } from "../bots/telegram/index.ts";
import type { Database, OpenDatabase } from "../db/client.ts";
import { expirePendingActions } from "../db/queries/pending-actions.ts";
import { rollUpOldRuns } from "../db/queries/retention.ts";
import { createPlatformState } from "../db/stores/index.ts";
import { buildCore } from "./build-core.ts";
import type { Config } from "./config/config.ts";
import type { Assistant, PlatformSender } from "./core/assistant.ts";
import type { Clock } from "./core/clock.ts";
import type { PlatformState } from "./core/ports.ts";
import type { DeliveryObserver } from "./delivery/hooks.ts";
import {
  createSlackTransports,
  createTelegramTransports,
  type PlatformTransports,
} from "./delivery/platform-transports.ts";
import { createDeliveryWorker, type DeliveryWorker } from "./delivery/worker.ts";
import type { Logger } from "./logger.ts";
import { createModelClient } from "./models/index.ts";
import { startScheduler } from "./scheduler/scheduler.ts";
import { createHealthCheck } from "./server/health.ts";
import { createHttpServer, type RouteHandler } from "./server/http-server.ts";
import { createMetrics } from "./server/metrics.ts";
import { startCalendarSync } from "./sources/calendar/calendar-sync-loop.ts";
import { startFeedSync } from "./sources/feeds/sync-feed.ts";
import { startPeriodicSync } from "./sources/periodic-sync.ts";
import { startWeatherSync } from "./sources/weather/get-weather.ts";

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

export interface RunningApp {
  /** What runs and why, for the operator: database, endpoints, platforms on or off. */
  summary: string[];
  /** The HTTP port actually bound. */
  port: number;
  stop(): Promise<void>;
}

const MINUTE = 60_000;
const MAINTENANCE_INTERVAL_MS = 10 * MINUTE;

export interface Platforms {
  telegram: TelegramBot | undefined;
  slack: SlackApp | undefined;
  senders: PlatformSender[];
  /** The platforms' flood gates, for `/metrics`. */
  floodGates: PlatformTransports["gate"][];
  /** Starts polling / sockets; call after the HTTP server listens (Telegram's setWebhook needs it up). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The configured platform adapters over one assistant; shared by `start` and `brief --deliver`. */
export async function createPlatforms(
  deps: Omit<AppDeps, "database">,
  assistant: Assistant,
): Promise<Platforms> {
  const { config, clock, logger } = deps;
  // The adapters keep their state through the core's port; this assignment checks the store fits it.
  const platformState: PlatformState = createPlatformState(deps.db);
  // One flood gate per token, shared by chat replies and the outbox.
  const telegramTransports = config.telegram ? createTelegramTransports() : undefined;
  const slackTransports = config.slack ? createSlackTransports() : undefined;
  const telegram = config.telegram
    ? createTelegramBot({
        config: config.telegram,
        assistant,
        platformState,
        clock,
        logger: logger.child({ platform: "telegram" }),
        ...(telegramTransports ? { transports: telegramTransports } : {}),
      })
    : undefined;
  const slack = config.slack
    ? await createSlackApp({
        config: config.slack,
        assistant,
        platformState,
        clock,
        logger: logger.child({ platform: "slack" }),
        ...(slackTransports ? { transports: slackTransports } : {}),
      })
    : undefined;
  return {
    telegram,
    slack,
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

/** The delivery outbox over the configured platforms. */
export function createOutbox(
  deps: Omit<AppDeps, "database">,
  senders: PlatformSender[],
  observer?: DeliveryObserver,
): DeliveryWorker {
  return createDeliveryWorker({
    db: deps.db,
    clock: deps.clock,
    senders,
    logger: deps.logger.child({ component: "delivery" }),
    ...(observer ? { observer } : {}),
  });
}

export async function startApp(deps: AppDeps): Promise<RunningApp> {
  const { config, database, db, clock, logger } = deps;
  const core = buildCore({
    db,
    config,
    clock,
    fetch: deps.fetch,
    logger: logger.child({ component: "core" }),
  });
  const platforms = await createPlatforms(deps, core.assistant);

  const metrics = createMetrics({
    db,
    model: core.model,
    floodGates: platforms.floodGates,
    scheduler: {
      get lastTickAt() {
        return scheduler.lastTickAt;
      },
    },
  });
  const outbox = createOutbox(deps, platforms.senders, metrics);
  const scheduler = startScheduler({
    db,
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

  const routes: Record<string, RouteHandler> = {};
  if (platforms.telegram?.webhookHandler) routes["/telegram/webhook"] = platforms.telegram.webhookHandler;
  if (platforms.slack && !config.slack?.appToken) routes[SLACK_EVENTS_PATH] = platforms.slack.requestHandler;
  const http = createHttpServer({
    routes,
    health: createHealthCheck({ clock, pingDatabase: () => database.ping(), scheduler }),
    metrics: () => metrics.render(),
    logger,
  });
  const port = await http.listen(config.port);
  await platforms.start();

  const syncLogger = logger.child({ component: "sync" });
  const loops = [
    startCalendarSync({
      db,
      fetch: deps.fetch,
      clock,
      network: config.sources,
      intervalMs: config.sync.calendarMinutes * MINUTE,
      logger: syncLogger,
    }),
    startFeedSync({
      db,
      fetch: deps.fetch,
      clock,
      network: config.sources,
      intervalMs: config.sync.feedMinutes * MINUTE,
      logger: syncLogger,
    }),
    startWeatherSync({
      db,
      fetch: deps.fetch,
      clock,
      forecastUrl: config.openMeteo.forecastUrl,
      intervalMs: config.sync.weatherMinutes * MINUTE,
      logger: syncLogger,
    }),
    startPeriodicSync({
      name: "maintenance",
      intervalMs: MAINTENANCE_INTERVAL_MS,
      logger: syncLogger,
      run: async () => {
        const now = clock.now();
        const expired = await expirePendingActions(db, now);
        const { archivedRuns } = await rollUpOldRuns(db, {
          now,
          retentionDays: config.briefing.retentionDays,
        });
        if (expired > 0 || archivedRuns.length > 0) {
          syncLogger.info(
            { expired, archived: archivedRuns.length },
            "maintenance: expired confirmations, archived runs",
          );
        }
      },
    }),
  ];

  const summary = [
    "briefbot is running",
    `  database   ${database.kind === "pglite" ? `embedded PGlite in ${database.location}` : `PostgreSQL ${database.location}`}`,
    `  http       http://0.0.0.0:${port} (/healthz, /metrics${Object.keys(routes)
      .map((path) => `, ${path}`)
      .join("")})`,
    ...(await describeModels(config, deps.fetch)),
    `  telegram   ${
      config.telegram
        ? `on (${config.telegram.webhookUrl ? `webhook ${config.telegram.webhookUrl}` : "long polling"})`
        : "off (set TELEGRAM_BOT_TOKEN to enable)"
    }`,
    `  slack      ${
      config.slack
        ? `on (${config.slack.appToken ? "Socket Mode" : `HTTP at ${SLACK_EVENTS_PATH}`})`
        : "off (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to enable)"
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
      await platforms.stop();
      await http.close();
    },
  };
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
