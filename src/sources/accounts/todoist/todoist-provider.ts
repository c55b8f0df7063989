/**
 * The `AccountProvider` for Todoist accounts, through Todoist's API v1 and the official SDK,
 * `@doist/todoist-sdk` 11.0.0: the newest release that runs on Node 20 (15.x and 17.x declare
 * `engines.node >= 24`). The connection's url is the API's base (https://api.todoist.com), its secret the
 * person's API token.
 */
import type { AccountProvider } from "../../../core/accounts/ports.ts";
import { deriveTodoistTask } from "./derive-task.ts";
import { discoverProjects } from "./discover-projects.ts";
import { createSyncAnswers, syncProject } from "./sync-project.ts";
import type { WireOptions } from "./todoist-wire.ts";
import { createTodoistTask, deleteTodoistTask, writeTodoistTask } from "./write-task.ts";

export const TODOIST_API_URL = "https://api.todoist.com";

export function createTodoistProvider(options: WireOptions = {}): AccountProvider {
  // One per provider: the projects of an account, synced one after the other, share the account's answer.
  const answers = createSyncAnswers();
  return {
    kind: "todoist",
    discover: (connection) => discoverProjects(connection, options),
    sync: (connection, collection, known) => syncProject(connection, collection, known, options, answers),
    derive: deriveTodoistTask,
    createTask: (connection, collection, draft) => createTodoistTask(connection, collection, draft, options),
    writeTask: (connection, current, write) => writeTodoistTask(connection, current, write, options),
    deleteTask: (connection, current) => deleteTodoistTask(connection, current, options),
  };
}
