/**
 * The Slack adapter: a Bolt app, thin over the core.
 *
 * HTTP mode (default): Bolt's HTTPReceiver verifies every request's signature (bad or stale → 401, nothing
 * runs); `requestHandler` serves `/slack/events` on the shared server, or `start(port)` listens on its own.
 * Socket Mode when `appToken` is set: no public URL, `start()` connects out.
 *
 *   const slack = await createSlackApp({ config, db, assistant, clock, logger });
 *   router.post("/slack/events", slack.requestHandler);   // HTTP mode on the shared server
 *   await slack.start();                                    // Socket Mode connects; HTTP mode opens missing DMs
 *   worker({ senders: [slack.sender] });
 *   await slack.stop();                                     // drains handlers in flight
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { App, HTTPReceiver, webApi } from "@slack/bolt";
import type { Database } from "../../db/client.ts";
import { claimEvent, pruneProcessedEvents } from "../../db/queries/processed-events.ts";
import type { SlackConfig } from "../../src/config/config.ts";
import type { Assistant, PlatformSender } from "../../src/core/assistant.ts";
import type { Clock } from "../../src/core/clock.ts";
import { type Logger, silentLogger } from "../../src/logger.ts";
import { registerActions } from "./actions.ts";
import { boltLogger } from "./bolt-logger.ts";
import { registerCommands } from "./commands.ts";
import { createSlackSender } from "./delivery.ts";
import { openMissingDmChannels } from "./dm-channels.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";
import { registerMessages } from "./messages.ts";

export const SLACK_EVENTS_PATH = "/slack/events";

/**
 * The `fetch` functions of the app's Web API clients. The composition root passes ones that share the
 * token's flood gate (a `ratelimited` 429 pauses that method, or that channel, for every caller) and, for
 * the outbox, a transport that knows whether a failed request reached Slack
 * (`src/delivery/platform-transports.ts`). Without them the global fetch is used, with no gate.
 */
export interface SlackTransports {
  fetch: typeof fetch;
  deliveryFetch: typeof fetch;
}

export interface SlackAppOptions {
  config: SlackConfig;
  db: Database;
  assistant: Assistant;
  clock: Clock;
  logger?: Logger;
  /** Web API retries for listener calls (rate limits wait `Retry-After`). Default: 3 retries, ≤ 10 s apart. */
  retryConfig?: webApi.RetryOptions;
  transports?: SlackTransports;
}

export interface SlackApp {
  app: App;
  /** For the delivery outbox; rejects rate-limited calls with `retryAfterMs` instead of waiting. */
  sender: PlatformSender;
  /** Mount on the shared HTTP server for POST `/slack/events` (the request URL path must be that). */
  requestHandler: (request: IncomingMessage, response: ServerResponse) => void;
  /** Socket Mode: connects. HTTP mode: listens on `port` when given (standalone); otherwise only prepares. */
  start(port?: number): Promise<void>;
  /** Waits for handlers in flight, then closes the connection or own listener. */
  stop(): Promise<void>;
  /** Resolves when no request is being handled (tests, graceful shutdown). */
  idle(): Promise<void>;
}

/** Slack retries an event for minutes, not days; older claims only take up space. */
const PROCESSED_EVENT_RETENTION_MS = 24 * 3_600_000;

/** The outbox client's deadline per call; the delivery transport's own is shorter still. */
const DELIVERY_TIMEOUT_MS = 60_000;

const DEFAULT_RETRY: webApi.RetryOptions = {
  retries: 3,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 10_000,
  randomize: true,
};

/** Builds and initialises (auth.test) the Slack app. Throws when the token is refused. */
export async function createSlackApp(options: SlackAppOptions): Promise<SlackApp> {
  const { config, db, assistant, clock } = options;
  const logger = options.logger ?? silentLogger;
  const socketMode = config.appToken !== undefined;
  const slackLogger = boltLogger(logger);
  const transports = options.transports;
  const clientOptions: webApi.WebClientOptions = {
    slackApiUrl: config.apiUrl,
    retryConfig: options.retryConfig ?? DEFAULT_RETRY,
    rejectRateLimitedCalls: false,
    ...(transports ? { fetch: transports.fetch as webApi.FetchFunction } : {}),
  };
  const receiver = socketMode
    ? undefined
    : new HTTPReceiver({
        signingSecret: config.signingSecret,
        endpoints: [SLACK_EVENTS_PATH],
        logger: slackLogger,
        // Events are acked by Bolt before listeners run; commands and actions ack() first themselves.
        processBeforeResponse: false,
      });
  const app = new App({
    token: config.botToken,
    logger: slackLogger,
    clientOptions,
    deferInitialization: true,
    convoStore: false,
    ignoreSelf: true,
    ...(socketMode ? { socketMode: true, appToken: config.appToken } : { receiver }),
  });

  const inFlight = new Set<Promise<unknown>>();
  // First middleware: everything after it (dedupe, listeners) counts as work in flight.
  app.use(async ({ next }) => {
    const work = next();
    inFlight.add(work);
    try {
      await work;
    } finally {
      inFlight.delete(work);
    }
  });
  app.use(async ({ body, next }) => {
    const eventId = "event_id" in body && typeof body.event_id === "string" ? body.event_id : undefined;
    if (eventId && !(await claimEvent(db, "slack", eventId, clock.now()))) {
      logger.debug({ eventId }, "slack: event already handled (retry), skipped");
      return;
    }
    await next();
  });

  const deps: SlackHandlerDeps = { db, assistant, clock, logger };
  registerCommands(app, deps);
  registerActions(app, deps);
  registerMessages(app, deps);
  app.error(async (error) => {
    logger.error({ err: error }, "slack: handler failed");
  });

  await app.init();

  const senderClient = new webApi.WebClient(config.botToken, {
    slackApiUrl: config.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: DELIVERY_TIMEOUT_MS,
    logger: slackLogger,
    ...(transports ? { fetch: transports.deliveryFetch as webApi.FetchFunction } : {}),
  });
  const sender = createSlackSender({ client: senderClient, db, clock, logger });

  const requestHandler = (request: IncomingMessage, response: ServerResponse): void => {
    if (!receiver) {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("Slack runs in Socket Mode; /slack/events is not used");
      return;
    }
    try {
      receiver.requestListener(request, response);
    } catch (error) {
      logger.warn({ err: error, url: request.url }, "slack: request not handled");
      if (!response.headersSent) response.writeHead(404);
      response.end();
    }
  };

  let started = false;
  const idle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };

  return {
    app,
    sender,
    requestHandler,
    async start(port) {
      if (socketMode || port !== undefined) {
        await (port !== undefined ? app.start(port) : app.start());
        started = true;
      }
      await pruneProcessedEvents(db, "slack", new Date(clock.now().getTime() - PROCESSED_EVENT_RETENTION_MS));
      await openMissingDmChannels(db, app.client, logger);
    },
    async stop() {
      await idle();
      if (started) {
        await app.stop();
        started = false;
      }
    },
    idle,
  };
}
