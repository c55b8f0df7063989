/**
 * The one logger interface: structured details first, then a message, as pino takes them. `src/logger.ts`
 * (pino) implements it; the core, the syncs, the scheduler and the adapters all log through it.
 */
export interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** For tests and callers that must stay quiet. */
export const silentLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};
