/**
 * The `AccountProvider` for CalDAV servers (Nextcloud, Radicale, Fastmail, iCloud calendars): discovery,
 * incremental sync and conditional writes through tsdav, meanings through the calendar sources layer.
 * It never touches storage; the account service joins it to the store.
 */
import { randomUUID } from "node:crypto";
import type { AccountProvider } from "../../../core/accounts/ports.ts";
import { CaldavError, type CaldavHttpOptions, createSessionFactory } from "./caldav-http.ts";
import { deriveCaldavObject } from "./derive-object.ts";
import { discoverCollections } from "./discover-collections.ts";
import { syncCaldavCollection } from "./sync-collection.ts";
import { editTodo, newTodo, UnwritableTaskError } from "./vtodo-write.ts";
import { deleteRemoteObject, putObject } from "./write-object.ts";

export interface CaldavProviderOptions extends CaldavHttpOptions {
  /** For DTSTAMP and LAST-MODIFIED on writes; default the system clock. */
  now?: () => Date;
  /** Default `crypto.randomUUID`. */
  newUid?: () => string;
}

export function createCaldavProvider(options: CaldavProviderOptions): AccountProvider {
  const session = createSessionFactory(options);
  const now = options.now ?? (() => new Date());
  const newUid = options.newUid ?? randomUUID;
  return {
    kind: "caldav",
    discover: (connection) => discoverCollections(connection.url, session(connection)),
    sync: (connection, collection, known) => syncCaldavCollection(collection, known, session(connection)),
    derive: deriveCaldavObject,
    async createTask(connection, collection, draft) {
      if (!collection.holds.includes("tasks")) {
        throw new CaldavError(`${collection.name}: this calendar does not take tasks`);
      }
      const uid = newUid();
      const url = new URL(`${encodeURIComponent(uid)}.ics`, withSlash(collection.remoteId)).href;
      return putObject(
        session(connection),
        url,
        unwritable(() => newTodo(draft, uid, now())),
        { create: true },
      );
    },
    async writeTask(connection, current, write) {
      const body = unwritable(() => editTodo(current.body, write, now()));
      return putObject(session(connection), current.remoteId, body, { etag: current.etag });
    },
    deleteTask: (connection, current) => deleteRemoteObject(session(connection), current),
  };
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

function unwritable(build: () => string): string {
  try {
    return build();
  } catch (error) {
    if (error instanceof UnwritableTaskError) throw new CaldavError(error.message, { cause: error });
    throw error;
  }
}
