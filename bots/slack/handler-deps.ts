import type { Assistant, Clock, Linking, Logger, PlatformState } from "../../src/core/index.ts";

/** What every Slack listener needs; the Web API client comes from Bolt per request. */
export interface SlackHandlerDeps {
  assistant: Assistant;
  /** Linked accounts, briefing threads: the core's port. */
  platformState: PlatformState;
  clock: Clock;
  logger: Logger;
  /** One-time link codes (`/link CODE`); without it only `briefbot user link` links. */
  linking?: Linking | undefined;
  /** Channels the operator marked as meant for everyone in them (`slack.team_channels`). */
  teamChannels: ReadonlySet<string>;
}

/** Messages to the user never carry internals; the log gets the details. */
export const SORRY = "Sorry, something went wrong on my side. Please try again in a moment.";
