/**
 * A briefbot user's Todoist account on the Todoist test server, for tests of what the platforms show around
 * an account's task: the account service as the app builds it (real Todoist provider, the official SDK, a
 * throwaway secret key), and a helper that connects a user and mirrors one task.
 */
import { randomBytes } from "node:crypto";
import type { Database } from "../../db/client.ts";
import { listTasks } from "../../db/queries/tasks.ts";
import { buildAccountService } from "../../src/build-core.ts";
import type { AccountService } from "../../src/core/accounts/service.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { Task } from "../../src/core/domain.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { taskQuery } from "../../src/core/tasks.ts";
import { createTodoistProvider } from "../../src/sources/accounts/todoist/todoist-provider.ts";
import type { TodoistServer } from "../servers/todoist-server.ts";
import { LOOPBACK } from "../sources/accounts/todoist/todoist-fixture.ts";

export function todoistAccountService(db: Database, clock: Clock): AccountService {
  return buildAccountService({
    db,
    config: { secretKey: randomBytes(32).toString("base64"), sources: LOOPBACK.network },
    clock,
    logger: silentLogger,
    providers: [createTodoistProvider(LOOPBACK)],
  });
}

/** Connects `user` to its own project on `server` holding one task titled `title`, synced into the mirror. */
export async function todoistTaskOf(
  db: Database,
  service: AccountService,
  server: TodoistServer,
  user: { id: number; timeZone: string },
  title: string,
  clock: Clock,
): Promise<{ remoteId: string; task: Task }> {
  const project = server.addProject(`Personal ${user.id}`);
  const made = server.addTask(project, { content: title });
  const { account } = await service.addAccount({
    userId: user.id,
    kind: "todoist",
    label: "Todoist",
    url: server.url,
    username: null,
    secret: server.token,
  });
  const report = await service.syncAccount(account);
  if (report.error) throw new Error(`sync failed: ${report.error}`);
  const task = (await listTasks(db, user.id, taskQuery("open", user.timeZone, clock.now()))).find(
    (entry) => entry.title === title,
  );
  if (!task) throw new Error(`no task "${title}" mirrored`);
  return { remoteId: String(made.id), task };
}
