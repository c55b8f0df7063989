/**
 * One project's sync through Todoist's sync endpoint: the stored sync_token asks for what changed since
 * (one request, and nothing when nothing did); "*" on the first sync asks for everything, and so does
 * Todoist itself when it no longer knows the token (it answers `full_sync: true`).
 *
 * The token is the whole account's, not the project's: the answer lists every changed task, and this
 * keeps the project's. A task moved to another project leaves this one (removed); a deleted task comes
 * with `is_deleted: true`.
 *
 * The items are lifted out of the answer before the SDK reads it. The SDK checks the whole answer with one
 * strict zod parse, so a single task it cannot read would fail the sync of every other one; lifted out, each
 * task is kept as Todoist sent it and read on its own (derive), and an unreadable one is skipped alone.
 */
import type {
  AccountCollection,
  AccountConnection,
  CollectionChanges,
  RemoteObject,
} from "../../../core/accounts/ports.ts";
import { itemHeader, remoteTask, sameVersion } from "./task-json.ts";
import { openTodoistSession } from "./todoist-session.ts";
import type { WireOptions } from "./todoist-wire.ts";

const FULL = "*";

export async function syncProject(
  connection: AccountConnection,
  collection: AccountCollection,
  known: ReadonlyMap<string, string>,
  options: WireOptions = {},
): Promise<CollectionChanges> {
  let items: unknown[] = [];
  const session = openTodoistSession(connection, {
    ...options,
    rewrite: (url, body) => {
      if (!new URL(url).pathname.endsWith("/sync")) return body;
      let answer: unknown;
      try {
        answer = JSON.parse(body);
      } catch {
        // Left to the SDK, whose reading of a body that is not JSON fails as an unreadable answer.
        return body;
      }
      if (typeof answer !== "object" || answer === null || !("items" in answer)) return body;
      const { items: lifted, ...rest } = answer as { items: unknown };
      items = Array.isArray(lifted) ? lifted : [];
      return JSON.stringify(rest);
    },
  });
  const token = collection.syncState ?? FULL;
  const answer = await session.call(`syncing the tasks of "${collection.name}"`, (api) =>
    api.sync({ syncToken: token, resourceTypes: ["items"] }),
  );
  const full = token === FULL || answer.fullSync === true;
  const changed: RemoteObject[] = [];
  const removed: string[] = [];
  for (const item of items) {
    const header = itemHeader(item);
    // Without an id a task cannot be mirrored, named or removed later: nothing to keep.
    if (header === undefined) continue;
    const ours = header.project_id === collection.remoteId;
    if (!ours || header.is_deleted === true) {
      if (known.has(header.id)) removed.push(header.id);
      continue;
    }
    const mirrored = known.get(header.id);
    if (
      !full &&
      mirrored !== undefined &&
      header.updated_at !== undefined &&
      sameVersion(mirrored, header.updated_at)
    ) {
      continue;
    }
    changed.push(remoteTask(header.id, header.updated_at, JSON.stringify(item)));
  }
  return {
    changed,
    removed,
    full,
    syncState: answer.syncToken ?? null,
    requests: session.wire.requests(),
    bytes: session.wire.bytes(),
  };
}
