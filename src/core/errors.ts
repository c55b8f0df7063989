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

/**
 * Every error briefbot raises on purpose: a stable `code` that callers (the CLI's exit codes, the adapters'
 * replies, tests) branch on, and a message for people. Names and messages may change; codes do not.
 */
export class BriefbotError<CODE extends string = string> extends Error {
  /**
   * Data about the user's world the failure found out, which a reply may state (a server's copy of a task
   * after a refused write): the tool result carries it, and grounding reads it as a receipt's data.
   */
  readonly facts: Record<string, unknown> | undefined;

  constructor(
    readonly code: CODE,
    message: string,
    options?: { cause?: unknown; facts?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.facts = options?.facts;
  }
}

/** The facts an error of ours carries, if any. */
export function factsOf(error: unknown): Record<string, unknown> | undefined {
  return error instanceof BriefbotError ? error.facts : undefined;
}

/** The error's code when it is one of ours. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof BriefbotError ? error.code : undefined;
}

/** A user, run or record the caller asked for does not exist (or is not theirs). */
export class NotFoundError extends BriefbotError {
  constructor(message: string) {
    super("not_found", message);
  }
}

/**
 * The run moved on without this process: another one reclaimed it (this one's lease had lapsed), or it is
 * not in the state this step leaves. What this attempt made is dropped; the run's owner finishes it.
 */
export class RunTakenError extends BriefbotError {
  constructor(message: string) {
    super("run_taken", message);
  }
}
