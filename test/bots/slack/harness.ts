/**
 * The real Bolt app (its `requestHandler` mounted on a plain HTTP server, as the shared server does) against
 * the local Slack server, with the real core over a test database and the Ollama test server as the model.
 */

import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll } from "vitest";
import {
  createSlackApp,
  SLACK_EVENTS_PATH,
  type SlackApp,
  type SlackTransports,
} from "../../../bots/slack/index.ts";
import type { Database } from "../../../db/client.ts";
import { linkIdentity } from "../../../db/queries/users.ts";
import type { Identity, User } from "../../../db/schema/index.ts";
import { createInboundUpdates, createLeases, createPlatformState } from "../../../db/stores/index.ts";
import type { AccountService } from "../../../src/core/accounts/service.ts";
import type { Assistant, BriefingMessage, DeliveryReceipt } from "../../../src/core/assistant.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import type { Geocoder } from "../../../src/core/geocoder.ts";
import type { Linking } from "../../../src/core/linking/linking.ts";
import type { Sources } from "../../../src/core/ports.ts";
import { LONDON, modelClientFor, START, startModelServer, testCore } from "../../core/fixture.ts";
import { createTestUser } from "../../helpers/database.ts";
import { listen } from "../../servers/http.ts";
import type { OllamaTestServer } from "../../servers/ollama-server.ts";
import { type SlackServer, startSlackServer } from "../../servers/slack-server.ts";

export const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

let slackIds = Math.floor(Math.random() * 1_000_000);

/** A fresh Slack user id, unique across suites sharing a database. */
export function nextSlackUserId(): string {
  slackIds += 1;
  return `U${String(slackIds).padStart(8, "0")}`;
}

export async function linkedSlackUser(
  db: Database,
): Promise<{ user: User; slackId: string; identity: Identity }> {
  const user = await createTestUser(db, LONDON);
  const slackId = nextSlackUserId();
  const identity = await linkIdentity(db, user.id, { platform: "slack", externalUserId: slackId });
  return { user, slackId, identity };
}

export interface RunningSlackApp {
  slackApp: SlackApp;
  assistant: Assistant;
  clock: ReturnType<typeof fixedClock>;
  url: string;
  /** The process id its lease (`process:<owner>`) and its inbound updates name. */
  owner: string;
  close(): Promise<void>;
}

/** One app instance (a replica): its own HTTP server, the shared database, Slack and model servers. */
export async function startApp(
  db: Database,
  slack: SlackServer,
  ollama: OllamaTestServer,
  options: {
    clock?: ReturnType<typeof fixedClock>;
    appToken?: string;
    /** `Sources.refresh` for briefings (default none: they read what is cached). */
    refresh?: Sources["refresh"];
    transports?: SlackTransports;
    /** SLACK_CHANNEL: scheduled briefings go here instead of each user's DM. */
    channel?: string;
    /** `slack.team_channels`: channels whose answers everyone in them may read. */
    teamChannels?: string[];
    /** One-time link codes (`/link CODE`). */
    linking?: Linking;
    /** Place lookups for /settings (default none). */
    geocoder?: Geocoder;
    /** CalDAV / Todoist accounts the core writes account tasks through (default none). */
    accounts?: AccountService;
  } = {},
): Promise<RunningSlackApp> {
  const clock = options.clock ?? fixedClock(START);
  const { assistant, userData, settings } = testCore(db, modelClientFor(ollama.url), {
    clock,
    refresh: options.refresh,
    geocoder: options.geocoder,
    accounts: options.accounts,
  });
  // Each instance a replica of its own, alive while the suite runs: another's recovery never takes its events.
  const owner = `slack-replica-${randomBytes(4).toString("hex")}`;
  await createLeases(db).acquire(`process:${owner}`, owner, 24 * 3_600_000, clock.now());
  const slackApp = await createSlackApp({
    config: {
      botToken: slack.botToken,
      signingSecret: SIGNING_SECRET,
      appToken: options.appToken,
      apiUrl: slack.apiUrl,
      channel: options.channel,
      teamChannels: options.teamChannels,
    },
    assistant,
    userData,
    settings,
    platformState: createPlatformState(db),
    clock,
    retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 50 },
    durable: { updates: createInboundUpdates(db), owner, everyOtherOwner: false, clock },
    ...(options.transports ? { transports: options.transports } : {}),
    ...(options.linking ? { linking: options.linking } : {}),
  });
  const server: Server = createServer((request, response) => {
    if (request.url?.startsWith(SLACK_EVENTS_PATH)) {
      slackApp.requestHandler(request, response);
      return;
    }
    response.writeHead(404);
    response.end();
  });
  const listening = await listen(server);
  return {
    slackApp,
    assistant,
    clock,
    url: `${listening.url}${SLACK_EVENTS_PATH}`,
    owner,
    async close() {
      await slackApp.stop();
      await listening.close();
    },
  };
}

let eventCounter = 0;

export function nextEventId(): string {
  eventCounter += 1;
  return `Ev${Date.now().toString(36)}${eventCounter}`;
}

let messageTs = 1_800_000_000;

/** A user's message ts: increasing, and apart from the server's own bot-message ts range. */
export function nextUserTs(): string {
  messageTs += 1;
  return `${messageTs}.000100`;
}

/** A DM from a user to the bot, optionally in a thread. */
export function directMessage(slackId: string, text: string, threadTs?: string): Record<string, unknown> {
  return {
    type: "message",
    channel: `D${slackId}`,
    channel_type: "im",
    user: slackId,
    text,
    ts: nextUserTs(),
    ...(threadTs ? { thread_ts: threadTs } : {}),
  };
}

/** A message in a channel (`C…`), optionally in a thread, as Slack's `message.channels` event carries it. */
export function channelMessage(
  slackId: string,
  channel: string,
  text: string,
  threadTs?: string,
): Record<string, unknown> {
  return {
    type: "message",
    channel,
    channel_type: "channel",
    user: slackId,
    text,
    ts: nextUserTs(),
    ...(threadTs ? { thread_ts: threadTs } : {}),
  };
}

/**
 * An @mention of the bot in a channel, sent as Slack sends it: the `message` event and the `app_mention`
 * event for the same message, each with its own event id.
 */
export async function mentionInChannel(
  slack: SlackServer,
  slackId: string,
  channel: string,
  text: string,
  threadTs?: string,
): Promise<{ ts: string }> {
  const message = channelMessage(slackId, channel, `<@${slack.botUserId}> ${text}`, threadTs);
  await slack.sendEvent(message, { eventId: nextEventId() });
  await slack.sendEvent({ ...message, type: "app_mention" }, { eventId: nextEventId() });
  return { ts: String(message.ts) };
}

/** What the outbox does with the app's sender, minus the bookkeeping: posts at once, claiming nothing. */
export function deliverNow(
  running: RunningSlackApp,
  recipient: Identity,
  message: BriefingMessage,
  /** What an earlier attempt saved, as the outbox keeps it on the row; updated as parts are posted. */
  resume?: { progress?: unknown },
): Promise<DeliveryReceipt | undefined> {
  return running.slackApp.sender.deliver({
    recipient,
    message,
    begin: async () => true,
    progress: resume?.progress,
    saveProgress: async (progress) => {
      if (resume) resume.progress = progress;
    },
  });
}

export type StartAppOptions = NonNullable<Parameters<typeof startApp>[3]>;

export interface SlackSuite {
  readonly ollama: OllamaTestServer;
  readonly slack: SlackServer;
  /** The app the Slack server sends its events to. */
  readonly running: RunningSlackApp;
}

/**
 * A suite's Ollama test server, Slack test server and app: started before its tests, closed after them.
 * `options` builds the app's options once the database is there (a clock, linking, a geocoder).
 */
export function slackSuite(
  getDb: () => Database,
  options: (db: Database) => StartAppOptions = () => ({}),
): SlackSuite {
  let ollama: OllamaTestServer | undefined;
  let slack: SlackServer | undefined;
  let running: RunningSlackApp | undefined;
  beforeAll(async () => {
    ollama = await startModelServer();
    slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
    running = await startApp(getDb(), slack, ollama, options(getDb()));
    slack.setAppUrl(running.url);
  });
  afterAll(async () => {
    await running?.close();
    await slack?.close();
    await ollama?.close();
  });
  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`the suite's ${name} is not started yet: use it inside a test`);
    return value;
  };
  return {
    get ollama() {
      return started(ollama, "Ollama server");
    },
    get slack() {
      return started(slack, "Slack server");
    },
    get running() {
      return started(running, "app");
    },
  };
}
