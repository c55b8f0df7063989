/**
 * The Telegram adapter: a grammY bot wired to the core `Assistant`, plus the outbox's `PlatformSender`.
 *
 *   const telegram = createTelegramBot({ config: config.telegram, db, assistant, clock, logger });
 *   await telegram.start();                   // long polling, or setWebhook in webhook mode
 *   httpServer.mount("/telegram/webhook", telegram.webhookHandler);   // webhook mode only
 *   …
 *   await telegram.stop();
 *
 * Long polling by default; webhook mode when `config.webhookUrl` is set. Updates are handled one at a time
 * per chat and concurrently across chats; errors in one update are logged and never stop the bot.
 */
import { autoRetry } from "@grammyjs/auto-retry";
import { Api, type ApiClientOptions, Bot } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import type { Database } from "../../db/client.ts";
import type { TelegramConfig } from "../../src/config/config.ts";
import type { Assistant, PlatformSender } from "../../src/core/assistant.ts";
import type { Clock } from "../../src/core/clock.ts";
import { accessGate } from "./access.ts";
import { createChatQueues } from "./chat-queues.ts";
import { type BotContext, createHandlers } from "./handlers.ts";
import { silentLogger, type TelegramLogger } from "./logger.ts";
import { COMMANDS } from "./render.ts";
import { createTelegramSender } from "./sender.ts";
import { createWebhookHandler, type WebhookHandler } from "./webhook.ts";

export type { BotContext } from "./handlers.ts";
export type { TelegramLogger } from "./logger.ts";

export interface TelegramRetryOptions {
  /** Retries of one API call after a 429 or 5xx. Default 3. */
  maxAttempts?: number;
  /** A 429 asking for a longer wait fails at once instead. Default 60. */
  maxDelaySeconds?: number;
}

/**
 * The `fetch` functions the bot's two API clients use. The composition root passes ones that share the
 * token's flood gate (a 429's retry_after pauses every send it covers) and, for the outbox, a transport
 * that knows whether a failed request reached Telegram (`src/delivery/platform-transports.ts`).
 * Without them grammY's own fetch is used: no gate, and network failures count as "outcome unknown".
 */
export interface TelegramTransports {
  fetch: typeof fetch;
  deliveryFetch: typeof fetch;
}

export interface TelegramBotOptions {
  config: TelegramConfig;
  db: Database;
  assistant: Assistant;
  clock: Clock;
  logger?: TelegramLogger;
  /** Shown nowhere yet: the core owns expiry; kept so the composition root can pass config through. */
  confirmationMinutes?: number;
  retry?: TelegramRetryOptions;
  /** Skips `getMe` (tests, or a caller that already knows the bot). */
  botInfo?: UserFromGetMe;
  transports?: TelegramTransports;
}

export type { WebhookHandler } from "./webhook.ts";

export interface TelegramBot {
  bot: Bot<BotContext>;
  /** For the delivery outbox. */
  sender: PlatformSender;
  /** Registers the commands, then starts long polling (resolves once polling runs) or sets the webhook. */
  start(): Promise<void>;
  /** Stops polling and waits for updates being handled. */
  stop(): Promise<void>;
  /** Resolves when no update is being handled (tests). */
  idle(): Promise<void>;
  /**
   * Webhook mode only: mount at `/telegram/webhook`. Wrong or missing secret → 401, update ignored; with the
   * right secret, a body that is not an update → 400.
   */
  webhookHandler?: WebhookHandler;
}

/** grammY answers a webhook within this; our handlers run detached, so it is only a backstop. */
const WEBHOOK_TIMEOUT_MS = 9_000;
/** grammY's own deadline for an outbox call (its default is 500 s); the transport's is shorter still. */
const DELIVERY_TIMEOUT_SECONDS = 60;

/** grammY types `fetch` as node-fetch's; ours is the standard one it also accepts at runtime. */
const asGrammyFetch = (fetch: typeof globalThis.fetch) => fetch as unknown as ApiClientOptions["fetch"];

export function createTelegramBot(options: TelegramBotOptions): TelegramBot {
  const { config, db, assistant, clock } = options;
  const logger = options.logger ?? silentLogger;
  const transports = options.transports;
  const client: ApiClientOptions = {
    apiRoot: config.apiRoot,
    ...(transports ? { fetch: asGrammyFetch(transports.fetch) } : {}),
  };
  const bot = new Bot<BotContext>(config.token, {
    client,
    ...(options.botInfo ? { botInfo: options.botInfo } : {}),
  });
  const maxRetryAttempts = options.retry?.maxAttempts ?? 3;
  const maxDelaySeconds = options.retry?.maxDelaySeconds ?? 60;
  // Network errors are rethrown: auto-retry would retry them without bound.
  bot.api.config.use(autoRetry({ maxRetryAttempts, maxDelaySeconds, rethrowHttpErrors: true }));

  // The outbox retries deliveries with its own backoff, so its API waits out rate limits only.
  const deliveryApi = new Api(config.token, {
    apiRoot: config.apiRoot,
    timeoutSeconds: DELIVERY_TIMEOUT_SECONDS,
    ...(transports ? { fetch: asGrammyFetch(transports.deliveryFetch) } : {}),
  });
  deliveryApi.config.use(
    autoRetry({
      maxRetryAttempts,
      maxDelaySeconds,
      rethrowHttpErrors: true,
      rethrowInternalServerErrors: true,
    }),
  );

  const queues = createChatQueues();
  bot.use((ctx, next) => {
    const key = String(ctx.chat?.id ?? ctx.from?.id ?? "unknown");
    queues
      .run(key, async () => {
        await next();
      })
      .catch((error: unknown) => {
        logger.error({ updateId: ctx.update.update_id, error: describe(error) }, "telegram update failed");
      });
  });
  bot.use(accessGate({ db, clock, logger }));
  bot.use(createHandlers({ db, assistant, clock, logger }));
  bot.catch((error) => {
    logger.error(
      { updateId: error.ctx.update.update_id, error: describe(error.error) },
      "telegram update failed",
    );
  });

  const registerCommands = async () => {
    try {
      await bot.api.setMyCommands(COMMANDS.map((entry) => ({ ...entry })));
    } catch (error) {
      logger.warn({ error: describe(error) }, "telegram setMyCommands failed; commands still work");
    }
  };

  const webhookMode = config.webhookUrl !== undefined;
  const webhookHandler: WebhookHandler | undefined = webhookMode
    ? createWebhookHandler(bot, {
        secretToken: config.webhookSecret,
        timeoutMilliseconds: WEBHOOK_TIMEOUT_MS,
      })
    : undefined;

  let polling: Promise<void> | undefined;

  return {
    bot,
    sender: createTelegramSender({ api: deliveryApi, db, clock, logger }),
    ...(webhookHandler ? { webhookHandler } : {}),
    async start() {
      await bot.init();
      await registerCommands();
      if (webhookMode && config.webhookUrl) {
        await bot.api.setWebhook(config.webhookUrl, {
          ...(config.webhookSecret ? { secret_token: config.webhookSecret } : {}),
          allowed_updates: ["message", "callback_query"],
        });
        logger.info({ username: bot.botInfo.username, mode: "webhook" }, "telegram bot started");
        return;
      }
      await new Promise<void>((resolve, reject) => {
        polling = bot.start({
          allowed_updates: ["message", "callback_query"],
          onStart: (me) => {
            logger.info({ username: me.username, mode: "polling" }, "telegram bot started");
            resolve();
          },
        });
        polling.catch((error: unknown) => {
          logger.error({ error: describe(error) }, "telegram polling stopped");
          reject(error);
        });
      });
    },
    async stop() {
      if (bot.isRunning()) await bot.stop();
      await polling?.catch(() => undefined);
      await queues.idle();
    },
    idle: () => queues.idle(),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
