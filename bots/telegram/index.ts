/**
 * The Telegram adapter: a grammY bot wired to the core `Assistant`, plus the outbox's `PlatformSender`.
 *
 *   const telegram = createTelegramBot({ config, assistant, platformState, clock, logger });
 *   await telegram.start();                   // long polling, or setWebhook in webhook mode
 *   httpServer.mount("/telegram/webhook", telegram.webhookHandler);   // webhook mode only
 *   …
 *   await telegram.stop();
 *
 * Long polling by default (grammY's runner, which hands updates over concurrently); webhook mode when
 * `config.webhookUrl` is set. Either way the runner's `sequentialize` handles each chat's updates one at a
 * time and in order, while other chats go on; errors in one update are logged and never stop the bot.
 */
import { autoRetry } from "@grammyjs/auto-retry";
import { sequentialize } from "@grammyjs/runner";
import {
  Api,
  type ApiCallFn,
  type ApiClientOptions,
  Bot,
  type Context,
  type MiddlewareFn,
  type Transformer,
} from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import {
  type Assistant,
  type Clock,
  errorMessage,
  type Linking,
  type Logger,
  type PlatformSender,
  type PlatformState,
  type SendPacer,
  type Settings,
  silentLogger,
  type UserDataService,
} from "../../src/core/index.ts";
import { createDurableIntake, type DurableUpdates } from "../durable-intake.ts";
import { accessGate } from "./access.ts";
import { type BotContext, createHandlers } from "./handlers.ts";
import { linkingGate } from "./linking.ts";
import { createPoller, type Poller, type UpdateKind } from "./polling.ts";
import { handleTracked } from "./progress.ts";
import { COMMANDS } from "./render.ts";
import { failureReporter } from "./report-failure.ts";
import { createTelegramSender } from "./sender.ts";
import { createSettingsHandlers } from "./settings.ts";
import { createUserDataHandlers } from "./user-data.ts";
import { createWebhookHandler, type WebhookHandler } from "./webhook.ts";

export type { DurableUpdates } from "../durable-intake.ts";
export type { BotContext } from "./handlers.ts";

/** What the adapter needs to reach Telegram. */
export interface TelegramAdapterConfig {
  token: string;
  /** The Bot API root, `https://api.telegram.org` or a self-hosted server's. */
  apiRoot: string;
  /** Webhook mode when set: Telegram posts updates here instead of being polled. */
  webhookUrl?: string | undefined;
  /** Sent back by Telegram on every webhook post; a request without it is refused. */
  webhookSecret?: string | undefined;
}

export interface TelegramRetryOptions {
  /** Retries of one API call after a 429 or 5xx. Default 3. */
  maxAttempts?: number;
  /** A 429 asking for a longer wait fails at once instead. Default 60. */
  maxDelaySeconds?: number;
}

/**
 * How the bot's traffic reaches Telegram. The composition root passes `fetch` functions that share the
 * token's flood gate (a 429's retry_after pauses every send it covers) and, for the outbox, a transport that
 * knows whether a failed request reached Telegram, plus the outbox's pacer (`src/delivery/`). Without them
 * grammY's own fetch is used: no gate, no pacing, and network failures count as "outcome unknown".
 */
export interface TelegramTransports {
  fetch: typeof fetch;
  deliveryFetch: typeof fetch;
  pacer?: SendPacer;
}

export interface TelegramBotOptions {
  config: TelegramAdapterConfig;
  assistant: Assistant;
  /** Linked accounts, reply chains: the core's port. */
  platformState: PlatformState;
  clock: Clock;
  logger?: Logger;
  retry?: TelegramRetryOptions;
  /** Skips `getMe` (tests, or a caller that already knows the bot). */
  botInfo?: UserFromGetMe;
  transports?: TelegramTransports;
  /** One-time link codes (`/link CODE`, `/start CODE`); without it only `briefbot user link` links. */
  linking?: Linking;
  /** `/export` and `/forget`; without it those commands are unknown. */
  userData?: UserDataService;
  /** /settings; without it the command is unknown. */
  settings?: Settings;
  /**
   * Keep each update (polled, or posted to the webhook) in the database until handled, so a process killed
   * mid-answer loses none (the next start, or another replica, takes it over). Without it, such an update
   * is lost.
   */
  durable?: DurableUpdates;
}

export type { WebhookHandler } from "./webhook.ts";

export interface TelegramBot {
  bot: Bot<BotContext>;
  /** For the delivery outbox. */
  sender: PlatformSender;
  /** Registers the commands, then starts long polling or sets the webhook. */
  start(): Promise<void>;
  /** Stops polling and waits for updates being handled. */
  stop(): Promise<void>;
  /** Watches every single API attempt of the chat client, inside its auto-retry (the health of the link). */
  observeAttempts(hook: Transformer): void;
  /** Long polling mode only: the one poller, for the link that keeps it alive. */
  poller?: Poller;
  /** Resolves when no update is being handled (tests). */
  idle(): Promise<void>;
  /**
   * Webhook mode only: mount at `/telegram/webhook`. Wrong or missing secret → 401, update ignored; with the
   * right secret, a body that is not an update → 400.
   */
  webhookHandler?: WebhookHandler;
}

const ALLOWED_UPDATES: readonly UpdateKind[] = ["message", "callback_query"];
/** grammY's own deadline for an outbox call (its default is 500 s); the transport's is shorter still. */
const DELIVERY_TIMEOUT_SECONDS = 60;

/** grammY types `fetch` as node-fetch's; ours is the standard one it also accepts at runtime. */
const asGrammyFetch = (fetch: typeof globalThis.fetch) => fetch as unknown as ApiClientOptions["fetch"];

export function createTelegramBot(options: TelegramBotOptions): TelegramBot {
  const { config, assistant, platformState, clock } = options;
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
  // grammY runs a later transformer around the earlier ones: installed first, the attempt hooks sit inside
  // auto-retry and see every attempt — a 5xx that auto-retry later gets past is still an outage right now.
  const attemptHooks: Transformer[] = [];
  bot.api.config.use((previous, method, payload, signal) =>
    attemptHooks.reduce<ApiCallFn>(
      (inner, hook) => (innerMethod, innerPayload, innerSignal) =>
        hook(inner, innerMethod, innerPayload, innerSignal),
      previous,
    )(method, payload, signal),
  );
  // Chat replies have no other retry: auto-retry waits out a 429 (the flood gate holds every other request
  // to that scope meanwhile) and retries a 5xx, a few times. Network errors are rethrown: it would retry
  // them without bound.
  bot.api.config.use(autoRetry({ maxRetryAttempts, maxDelaySeconds, rethrowHttpErrors: true }));

  // The outbox's client never retries: whether, when and until when a delivery is retried is the outbox's
  // retry policy alone (src/delivery/retry-policy.ts); a second policy here would resend behind its back.
  const deliveryApi = new Api(config.token, {
    apiRoot: config.apiRoot,
    timeoutSeconds: DELIVERY_TIMEOUT_SECONDS,
    ...(transports ? { fetch: asGrammyFetch(transports.deliveryFetch) } : {}),
  });

  const webhookMode = config.webhookUrl !== undefined;
  const poller = webhookMode
    ? undefined
    : createPoller(bot, {
        allowedUpdates: ALLOWED_UPDATES,
        onConfirmFailed: (error) =>
          logger.warn({ error: describe(error) }, "telegram: could not confirm the fetched updates"),
        logger,
        ...(options.durable ? { durable: options.durable } : {}),
      });
  const inFlight = new Set<Promise<void>>();
  const logFailure = (update: number, error: unknown) =>
    logger.error({ updateId: update, error: describe(error) }, "telegram update failed");
  bot.use(trackWork(inFlight));
  // One chat's updates in order (a reply waits for the /brief before it); other chats go on meanwhile.
  bot.use(sequentialize(chatOf));
  if (options.linking) bot.use(linkingGate({ linking: options.linking, logger }));
  bot.use(accessGate({ platformState, clock, logger }));
  if (options.userData) bot.use(createUserDataHandlers({ userData: options.userData, logger }));
  if (options.settings) bot.use(createSettingsHandlers({ settings: options.settings, logger }));
  bot.use(createHandlers({ platformState, assistant, clock, logger }));
  bot.catch((error) => logFailure(error.ctx.update.update_id, error.error));

  const registerCommands = async () => {
    try {
      await bot.api.setMyCommands(COMMANDS.map((entry) => ({ ...entry })));
    } catch (error) {
      logger.warn({ error: describe(error) }, "telegram setMyCommands failed; commands still work");
    }
  };

  const reportFailure = failureReporter(bot, logger);
  const intake =
    webhookMode && options.durable
      ? createDurableIntake({
          ...options.durable,
          label: "telegram",
          logger,
          handle: async (payload, _updateId, progress) => {
            await bot.init();
            await handleTracked(bot, payload as Update, progress);
          },
          isUpdate: (payload, updateId) => String((payload as Update | null)?.update_id) === updateId,
          onFailure: reportFailure,
        })
      : undefined;
  const webhookHandler: WebhookHandler | undefined = webhookMode
    ? createWebhookHandler(bot, { secretToken: config.webhookSecret, intake, inFlight, logger })
    : undefined;

  const idle = async () => {
    await poller?.settled();
    await intake?.settled();
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };

  return {
    bot,
    sender: createTelegramSender({
      api: deliveryApi,
      platformState,
      clock,
      logger,
      pacer: transports?.pacer,
    }),
    ...(webhookHandler ? { webhookHandler } : {}),
    ...(poller ? { poller } : {}),
    observeAttempts(hook) {
      attemptHooks.push(hook);
    },
    async start() {
      await bot.init();
      await intake?.startRecovering();
      await registerCommands();
      if (webhookMode && config.webhookUrl) {
        await bot.api.setWebhook(config.webhookUrl, {
          ...(config.webhookSecret ? { secret_token: config.webhookSecret } : {}),
          allowed_updates: [...ALLOWED_UPDATES],
        });
        logger.info({ username: bot.botInfo.username, mode: "webhook" }, "telegram bot started");
        return;
      }
      // Polling and a webhook exclude each other: a webhook left from an earlier run is removed first.
      await bot.api.deleteWebhook();
      await poller?.start();
      logger.info({ username: bot.botInfo.username, mode: "polling" }, "telegram bot started");
    },
    async stop() {
      await poller?.stop();
      await intake?.stopRecovering();
      await idle();
    },
    idle,
  };
}

/** Counts each update's work in flight (for `idle` and `stop`). */
function trackWork(inFlight: Set<Promise<void>>): MiddlewareFn<BotContext> {
  return async (_ctx, next) => {
    const work = next();
    inFlight.add(work);
    const done = () => inFlight.delete(work);
    work.then(done, done);
    await work;
  };
}

/** The chat an update belongs to (a button press: the chat of its message). */
function chatOf(ctx: Context): string {
  return String(ctx.chat?.id ?? ctx.from?.id ?? "unknown");
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${errorMessage(error)}` : errorMessage(error);
}
