/**
 * The one way an unknown thrown value becomes a line of text. With `cause`, what it wraps is added: fetch
 * and socket failures keep their reason there ("fetch failed: connect ECONNREFUSED 127.0.0.1:11434").
 */
export function errorMessage(error: unknown, options: { cause?: boolean } = {}): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (!options.cause || !(cause instanceof Error)) return error.message;
  const code = (cause as Error & { code?: unknown }).code;
  const withCode =
    typeof code === "string" && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  return `${error.message}: ${withCode}`;
}

/** A user, run or record the caller asked for does not exist (or is not theirs). */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotFoundError";
  }
}
