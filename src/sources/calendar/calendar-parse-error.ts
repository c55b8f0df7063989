/** The text is not a usable iCalendar file at all (HTML error page, truncated download, garbage). */
export class CalendarParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CalendarParseError";
  }

  static isInstance(error: unknown): error is CalendarParseError {
    return error instanceof CalendarParseError;
  }
}
