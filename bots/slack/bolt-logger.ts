/** Bolt and its WebClient log through our logger, so Slack chatter lands in the same structured stream. */
import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../../src/core/index.ts";

export function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const line = (parts: unknown[]): string =>
    parts.map((part) => (typeof part === "string" ? part : stringify(part))).join(" ");
  const details = { component: "bolt" };
  return {
    // Bolt's debug lines trace every request; the one logger has no level below info for them.
    debug: () => {},
    info: (...parts: unknown[]) => logger.info(details, line(parts)),
    warn: (...parts: unknown[]) => logger.warn(details, line(parts)),
    error: (...parts: unknown[]) => logger.error(details, line(parts)),
    setLevel(next) {
      level = next;
    },
    getLevel: () => level,
    setName() {},
  };
}

function stringify(value: unknown): string {
  if (value instanceof Error) return value.stack ?? value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
