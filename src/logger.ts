import pino from "pino";

export type Logger = pino.Logger;

/** JSON lines on stderr, so command output on stdout stays clean for scripts. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { app: "briefbot" } }, pino.destination(2));
}

/** For tests and commands that must stay quiet. */
export const silentLogger: Logger = pino({ level: "silent" });
