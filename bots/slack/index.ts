/**
 * The Slack adapter: a Bolt app, thin over the core.
 *
 * HTTP mode (default): Bolt's HTTPReceiver verifies every request's signature (bad or stale → 401, nothing
 * runs); `requestHandler` serves `/slack/events` on the shared server, or `start(port)` listens on its own.
 * Socket Mode when `appToken` is set: no public URL, `start()` connects out. With `durable`, every event,
 * button press and command is stored before its ack and kept until handled (./intake.ts).
 *
 *   const slack = await createSlackApp({ config, assistant, platformState, clock, logger });
 *   router.post("/slack/events", slack.requestHandler);   // HTTP mode on the shared server
 *   await slack.start();                                    // Socket Mode connects; HTTP mode opens missing DMs
 *   worker({ senders: [slack.sender] });
 *   await slack.stop();                                     // drains handlers in flight
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { App, HTTPReceiver, SocketModeReceiver, webApi } from "@slack/bolt";
import {
  type Assistant,
  type Clock,
  type Linking,
  type Logger,
  type PlatformSender,
  type PlatformState,
  type SendPacer,
  type Settings,
  silentLogger,
  type UserDataService,
} from "../../src/core/index.ts";
import type { DurableUpdates } from "../durable-intake.ts";
import { registerActions } from "./actions.ts";
import { boltLogger } from "./bolt-logger.ts";
import { registerCommands } from "./commands.ts";
import { createSlackSender } from "./delivery.ts";
import { openMissingDmChannels } from "./dm-channels.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";
import { keepSlackDeliveries } from "./intake.ts";
import { registerLinkCommand } from "./linking.ts";
import { registerMessages } from "./messages.ts";
import { registerHelp, registerSettings } from "./settings.ts";
import { keepReconnecting } from "./socket-reconnect.ts";
import { registerUserData } from "./user-data.ts";

export const SLACK_EVENTS_PATH = "/slack/events";

/** What the adapter needs to reach Slack. */
export interface SlackAdapterConfig {
  botToken: string;
  signingSecret: string;
  /** Socket Mode when set (no public URL); HTTP mode otherwise. */
  appToken?: string | undefined;
  /** The Web API base, `https://slack.com/api/` or a stand-in's. */
  apiUrl: string;
  /** Post every scheduled briefing here instead of each user's DM. */
  channel?: string | undefined;
  /** Channels meant for everyone in them: answers that read a person's data are posted there for all. */
  teamChannels?: readonly string[] | undefined;
}

/**
 * How the app's traffic reaches Slack. The composition root passes `fetch` functions that share the token's
 * flood gate (a `ratelimited` 429 pauses that method, or that channel, for every caller) and, for the
 * outbox, a transport that knows whether a failed request reached Slack, plus the outbox's pacer
 * (`src/delivery/`). Without them the global fetch is used, with no gate and no pacing.
 */
export interface SlackTransports {
  fetch: typeof fetch;
  deliveryFetch: typeof fetch;
  pacer?: SendPacer;
}

export interface SlackAppOptions {
  config: SlackAdapterConfig;
  assistant: Assistant;
  /** Linked accounts, briefing threads: the core's port. */
  platformState: PlatformState;
  clock: Clock;
  logger?: Logger;
  /** Web API retries for listener calls (rate limits wait `Retry-After`). Default: 3 retries, ≤ 10 s apart. */
  retryConfig?: webApi.RetryOptions;
  transports?: SlackTransports;
  /** One-time link codes (`/link CODE`); without it only `briefbot user link` links. */
  linking?: Linking;
  /** `/export` and `/forget` (the app needs the `files:write` scope); without it they are not handled. */
  userData?: UserDataService;
  /** /settings; without it Slack's command gets no answer. */
  settings?: Settings;
  /**
   * Keep each delivery in the database from before its ack until handled, under `slack:<team id>`: nothing
   * lost to a killed process, Slack's retries not handled twice. Without it, neither holds.
   */
  durable?: Omit<DurableUpdates, "source">;
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
  /**
   * Socket Mode: hears the socket open (true) and drop (false; Bolt reconnects by itself). Absent in HTTP
   * mode, where Slack comes to us.
   */
  onSocketChange?: (listener: (open: boolean) => void) => void;
}

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
  const { config, assistant, platformState, clock } = options;
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
  // Built here rather than by Bolt so health can hear its client's socket go up and down. Its own
  // clientOptions carry SLACK_API_URL to apps.connections.open (test/bots/slack/socket-mode.test.ts).
  const socketReceiver =
    config.appToken === undefined
      ? undefined
      : new SocketModeReceiver({
          appToken: config.appToken,
          logger: slackLogger,
          installerOptions: { clientOptions },
        });
  if (socketReceiver) keepReconnecting(socketReceiver.client, logger);
  const app = new App({
    token: config.botToken,
    logger: slackLogger,
    clientOptions,
    deferInitialization: true,
    convoStore: false,
    ignoreSelf: true,
    receiver: socketReceiver ?? receiver,
  });

  const inFlight = new Set<Promise<unknown>>();
  // First middleware: everything after it counts as work in flight.
  app.use(async ({ next }) => {
    const work = next();
    inFlight.add(work);
    try {
      await work;
    } finally {
      inFlight.delete(work);
    }
  });
  const deps: SlackHandlerDeps = {
    assistant,
    platformState,
    clock,
    logger,
    linking: options.linking,
    teamChannels: new Set(config.teamChannels ?? []),
  };
  registerCommands(app, deps);
  if (options.linking) registerLinkCommand(app, { ...deps, linking: options.linking });
  registerActions(app, deps);
  registerMessages(app, deps);
  if (options.userData) registerUserData(app, { ...deps, userData: options.userData });
  registerHelp(app, deps);
  if (options.settings) registerSettings(app, deps, options.settings);
  app.error(async (error) => {
    logger.error({ err: error }, "slack: handler failed");
  });

  await app.init();
  const intake = options.durable
    ? keepSlackDeliveries(app, { ...options.durable, source: `slack:${await teamOf(app)}` }, logger)
    : undefined;

  const senderClient = new webApi.WebClient(config.botToken, {
    slackApiUrl: config.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: DELIVERY_TIMEOUT_MS,
    logger: slackLogger,
    ...(transports ? { fetch: transports.deliveryFetch as webApi.FetchFunction } : {}),
  });
  const sender = createSlackSender({
    client: senderClient,
    platformState,
    clock,
    logger,
    channel: config.channel,
    pacer: transports?.pacer,
  });

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
    await intake?.settled();
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
      await intake?.startRecovering();
      await openMissingDmChannels(platformState, app.client, logger);
    },
    async stop() {
      await intake?.stopRecovering();
      await idle();
      if (started) {
        await app.stop();
        started = false;
      }
    },
    idle,
    ...(socketReceiver
      ? {
          onSocketChange(listener: (open: boolean) => void) {
            socketReceiver.client.on("connected", () => listener(true));
            socketReceiver.client.on("reconnecting", () => listener(false));
            socketReceiver.client.on("disconnected", () => listener(false));
          },
        }
      : {}),
  };
}

/** The workspace the bot token belongs to: Slack's ids are unique within it. */
async function teamOf(app: App): Promise<string> {
  const { team_id: team } = await app.client.auth.test();
  if (!team) throw new Error("slack: auth.test named no team; the bot token is not a workspace's");
  return team;
}
