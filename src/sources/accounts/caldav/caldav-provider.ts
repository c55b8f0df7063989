/**
 * The `AccountProvider` for CalDAV servers (Nextcloud, Radicale, Fastmail, iCloud calendars): discovery,
 * incremental sync and conditional writes through tsdav, meanings through the calendar sources layer.
 * It never touches storage; the account service joins it to the store.
 */
import { randomUUID } from "node:crypto";
import type { AccountConnection, AccountProvider } from "../../../core/accounts/ports.ts";
import { CaldavError, type CaldavHttpOptions, createSessionFactory } from "./caldav-http.ts";
import { deriveCaldavObject } from "./derive-object.ts";
import { discoverCollections } from "./discover-collections.ts";
import { syncCaldavCollection } from "./sync-collection.ts";
import { editEvent, isSeries, newEvent, UnwritableEventError } from "./vevent-write.ts";
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
      return createIn(connection, collection.remoteId, (uid) => newTodo(draft, uid, now()));
    },
    async writeTask(connection, current, write) {
      const body = unwritable(() => editTodo(current.body, write, now()));
      return putObject(session(connection), current.remoteId, body, { etag: current.etag });
    },
    async createEvent(connection, collection, draft) {
      if (!collection.holds.includes("events")) {
        throw new CaldavError(`${collection.name}: this calendar does not take events`);
      }
      return createIn(connection, collection.remoteId, (uid) => newEvent(draft, uid, now()));
    },
    async writeEvent(connection, current, changes) {
      const body = unwritable(() => editEvent(current.body, changes, now()));
      return putObject(session(connection), current.remoteId, body, { etag: current.etag });
    },
    async deleteEvent(connection, current) {
      // Deleting the object of a series would delete every occurrence of it.
      if (unwritable(() => isSeries(current.body)))
        throw new CaldavError("it is one occurrence of a recurring series, which is not deleted from here");
      return deleteRemoteObject(session(connection), current);
    },
    isSeries: (object) => unwritable(() => isSeries(object.body)),
    deleteTask: (connection, current) => deleteRemoteObject(session(connection), current),
  };

  /** A new object named `<UID>.ics`, as Nextcloud, Thunderbird and DAVx5 name theirs, put with `If-None-Match: *`. */
  function createIn(connection: AccountConnection, collectionUrl: string, build: (uid: string) => string) {
    const uid = newUid();
    const url = new URL(`${encodeURIComponent(uid)}.ics`, withSlash(collectionUrl)).href;
    return putObject(
      session(connection),
      url,
      unwritable(() => build(uid)),
      { create: true },
    );
  }
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

function unwritable<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof UnwritableTaskError || error instanceof UnwritableEventError)
      throw new CaldavError(error.message, { cause: error });
    throw error;
  }
}
