import type { Database } from "../db/client.ts";
import type { Config } from "./config/config.ts";
import type { AssistantDeps } from "./core/assistant-service.ts";
import type { Logger } from "./core/briefing/types.ts";
import type { Clock } from "./core/clock.ts";
import { createModelClient, type ModelRouter } from "./models/index.ts";
import { CHANGES_SINCE_MORNING_TOOL, changesSinceMorning } from "./scheduler/changes-since-morning.ts";
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
    // Check-ins start from what changed since the morning, computed from receipts rather than guessed.
    checkInContext: async (user, localDate, now) => ({
      name: CHANGES_SINCE_MORNING_TOOL,
      arguments: { local_date: localDate },
      result: await changesSinceMorning(options.db, user.id, localDate, now),
    }),
    config: {
      receiptMaxAgeMinutes: config.briefing.receiptMaxAgeMinutes,
      retentionDays: config.briefing.retentionDays,
      confirmationMinutes: config.briefing.confirmationMinutes,
    },
  };
}
