import type { Database } from "../db/client.ts";
import type { Config } from "./config/config.ts";
import type { AssistantDeps } from "./core/assistant-service.ts";
import type { Logger } from "./core/briefing/types.ts";
import type { Clock } from "./core/clock.ts";
import { createModelClient, type ModelRouter } from "./models/index.ts";
import { createDefaultToolRegistry } from "./tools/index.ts";

/** The core's dependencies from the configuration: one model router, the tool registry, the settings. */
export function buildAssistantDeps(options: {
  db: Database;
  config: Config;
  clock: Clock;
  fetch: typeof fetch;
  logger: Logger;
}): AssistantDeps & { model: ModelRouter } {
  const { config } = options;
  return {
    db: options.db,
    clock: options.clock,
    model: createModelClient({ routes: config.models, fetch: options.fetch, logger: options.logger }),
    tools: createDefaultToolRegistry(),
    logger: options.logger,
    config: {
      receiptMaxAgeMinutes: config.briefing.receiptMaxAgeMinutes,
      retentionDays: config.briefing.retentionDays,
      confirmationMinutes: config.briefing.confirmationMinutes,
    },
  };
}
