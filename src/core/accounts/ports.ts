/**
 * A person's own task and calendar servers (CalDAV, Todoist) as the core sees them. Three parts, each with
 * one owner:
 *
 * - `Accounts` (db/stores) owns the `accounts` rows and the mirror of what each server holds
 *   (`account_objects`: one row per remote object, its ETag and its body). The tasks and events the tools
 *   read are derived from the mirror by the store, in the same statement that changes it, so a briefing
 *   never sees a half-applied sync.
 * - `AccountProvider` (src/sources/accounts, one per kind) speaks the server's protocol: discovery,
 *   incremental sync, conditional writes. It never touches storage.
 * - `SecretCipher` (src/sources/accounts/secret-cipher.ts) turns a password or token into the stored
 *   ciphertext and back; the key comes from the environment at the edge, never from the core.
 *
 * The core's account service (sync, write-through, conflicts) joins them; nothing else changes an
 * account's rows.
 */
import type {
  Account,
  AccountCollection,
  AccountKind,
  DerivedItems,
  DerivedObject,
  NewAccount,
  RemoteCollection,
  RemoteObject,
  SealedSecret,
} from "../domain.ts";
import { BriefbotError } from "../errors.ts";

// The data shapes live in domain.ts, the vocabulary db/ may read; the interfaces between the parts stay here.

export {
  ACCOUNT_KINDS,
  type Account,
  type AccountCollection,
  type AccountKind,
  type CollectionContent,
  type DerivedEvent,
  type DerivedItems,
  type DerivedObject,
  type DerivedTask,
  type NewAccount,
  type RemoteCollection,
  type RemoteObject,
  type SealedSecret,
} from "../domain.ts";

export interface SecretCipher {
  /** The id of the key `seal` uses now. */
  readonly keyId: string;
  seal: (plain: string) => SealedSecret;
  /** Throws a `secret_key` error when the secret was sealed with another key or was tampered with. */
  open: (secret: SealedSecret) => string;
}

/** The window recurring events are expanded in, and the zone floating times and due dates are read in. */
export interface DeriveOptions {
  windowStart: Date;
  windowEnd: Date;
  timeZone: string;
}

/** What one collection's sync found since its stored position. */
export interface CollectionChanges {
  /** New or changed objects, with their bodies. */
  changed: RemoteObject[];
  /** remoteIds the server no longer has. */
  removed: string[];
  /** True when the server could not answer incrementally: `changed` is then everything it has. */
  full: boolean;
  /** The position to store for next time. */
  syncState: string | null;
  /** What the sync cost, for the bench and the logs. */
  requests: number;
  bytes: number;
}

/** A server to talk to, with the secret opened only for the call. */
export interface AccountConnection {
  url: string;
  username: string | null;
  secret: string;
}

/** What a write asks of a task; the provider maps it onto the object it last read. */
export type TaskWrite =
  | { kind: "complete"; at: Date }
  | { kind: "reopen" }
  | {
      kind: "update";
      changes: {
        title?: string;
        notes?: string;
        dueDate?: string | null;
        dueTime?: string | null;
        priority?: "low" | "normal" | "high";
      };
      /** The user's zone: a due time given is their wall time there, and is written in it. */
      timeZone: string;
    };

export interface TaskDraft {
  title: string;
  notes?: string;
  dueDate?: string | null;
  dueTime?: string | null;
  priority?: "low" | "normal" | "high";
  /** The user's zone, for a due time. */
  timeZone: string;
}

/** When an account's event happens: instants for a timed one, local dates (end exclusive) for all day. */
export type EventTiming =
  | { allDay: false; startsAt: Date; endsAt: Date }
  | { allDay: true; startDate: string; endDate: string };

/** A new event on an account's calendar. */
export interface EventDraft {
  title: string;
  location?: string;
  description?: string;
  timing: EventTiming;
  /** The user's zone: a timed event is written in it (TZID). */
  timeZone: string;
}

/** What an update asks of an account's event; the provider edits the object it last read. */
export interface EventChanges {
  title?: string;
  location?: string;
  description?: string;
  timing?: EventTiming;
  timeZone: string;
}

/**
 * Speaks one kind of server. Every write is conditional on the version the mirror holds (`If-Match`, or
 * `If-None-Match: *` on create; Todoist compares `updated_at` after a read): when the server has moved on,
 * it throws `ConflictError` carrying the server's current object and writes nothing.
 */
export interface AccountProvider {
  readonly kind: AccountKind;
  discover: (connection: AccountConnection) => Promise<RemoteCollection[]>;
  /** `known` is remoteId → etag of the mirror, so only changed objects are fetched. */
  sync: (
    connection: AccountConnection,
    collection: AccountCollection,
    known: ReadonlyMap<string, string>,
  ) => Promise<CollectionChanges>;
  /**
   * What an object means: parsed with the same rules as ICS subscriptions (recurrence budgets, zones,
   * per-item isolation). Throws a parse error for an object it cannot read; the sync skips that object
   * and keeps the rest.
   */
  derive: (object: RemoteObject, options: DeriveOptions) => DerivedItems;
  createTask: (
    connection: AccountConnection,
    collection: RemoteCollection,
    draft: TaskDraft,
  ) => Promise<RemoteObject>;
  writeTask: (
    connection: AccountConnection,
    current: RemoteObject,
    write: TaskWrite,
  ) => Promise<RemoteObject>;
  deleteTask: (connection: AccountConnection, current: RemoteObject) => Promise<void>;
  /** Event writes, for the kinds whose servers hold calendars (CalDAV); absent for Todoist. */
  createEvent?: (
    connection: AccountConnection,
    collection: RemoteCollection,
    draft: EventDraft,
  ) => Promise<RemoteObject>;
  writeEvent?: (
    connection: AccountConnection,
    current: RemoteObject,
    changes: EventChanges,
  ) => Promise<RemoteObject>;
  deleteEvent?: (connection: AccountConnection, current: RemoteObject) => Promise<void>;
  /** True when the object is a recurring series (RRULE, RDATE or overrides), which is not written from here. */
  isSeries?: (object: RemoteObject) => boolean;
}

/**
 * How a conflict's message ends when the object is still there: the model passes it on in chat, and a
 * Confirm pressed on the stale version replaces it with a fresh Confirm (`chat/confirmations.ts`).
 */
export const ASK_AGAIN_TEXT = "Ask again with the new values if you still want it.";

/** The server's object changed since the mirror read it: nothing was written. */
export class ConflictError extends BriefbotError<"conflict"> {
  constructor(
    message: string,
    /** The object as the server holds it now; undefined when it was deleted there. */
    readonly current: RemoteObject | undefined,
    /** What the server's copy says, as a tool shows a task, for the reply that tells the user. */
    facts?: Record<string, unknown>,
  ) {
    super("conflict", message, facts ? { facts } : undefined);
  }
}

/** The account rows and the mirror; the only writer of both. */
export interface Accounts {
  create: (account: NewAccount) => Promise<Account>;
  list: (userId: number) => Promise<Account[]>;
  /** Every account, for the background sync. */
  listAll: () => Promise<Account[]>;
  get: (userId: number, id: number) => Promise<Account | undefined>;
  /** Deletes the account, its mirror and the tasks and events derived from it; false when there was none. */
  remove: (userId: number, id: number) => Promise<boolean>;
  secretOf: (accountId: number) => Promise<SealedSecret>;
  /** Every sealed secret, for key rotation: re-sealed in one transaction by `replaceSecrets`. */
  allSecrets: () => Promise<{ accountId: number; secret: SealedSecret }[]>;
  replaceSecrets: (secrets: readonly { accountId: number; secret: SealedSecret }[]) => Promise<void>;
  setCollections: (accountId: number, collections: readonly AccountCollection[]) => Promise<void>;
  /** remoteId → etag of what the mirror holds for one collection. */
  known: (accountId: number, collectionId: string) => Promise<Map<string, string>>;
  /** The mirrored object behind a derived task, with its account and collection. */
  objectOfTask: (
    userId: number,
    taskId: number,
  ) => Promise<{ account: Account; collectionId: string; object: RemoteObject } | undefined>;
  /** The mirrored object behind a derived event, as `objectOfTask`. */
  objectOfEvent: (
    userId: number,
    eventId: number,
  ) => Promise<{ account: Account; collectionId: string; object: RemoteObject } | undefined>;
  /** The ids of the events one mirrored object derives, oldest first. */
  eventsOfObject: (accountId: number, collectionId: string, remoteId: string) => Promise<number[]>;
  /**
   * Applies one collection's sync in one transaction: the mirror rows, the derived tasks and events, the
   * collection's new sync state and the account's lastSyncAt / lastError.
   */
  applySync: (
    accountId: number,
    collectionId: string,
    changes: { changed: DerivedObject[]; removed: string[]; full: boolean; syncState: string | null },
    at: Date,
  ) => Promise<void>;
  /** Records a failed sync's reason; the mirror keeps its last good state. */
  recordSyncError: (accountId: number, message: string, at: Date) => Promise<void>;
  /** Stores one object a write returned, with what it means, as the sync would; the ids of its tasks. */
  storeObject: (accountId: number, collectionId: string, object: DerivedObject) => Promise<number[]>;
  /** Every mirrored object of the account, to derive again when the expansion window has moved on. */
  objects: (accountId: number) => Promise<{ collectionId: string; object: RemoteObject }[]>;
  dropObject: (accountId: number, collectionId: string, remoteId: string) => Promise<void>;
}
