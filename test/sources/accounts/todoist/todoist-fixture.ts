/**
 * A Todoist test server with one account's view of it: the connection the provider is given, its
 * "Personal" project as a collection, and a mirror kept the way the account store keeps it (remoteId →
 * object), so a test can sync twice and write against what the last sync read.
 */
import type {
  AccountCollection,
  AccountConnection,
  AccountProvider,
  CollectionChanges,
  RemoteObject,
} from "../../../../src/core/accounts/ports.ts";
import { startTodoistServer, type TodoistServer } from "../../../servers/todoist-server.ts";

export interface TodoistFixture {
  server: TodoistServer;
  connection: AccountConnection;
  collection: AccountCollection;
  mirror: Map<string, RemoteObject>;
  /** One sync of the collection, applied to the mirror and the collection's sync state. */
  sync: () => Promise<CollectionChanges>;
}

export async function todoistFixture(provider: AccountProvider): Promise<TodoistFixture> {
  const server = await startTodoistServer();
  const projectId = server.addProject("Personal");
  const connection: AccountConnection = { url: server.url, username: null, secret: server.token };
  const collection: AccountCollection = {
    remoteId: projectId,
    name: "Personal",
    holds: ["tasks"],
    enabled: true,
    syncState: null,
  };
  const mirror = new Map<string, RemoteObject>();
  return {
    server,
    connection,
    collection,
    mirror,
    sync: async () => {
      const known = new Map([...mirror].map(([id, object]) => [id, object.etag]));
      const changes = await provider.sync(connection, collection, known);
      if (changes.full) mirror.clear();
      for (const id of changes.removed) mirror.delete(id);
      for (const object of changes.changed) mirror.set(object.remoteId, object);
      collection.syncState = changes.syncState;
      return changes;
    },
  };
}

/** The test server listens on loopback, which accounts may not reach by default. */
export const LOOPBACK = { network: { allowPrivateNetworks: true, allowHosts: [] } };

export const options = {
  windowStart: new Date("2026-12-01T00:00:00Z"),
  windowEnd: new Date("2026-12-31T00:00:00Z"),
  timeZone: "Europe/Berlin",
};
