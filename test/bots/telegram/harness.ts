/**
 * The real Telegram bot against the Telegram test server, with the real core (`createAssistant`) over a test
 * database and the Ollama test server scripting the model. Each call starts fresh servers.
 */

import {
  createTelegramBot,
  type TelegramBot,
  type TelegramBotOptions,
} from "../../../bots/telegram/index.ts";
import type { Database } from "../../../db/client.ts";
import { linkIdentity } from "../../../db/queries/users.ts";
import type { User } from "../../../db/schema/index.ts";
import type { TelegramConfig } from "../../../src/config/config.ts";
import { resolveModelRoutes } from "../../../src/config/model-routes.ts";
import type { Assistant } from "../../../src/core/assistant.ts";
import { fixedClock } from "../../../src/core/clock.ts";
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

let telegramIds = 7_000_000 + Math.floor(Math.random() * 1_000_000);

/** A fresh Telegram account id, unique across suites sharing a database. */
export function nextTelegramId(): number {
  telegramIds += 1;
  return telegramIds;
}

export async function linkedUser(db: Database, name = "Ann"): Promise<{ user: User; account: TestUser }> {
  const user = await createTestUser(db, { timeZone: "Europe/London" });
  const account: TestUser = { id: nextTelegramId(), first_name: name };
  await linkIdentity(db, user.id, { platform: "telegram", externalUserId: String(account.id) });
  return { user, account };
}

/** Our Telegram adapter's config, pointed at the Telegram test server (long polling unless a webhook is given). */
export function telegramConfigFor(
  telegram: TelegramTestServer,
  webhook: { webhookUrl?: string | undefined; webhookSecret?: string | undefined } = {},
): TelegramConfig {
  return {
    token: telegram.token,
    apiRoot: telegram.url,
    webhookUrl: webhook.webhookUrl,
    webhookSecret: webhook.webhookSecret,
  };
}

export async function startHarness(
  db: Database,
  options: {
    start?: boolean;
    webhookUrl?: string;
    webhookSecret?: string;
    bot?: Partial<TelegramBotOptions>;
    /** `Sources.refresh` for briefings (default none: they read what is cached). */
    refresh?: Sources["refresh"];
  } = {},
): Promise<Harness> {
  const telegram = await startTelegramServer();
  const ollama = await startOllamaServer({ models: { [MODEL]: {} } });
  const clock = fixedClock("2025-06-02T06:00:00Z");
  const model = createModelClient({
    routes: resolveModelRoutes(undefined, { ollamaHost: ollama.url, model: MODEL }),
    retry: { attempts: 1 },
  });
  const { assistant } = testCore(db, model, { clock, refresh: options.refresh });
  const app = createTelegramBot({
    config: telegramConfigFor(telegram, options),
    db,
    assistant,
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
