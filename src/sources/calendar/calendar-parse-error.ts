/** The text is not a usable iCalendar file at all (HTML error page, truncated download, garbage). */
import { BriefbotError } from "../../core/errors.ts";
export class CalendarParseError extends BriefbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("calendar_unreadable", message, options);
  }

  static isInstance(error: unknown): error is CalendarParseError {
    return error instanceof CalendarParseError;
  }
}
