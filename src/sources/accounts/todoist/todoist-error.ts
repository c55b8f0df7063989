import { TodoistRequestError } from "@doist/todoist-sdk";
import { BriefbotError, errorMessage } from "../../../core/errors.ts";

export type TodoistErrorCode =
  | "todoist_token"
  | "todoist_rate_limited"
  | "todoist_refused"
  | "todoist_unreachable"
  | "todoist_unreadable"
  | "todoist_bad_write";

/** Todoist did not do what was asked; the message says why in one line, never with the token in it. */
export class TodoistError extends BriefbotError<TodoistErrorCode> {
  constructor(code: TodoistErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  static isInstance(error: unknown): error is TodoistError {
    return error instanceof TodoistError;
  }
}

/** A task body the API sent that cannot be read; the sync skips it and keeps the rest. */
export class TodoistItemError extends BriefbotError<"todoist_item_unreadable"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("todoist_item_unreadable", message, options);
  }
}

/** What the wire saw of the latest 429, for the message when waiting was not enough. */
export interface RateLimitNote {
  retryAfterSeconds: number | null;
  waitedMs: number;
}

/**
 * The SDK's failure as one of ours. It wraps every HTTP failure in `TodoistRequestError` (status and body,
 * no headers) and lets its zod errors through as they are.
 */
export function todoistFailure(error: unknown, doing: string, rateLimit: RateLimitNote | null): Error {
  if (error instanceof TodoistError || error instanceof BriefbotError) return error;
  if (error instanceof TodoistRequestError) {
    const status = error.httpStatusCode;
    const said = serverSaid(error.responseData) ?? error.message;
    if (status === 401 || status === 403) {
      return new TodoistError(
        "todoist_token",
        `Todoist refused the API token while ${doing} (${status} ${said}): check the account's personal token (Todoist → Settings → Integrations → Developer)`,
        { cause: error },
      );
    }
    if (status === 429) {
      const asked = rateLimit?.retryAfterSeconds;
      const waited = Math.round((rateLimit?.waitedMs ?? 0) / 1000);
      return new TodoistError(
        "todoist_rate_limited",
        `Todoist's rate limit stopped ${doing}: it asked to wait ${asked ?? "an unknown number of"} s${waited > 0 ? ` after ${waited} s of waiting already` : ""}; the next sync tries again`,
        { cause: error },
      );
    }
    if (status === undefined) {
      return new TodoistError(
        "todoist_unreachable",
        `Todoist did not answer while ${doing}: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    return new TodoistError("todoist_refused", `Todoist refused ${doing} (${status} ${said})`, {
      cause: error,
    });
  }
  // By name: the SDK bundles its own zod, whose ZodError is not the class our zod exports.
  if (error instanceof Error && error.name === "ZodError") {
    return new TodoistError(
      "todoist_unreadable",
      `Todoist's answer to ${doing} is not what its API documents`,
      {
        cause: error,
      },
    );
  }
  return new TodoistError(
    "todoist_unreachable",
    `Todoist did not answer while ${doing}: ${errorMessage(error, { cause: true })}`,
    {
      cause: error,
    },
  );
}

function serverSaid(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { error, error_tag: tag } = data as { error?: unknown; error_tag?: unknown };
  if (typeof error !== "string") return undefined;
  return typeof tag === "string" ? `${error}, ${tag}` : error;
}
