/**
 * The real Telegram bot against the Telegram test server, with the real core (`composeCore`) over a test
 * database and the Ollama test server scripting the model. Each harness starts fresh servers.
 *
 *   const suite = telegramSuite(getDb);              // in a describeEachDatabase block
 *   it("…", async () => {
 *     const { h, user, account } = await suite.withUser();   // started, the user's chat known to the server
 *     h.telegram.sendUserMessage(account, "/help");
 *   });                                              // the harness closes after each test
 */
import { afterEach, expect } from "vitest";
import {
  createTelegramBot,
  type TelegramAdapterConfig,
  type TelegramBot,
  type TelegramBotOptions,
} from "../../../bots/telegram/index.ts";
import type { Database } from "../../../db/client.ts";
import { linkIdentity } from "../../../db/queries/users.ts";
import type { Identity, User } from "../../../db/schema/index.ts";
import { createPlatformState } from "../../../db/stores/index.ts";
import { resolveModelRoutes } from "../../../src/config/model-routes.ts";
import type { AccountService } from "../../../src/core/accounts/service.ts";
import type { Assistant, BriefingMessage, DeliveryReceipt } from "../../../src/core/assistant.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import type { Geocoder } from "../../../src/core/geocoder.ts";
import type { Sources } from "../../../src/core/ports.ts";
import { createModelClient } from "../../../src/models/router.ts";
import { testCore } from "../../core/fixture.ts";
import { createTestUser } from "../../helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "../../servers/ollama-server.ts";
import {
  startTelegramServer,
  type TelegramTestServer,
  type TestUser,
} from "../../servers/telegram-server.ts";

export const MODEL = "qwen2.5:7b";

export interface Harness {
  telegram: TelegramTestServer;
  ollama: OllamaTestServer;
  clock: ReturnType<typeof fixedClock>;
  assistant: Assistant;
  app: TelegramBot;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Start polling (or set the webhook) right away. Default true. */
  start?: boolean;
  webhookUrl?: string;
  webhookSecret?: string;
  bot?: Partial<TelegramBotOptions>;
  /** `Sources.refresh` for briefings (default none: they read what is cached). */
  refresh?: Sources["refresh"];
  /** Place lookups for /settings (default none). */
  geocoder?: Geocoder;
  /** CalDAV / Todoist accounts the core writes account tasks through (default none). */
  accounts?: AccountService;
}

/** A linked user: the briefbot user, their Telegram account and its identity row. */
export interface LinkedTelegramUser {
  user: User;
  account: TestUser;
  identity: Identity;
}

let telegramIds = 7_000_000 + Math.floor(Math.random() * 1_000_000);

/** A fresh Telegram account id, unique across suites sharing a database. */
export function nextTelegramId(): number {
  telegramIds += 1;
  return telegramIds;
}

export async function linkedUser(db: Database, name = "Ann"): Promise<LinkedTelegramUser> {
  const user = await createTestUser(db, { timeZone: "Europe/London" });
  const account: TestUser = { id: nextTelegramId(), first_name: name };
  const identity = await linkIdentity(db, user.id, {
    platform: "telegram",
    externalUserId: String(account.id),
  });
  return { user, account, identity };
}

/** Our Telegram adapter's config, pointed at the Telegram test server (long polling unless a webhook is given). */
export function telegramConfigFor(
  telegram: TelegramTestServer,
  webhook: { webhookUrl?: string | undefined; webhookSecret?: string | undefined } = {},
): TelegramAdapterConfig {
  return {
    token: telegram.token,
    apiRoot: telegram.url,
    webhookUrl: webhook.webhookUrl,
    webhookSecret: webhook.webhookSecret,
  };
}

export async function startHarness(db: Database, options: HarnessOptions = {}): Promise<Harness> {
  const telegram = await startTelegramServer();
  const ollama = await startOllamaServer({ models: { [MODEL]: {} } });
  const clock = fixedClock("2025-06-02T06:00:00Z");
  const model = createModelClient({
    routes: resolveModelRoutes(undefined, { ollamaHost: ollama.url, model: MODEL }),
    retry: { attempts: 1 },
  });
  const { assistant, userData, settings } = testCore(db, model, {
    clock,
    refresh: options.refresh,
    geocoder: options.geocoder,
    accounts: options.accounts,
  });
  const app = createTelegramBot({
    config: telegramConfigFor(telegram, options),
    assistant,
    userData,
    settings,
    platformState: createPlatformState(db),
    clock,
    retry: { maxAttempts: 3, maxDelaySeconds: 5 },
    ...options.bot,
  });
  if (options.start !== false) await app.start();
  return {
    telegram,
    ollama,
    clock,
    assistant,
    app,
    async close() {
      await app.stop();
      await telegram.close();
      await ollama.close();
    },
  };
}

/**
 * The set-up a suite's tests share: `start` gives a harness that closes after the test; `withUser` also
 * links a user and makes their chat known to the Telegram server.
 */
export function telegramSuite(getDb: () => Database, defaults: HarnessOptions = {}) {
  let current: Harness | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const start = async (options: HarnessOptions = {}): Promise<Harness> => {
    await current?.close();
    current = await startHarness(getDb(), { ...defaults, ...options });
    return current;
  };
  return {
    start,
    async withUser(options: HarnessOptions = {}) {
      const db = getDb();
      const linked = await linkedUser(db);
      const h = await start(options);
      h.telegram.addChat(linked.account);
      return { db, h, ...linked };
    },
  };
}

/** What the outbox does with the adapter's sender, minus the bookkeeping: posts at once, claiming nothing. */
export function deliverNow(
  h: Harness,
  recipient: Identity,
  message: BriefingMessage,
  /** What an earlier attempt saved, as the outbox keeps it on the row; updated as parts are posted. */
  resume?: { progress?: unknown },
): Promise<DeliveryReceipt | undefined> {
  return h.app.sender.deliver({
    recipient,
    message,
    begin: async () => true,
    progress: resume?.progress,
    saveProgress: async (progress) => {
      if (resume) resume.progress = progress;
    },
  });
}

/**
 * Per-chat order, across-chat concurrency: `account`'s question is held at the model while its /help waits
 * behind it, and another linked user's /help is answered meanwhile.
 */
export async function expectPerChatOrder(db: Database, h: Harness, account: TestUser): Promise<void> {
  const other = await linkedUser(db, "Bob");
  h.telegram.addChat(other.account);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  h.ollama.script(MODEL, { content: "A slow answer.", waitFor: held });
  const helpOf = (chatId: number) =>
    h.telegram
      .chat(chatId)
      .botMessages()
      .find((post) => post.text.includes("/receipts"));
  try {
    h.telegram.sendUserMessage(account, "a slow question");
    h.telegram.sendUserMessage(account, "/help");
    h.telegram.sendUserMessage(other.account, "/help");
    await h.telegram.waitFor(() => helpOf(other.account.id));
    expect(helpOf(account.id)).toBeUndefined();
  } finally {
    release();
  }
  await h.telegram.waitFor(() => helpOf(account.id));
  const texts = h.telegram
    .chat(account.id)
    .botMessages()
    .map((post) => post.text);
  expect(texts.indexOf("A slow answer.")).toBeGreaterThanOrEqual(0);
  expect(texts.indexOf("A slow answer.")).toBeLessThan(texts.findIndex((text) => text.includes("/receipts")));
}
