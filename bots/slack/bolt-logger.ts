/** Bolt and its WebClient log through our pino logger, so Slack chatter lands in the same structured stream. */
import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../../src/logger.ts";

export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: "slack" });
  let level = LogLevel.INFO;
  const line = (parts: unknown[]): string =>
    parts.map((part) => (typeof part === "string" ? part : stringify(part))).join(" ");
  return {
    debug: (...parts: unknown[]) => child.debug(line(parts)),
    info: (...parts: unknown[]) => child.info(line(parts)),
    warn: (...parts: unknown[]) => child.warn(line(parts)),
    error: (...parts: unknown[]) => child.error(line(parts)),
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
