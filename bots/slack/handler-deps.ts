import type { Database } from "../../db/client.ts";
import type { Assistant } from "../../src/core/assistant.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { Logger } from "../../src/logger.ts";

/** What every Slack listener needs; the Web API client comes from Bolt per request. */
export interface SlackHandlerDeps {
  db: Database;
  assistant: Assistant;
  clock: Clock;
  logger: Logger;
}

/** Messages to the user never carry internals; the log gets the details. */
export const SORRY = "Sorry, something went wrong on my side. Please try again in a moment.";
