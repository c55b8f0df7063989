import pino from "pino";

/**
 * pino's logger: it implements the core's `Logger` (the app hands it to `buildCore`, which takes that
 * interface, so the compiler checks the fit) and adds `child()` for per-component context.
 */
export type Logger = pino.Logger;

/** JSON lines on stderr, so command output on stdout stays clean for scripts. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { app: "briefbot" } }, pino.destination(2));
}

/** For tests and commands that must stay quiet. */
export const silentLogger: Logger = pino({ level: "silent" });
