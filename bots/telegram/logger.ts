/** The bot logs through the one logger interface; pino's `Logger` fits it. */
import type { Logger } from "../../src/core/index.ts";

export type TelegramLogger = Logger;

export { silentLogger } from "../../src/core/index.ts";
