/**
 * One project's sync through Todoist's sync endpoint: the stored sync_token asks for what changed since
 * (one request, and nothing when nothing did); "*" on the first sync asks for everything, and so does
 * Todoist itself when it no longer knows the token (it answers `full_sync: true`).
 *
 * The token is the whole account's, not the project's: the answer lists every changed task, and this
 * keeps the project's. A task moved to another project leaves this one (removed); a deleted task comes
 * with `is_deleted: true`.
 *
 * So the projects of one account share an answer (`SyncAnswers`): the first project asks, and every other
 * one holding the same token reads that answer, so an account with five projects still makes one request,
 * not five each carrying every project's tasks (and spending Todoist's sync rate limit five times).
 *
 * The items are lifted out of the answer before the SDK reads it. The SDK checks the whole answer with one
 * strict zod parse, so a single task it cannot read would fail the sync of every other one; lifted out, each
 * task is kept as Todoist sent it and read on its own (derive), and an unreadable one is skipped alone.
 */

import { createHash } from "node:crypto";
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
/**
 * How long an answer is handed to the account's other projects: one account sync's span. An older one
 * would still be correct (the changes since its token, and the token after them), but it holds memory.
 */
const SHARED_FOR_MS = 60_000;

interface SyncAnswer {
  /** The tasks as Todoist sent them, lifted out before the SDK's parse. */
  items: unknown[];
  syncToken: string | null;
  fullSync: boolean;
  requests: number;
  bytes: number;
}

/** The last sync answer per account (API URL and token), for the account's other projects. */
export interface SyncAnswers {
  get: (
    connection: AccountConnection,
    collection: AccountCollection,
    token: string,
    ask: () => Promise<SyncAnswer>,
  ) => Promise<{ answer: SyncAnswer; asked: boolean }>;
}

export function createSyncAnswers(now: () => number = () => performance.now()): SyncAnswers {
  const last = new Map<string, { token: string; answer: SyncAnswer; at: number; served: Set<string> }>();
  return {
    async get(connection, collection, token, ask) {
      // Keyed by a digest: the API token itself is not kept as a key.
      const account = createHash("sha256").update(`${connection.url}\n${connection.secret}`).digest("hex");
      for (const [key, entry] of last) if (now() - entry.at > SHARED_FOR_MS) last.delete(key);
      const kept = last.get(account);
      // A project asking again with the same token (its last answer was not applied) asks the server.
      if (kept && kept.token === token && !kept.served.has(collection.remoteId)) {
        kept.served.add(collection.remoteId);
        return { answer: kept.answer, asked: false };
      }
      const answer = await ask();
      last.set(account, { token, answer, at: now(), served: new Set([collection.remoteId]) });
      return { answer, asked: true };
    },
  };
}

export async function syncProject(
  connection: AccountConnection,
  collection: AccountCollection,
  known: ReadonlyMap<string, string>,
  options: WireOptions = {},
  answers: SyncAnswers = createSyncAnswers(),
): Promise<CollectionChanges> {
  const token = collection.syncState ?? FULL;
  const { answer, asked } = await answers.get(connection, collection, token, () =>
    askSync(connection, collection, token, options),
  );
  const full = token === FULL || answer.fullSync;
  const changed: RemoteObject[] = [];
  const removed: string[] = [];
  for (const item of answer.items) {
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
    syncState: answer.syncToken,
    // A project that read another's answer cost nothing on the wire.
    requests: asked ? answer.requests : 0,
    bytes: asked ? answer.bytes : 0,
  };
}

async function askSync(
  connection: AccountConnection,
  collection: AccountCollection,
  token: string,
  options: WireOptions,
): Promise<SyncAnswer> {
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
  const answer = await session.call(`syncing the tasks of "${collection.name}"`, (api) =>
    api.sync({ syncToken: token, resourceTypes: ["items"] }),
  );
  return {
    items,
    syncToken: answer.syncToken ?? null,
    fullSync: answer.fullSync === true,
    requests: session.wire.requests(),
    bytes: session.wire.bytes(),
  };
}
