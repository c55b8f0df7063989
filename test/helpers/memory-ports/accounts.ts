/** The `Accounts` port in memory: account rows, the mirror, and the tasks and events derived from it. */

import type { Accounts } from "../../../src/core/accounts/ports.ts";
import type { Account, AccountCollection, DerivedObject } from "../../../src/core/domain.ts";
import { NotFoundError } from "../../../src/core/errors.ts";
import {
  type AccountRow,
  copyRow,
  type EventRow,
  type MemoryTables,
  removeTasks,
  removeWhere,
  type TaskRow,
} from "./tables.ts";

export function createMemoryAccounts(tables: MemoryTables): Accounts {
  const row = (accountId: number): AccountRow => {
    const found = tables.accounts.find((entry) => entry.id === accountId);
    if (!found) throw new NotFoundError(`no account ${accountId}`);
    return found;
  };
  const view = ({ secret: _secret, ...account }: AccountRow): Account => copyRow(account);
  const collectionOf = (account: AccountRow, collectionId: string): AccountCollection => {
    const collection = account.collections.find((entry) => entry.remoteId === collectionId);
    if (!collection) throw new NotFoundError(`account ${account.id} has no collection ${collectionId}`);
    return collection;
  };
  const derivedFrom =
    (accountId: number, collectionId: string, remoteIds: ReadonlySet<string>) =>
    (entry: TaskRow | EventRow) =>
      entry.accountId === accountId &&
      entry.accountCollectionId === collectionId &&
      remoteIds.has(entry.remoteId ?? "");

  /** The object a derived task or event came from, with its account. */
  function mirrored(item: TaskRow | EventRow) {
    if (!item.accountId) return undefined;
    const account = tables.accounts.find((entry) => entry.id === item.accountId);
    const object = tables.accountObjects.find(
      (entry) =>
        entry.accountId === item.accountId &&
        entry.collectionId === item.accountCollectionId &&
        entry.remoteId === item.remoteId,
    );
    if (!account || !object) return undefined;
    const { remoteId, etag, format, body } = object;
    return {
      account: view(account),
      collectionId: object.collectionId,
      object: { remoteId, etag, format, body },
    };
  }

  function drop(accountId: number, collectionId: string, remoteIds: ReadonlySet<string>): void {
    removeTasks(tables, derivedFrom(accountId, collectionId, remoteIds));
    removeWhere(tables.events, derivedFrom(accountId, collectionId, remoteIds));
    removeWhere(
      tables.accountObjects,
      (entry) =>
        entry.accountId === accountId && entry.collectionId === collectionId && remoteIds.has(entry.remoteId),
    );
  }

  function write(
    account: AccountRow,
    collection: AccountCollection,
    object: DerivedObject,
    at: Date,
  ): number[] {
    const stored = tables.accountObjects.find(
      (entry) =>
        entry.accountId === account.id &&
        entry.collectionId === collection.remoteId &&
        entry.remoteId === object.remoteId,
    );
    const { remoteId, etag, format, body } = object;
    if (stored) Object.assign(stored, { etag, format, body });
    else
      tables.accountObjects.push({
        id: tables.nextId("account_objects"),
        accountId: account.id,
        collectionId: collection.remoteId,
        remoteId,
        etag,
        format,
        body,
      });
    const link = {
      accountId: account.id,
      accountCollectionId: collection.remoteId,
      remoteId,
      sourceName: `${account.label} · ${collection.name}`,
    };
    const mine = derivedFrom(account.id, collection.remoteId, new Set([remoteId]));
    const existing = tables.tasks.filter(mine).sort((a, b) => a.id - b.id);
    const ids: number[] = [];
    object.derived.tasks.forEach((task, index) => {
      const values = {
        title: task.title,
        notes: task.notes,
        dueDate: task.dueDate,
        dueTime: task.dueTime,
        priority: task.priority,
        status: task.status,
        completedAt: task.completedAt,
        sourceName: link.sourceName,
        parentRemoteId: task.parentRemoteId,
        updatedAt: at,
      };
      const kept = existing[index];
      const id = kept?.id ?? tables.nextId("tasks");
      ids.push(id);
      if (kept) Object.assign(kept, values);
      else
        tables.tasks.push({
          ...link,
          ...values,
          id,
          userId: account.userId,
          projectId: null,
          parentId: null,
          createdAt: at,
        });
    });
    const extra = new Set(existing.slice(object.derived.tasks.length).map((task) => task.id));
    removeTasks(tables, (task) => extra.has(task.id));
    // Events keep their ids position by position, as the store does.
    const held = tables.events.filter(mine).sort((a, b) => a.id - b.id);
    object.derived.events.forEach((event, index) => {
      const values = {
        ...link,
        ...event,
        uid: remoteId,
        instanceKey: event.startsAt.toISOString(),
        updatedAt: at,
      };
      const kept = held[index];
      if (kept) Object.assign(kept, values);
      else
        tables.events.push({
          ...values,
          id: tables.nextId("events"),
          userId: account.userId,
          calendarId: null,
          timeZone: null,
          createdAt: at,
        });
    });
    const surplus = new Set(held.slice(object.derived.events.length).map((event) => event.id));
    removeWhere(tables.events, (event) => surplus.has(event.id));
    return ids;
  }

  /** As the database's linkParents: each subtask of the collection points at its parent's first task. */
  function linkParents(accountId: number, collectionId: string): void {
    const inCollection = tables.tasks.filter(
      (task) => task.accountId === accountId && task.accountCollectionId === collectionId,
    );
    for (const child of inCollection) {
      const parents = inCollection.filter(
        (task) => task.remoteId === child.parentRemoteId && task.remoteId !== child.remoteId,
      );
      child.parentId = parents.length > 0 ? Math.min(...parents.map((task) => task.id)) : null;
    }
  }

  return {
    async create(account) {
      const stored: AccountRow = {
        id: tables.nextId("accounts"),
        userId: account.userId,
        kind: account.kind,
        label: account.label,
        url: account.url,
        username: account.username,
        secret: { ...account.secret },
        collections: account.collections.map((collection) => ({ ...collection })),
        lastSyncAt: null,
        lastError: null,
        createdAt: account.createdAt,
      };
      if (!tables.users.some((user) => user.id === account.userId))
        throw new Error(`insert on "accounts" violates foreign key: no user ${account.userId}`);
      tables.accounts.push(stored);
      return view(stored);
    },
    list: async (userId) => tables.accounts.filter((entry) => entry.userId === userId).map(view),
    listAll: async () => tables.accounts.map(view),
    async get(userId, id) {
      const found = tables.accounts.find((entry) => entry.userId === userId && entry.id === id);
      return found && view(found);
    },
    async remove(userId, id) {
      const [gone] = removeWhere(tables.accounts, (entry) => entry.userId === userId && entry.id === id);
      if (!gone) return false;
      removeWhere(tables.accountObjects, (entry) => entry.accountId === id);
      removeWhere(tables.tasks, (entry) => entry.accountId === id);
      removeWhere(tables.events, (entry) => entry.accountId === id);
      return true;
    },
    secretOf: async (accountId) => ({ ...row(accountId).secret }),
    allSecrets: async () =>
      tables.accounts.map((entry) => ({ accountId: entry.id, secret: { ...entry.secret } })),
    async replaceSecrets(secrets) {
      // All or nothing, as the transaction does: every account is found before any changes.
      const rows = secrets.map(({ accountId }) => row(accountId));
      rows.forEach((entry, index) => {
        entry.secret = { ...(secrets[index]?.secret ?? entry.secret) };
      });
    },
    async setCollections(accountId, collections) {
      row(accountId).collections = collections.map((collection) => ({ ...collection }));
    },
    known: async (accountId, collectionId) =>
      new Map(
        tables.accountObjects
          .filter((entry) => entry.accountId === accountId && entry.collectionId === collectionId)
          .map((entry) => [entry.remoteId, entry.etag]),
      ),
    async objectOfTask(userId, taskId) {
      const task = tables.tasks.find((entry) => entry.userId === userId && entry.id === taskId);
      return task && mirrored(task);
    },
    async objectOfEvent(userId, eventId) {
      const event = tables.events.find((entry) => entry.userId === userId && entry.id === eventId);
      return event && mirrored(event);
    },
    eventsOfObject: async (accountId, collectionId, remoteId) =>
      tables.events
        .filter(derivedFrom(accountId, collectionId, new Set([remoteId])))
        .map((event) => event.id)
        .sort((a, b) => a - b),
    async applySync(accountId, collectionId, changes, at) {
      const account = row(accountId);
      const collection = collectionOf(account, collectionId);
      for (const object of changes.changed) write(account, collection, object, at);
      if (changes.changed.length > 0) linkParents(accountId, collectionId);
      const removed = new Set(changes.removed);
      if (changes.full) {
        const kept = new Set(changes.changed.map((object) => object.remoteId));
        for (const entry of tables.accountObjects)
          if (
            entry.accountId === accountId &&
            entry.collectionId === collectionId &&
            !kept.has(entry.remoteId)
          )
            removed.add(entry.remoteId);
      }
      drop(accountId, collectionId, removed);
      account.collections = account.collections.map((entry) =>
        entry.remoteId === collectionId ? { ...entry, syncState: changes.syncState } : entry,
      );
      account.lastSyncAt = at;
      account.lastError = null;
    },
    async recordSyncError(accountId, message, at) {
      const account = row(accountId);
      account.lastSyncAt = at;
      account.lastError = message;
    },
    async storeObject(accountId, collectionId, object) {
      const account = row(accountId);
      const ids = write(account, collectionOf(account, collectionId), object, tables.now());
      linkParents(accountId, collectionId);
      return ids;
    },
    objects: async (accountId) =>
      tables.accountObjects
        .filter((entry) => entry.accountId === accountId)
        .sort((a, b) => a.id - b.id)
        .map(({ collectionId, remoteId, etag, format, body }) => ({
          collectionId,
          object: { remoteId, etag, format, body },
        })),
    async dropObject(accountId, collectionId, remoteId) {
      drop(accountId, collectionId, new Set([remoteId]));
    },
  };
}
