/** The slice of a pino logger the bot uses; pino's `Logger` fits it. */
export interface TelegramLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentLogger: TelegramLogger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};
