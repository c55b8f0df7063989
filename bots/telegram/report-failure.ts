/** What fails in an update's handler reaches `bot.catch`, however the update arrived (polled or posted). */
import type { Bot, BotError, Context } from "grammy";
import { errorMessage, type Logger } from "../../src/core/index.ts";

export function failureReporter<C extends Context>(bot: Bot<C>, logger: Logger) {
  return async (error: unknown): Promise<void> => {
    try {
      await bot.errorHandler(error as BotError<C>);
    } catch (handlerError) {
      logger.error({ error: errorMessage(handlerError) }, "telegram: the error handler failed");
    }
  };
}
