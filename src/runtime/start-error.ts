/**
 * A reason the bot cannot start: printed as one line ("briefbot: …") and the process exits with
 * `exitCode` — 2 when the operator's configuration is wrong (a refused token), 1 for the environment (a
 * busy port, an unreachable database).
 */
import { BriefbotError } from "../core/errors.ts";
export class StartError extends BriefbotError {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    options?: { cause?: unknown },
  ) {
    super("start_failed", message, options);
  }
}
