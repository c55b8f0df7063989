/**
 * One conversation with Todoist: the official SDK on top of a counting, rate-limit-honouring wire, and
 * the translation of what goes wrong into one line that names the step.
 */
import { TodoistApi } from "@doist/todoist-sdk";
import type { AccountConnection } from "../../../core/accounts/ports.ts";
import { todoistFailure } from "./todoist-error.ts";
import { createTodoistWire, type TodoistWire, type WireOptions } from "./todoist-wire.ts";

export interface TodoistSession {
  api: TodoistApi;
  wire: TodoistWire;
  /** Runs one SDK call; its failure comes back as a TodoistError saying what was being done. */
  call: <T>(doing: string, step: (api: TodoistApi) => Promise<T>) => Promise<T>;
}

export function openTodoistSession(connection: AccountConnection, options: WireOptions = {}): TodoistSession {
  const wire = createTodoistWire(options);
  const api = new TodoistApi(connection.secret, { baseUrl: connection.url, customFetch: wire.fetch });
  return {
    api,
    wire,
    call: async (doing, step) => {
      try {
        return await step(api);
      } catch (error) {
        throw todoistFailure(error, doing, wire.rateLimit());
      }
    },
  };
}
