/**
 * The `Accounts` port over the database: account rows, the mirror of each server's objects, and the tasks
 * and events derived from it. Every change to the mirror rewrites what it derives in the same transaction,
 * so a briefing never reads a task whose object is gone or an object whose task is not there yet.
 */
import { and, asc, eq, inArray, isNotNull, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import {
  ACCOUNT_KINDS,
  type Account,
  type AccountCollection,
  type AccountKind,
  type DerivedObject,
  type NewAccount,
  type RemoteObject,
  type SealedSecret,
} from "../../src/core/domain.ts";
import { NotFoundError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type AccountRow, accountObjects, accounts, events, tasks } from "../schema/index.ts";

export function createAccounts(db: Database) {
  /** The mirrored object a derived task or event came from, with its account; undefined for a local one. */
  async function objectBehind(table: typeof tasks | typeof events, userId: number, id: number) {
    const [row] = await db
      .select({ object: accountObjects, account: accounts })
      .from(table)
      .innerJoin(accounts, eq(accounts.id, table.accountId))
      .innerJoin(
        accountObjects,
        and(
          eq(accountObjects.accountId, table.accountId),
          eq(accountObjects.collectionId, table.accountCollectionId),
          eq(accountObjects.remoteId, table.remoteId),
        ),
      )
      .where(and(eq(table.userId, userId), eq(table.id, id), isNotNull(table.accountId)));
    return row && mirrored(row);
  }
  return {
    async create(account: NewAccount): Promise<Account> {
      const [row] = await db
        .insert(accounts)
        .values({
          userId: account.userId,
          kind: account.kind,
          label: account.label,
          url: account.url,
          username: account.username,
          secretKeyId: account.secret.keyId,
          secretSealed: account.secret.sealed,
          collections: [...account.collections],
          createdAt: account.createdAt,
        })
        .returning();
      if (!row) throw new Error("account insert returned nothing");
      return toAccount(row);
    },
    async list(userId: number): Promise<Account[]> {
      const rows = await db
        .select()
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .orderBy(asc(accounts.id));
      return rows.map(toAccount);
    },
    async listAll(): Promise<Account[]> {
      return (await db.select().from(accounts).orderBy(asc(accounts.id))).map(toAccount);
    },
    async get(userId: number, id: number): Promise<Account | undefined> {
      const [row] = await db
        .select()
        .from(accounts)
        .where(and(eq(accounts.userId, userId), eq(accounts.id, id)));
      return row && toAccount(row);
    },
    async remove(userId: number, id: number): Promise<boolean> {
      // The mirror, the derived tasks and events go with it (ON DELETE CASCADE).
      const gone = await db
        .delete(accounts)
        .where(and(eq(accounts.userId, userId), eq(accounts.id, id)))
        .returning({ id: accounts.id });
      return gone.length > 0;
    },
    async secretOf(accountId: number): Promise<SealedSecret> {
      const [row] = await db
        .select({ keyId: accounts.secretKeyId, sealed: accounts.secretSealed })
        .from(accounts)
        .where(eq(accounts.id, accountId));
      if (!row) throw new NotFoundError(`no account ${accountId}`);
      return row;
    },
    async allSecrets(): Promise<{ accountId: number; secret: SealedSecret }[]> {
      const rows = await db
        .select({ accountId: accounts.id, keyId: accounts.secretKeyId, sealed: accounts.secretSealed })
        .from(accounts)
        .orderBy(asc(accounts.id));
      return rows.map(({ accountId, keyId, sealed }) => ({ accountId, secret: { keyId, sealed } }));
    },
    async replaceSecrets(secrets: readonly { accountId: number; secret: SealedSecret }[]): Promise<void> {
      await db.transaction(async (tx) => {
        for (const { accountId, secret } of secrets) {
          const changed = await tx
            .update(accounts)
            .set({ secretKeyId: secret.keyId, secretSealed: secret.sealed })
            .where(eq(accounts.id, accountId))
            .returning({ id: accounts.id });
          // One missing account undoes them all: a rotation is whole or not at all.
          if (changed.length === 0) throw new NotFoundError(`no account ${accountId}`);
        }
      });
    },
    async setCollections(accountId: number, collections: readonly AccountCollection[]): Promise<void> {
      const changed = await db
        .update(accounts)
        .set({ collections: [...collections] })
        .where(eq(accounts.id, accountId))
        .returning({ id: accounts.id });
      if (changed.length === 0) throw new NotFoundError(`no account ${accountId}`);
    },
    async known(accountId: number, collectionId: string): Promise<Map<string, string>> {
      const rows = await db
        .select({ remoteId: accountObjects.remoteId, etag: accountObjects.etag })
        .from(accountObjects)
        .where(and(eq(accountObjects.accountId, accountId), eq(accountObjects.collectionId, collectionId)));
      return new Map(rows.map((row) => [row.remoteId, row.etag]));
    },
    objectOfTask: (userId: number, taskId: number) => objectBehind(tasks, userId, taskId),
    objectOfEvent: (userId: number, eventId: number) => objectBehind(events, userId, eventId),
    async eventsOfObject(accountId: number, collectionId: string, remoteId: string): Promise<number[]> {
      const rows = await db
        .select({ id: events.id })
        .from(events)
        .where(
          and(
            eq(events.accountId, accountId),
            eq(events.accountCollectionId, collectionId),
            eq(events.remoteId, remoteId),
          ),
        )
        .orderBy(asc(events.id));
      return rows.map((row) => row.id);
    },
    async applySync(
      accountId: number,
      collectionId: string,
      changes: { changed: DerivedObject[]; removed: string[]; full: boolean; syncState: string | null },
      at: Date,
    ): Promise<void> {
      await db.transaction(async (tx) => {
        const account = await lockedAccount(tx, accountId);
        const collection = collectionOf(account, collectionId);
        for (const object of changes.changed) await writeObject(tx, account, collection, object, at);
        if (changes.changed.length > 0) await linkParents(tx, accountId, collectionId);
        const removed = new Set(changes.removed);
        if (changes.full) {
          // Everything the server has just came in `changed`; whatever else the mirror holds is gone there.
          const kept = new Set(changes.changed.map((object) => object.remoteId));
          const held = await tx
            .select({ remoteId: accountObjects.remoteId })
            .from(accountObjects)
            .where(
              and(eq(accountObjects.accountId, accountId), eq(accountObjects.collectionId, collectionId)),
            );
          for (const { remoteId } of held) if (!kept.has(remoteId)) removed.add(remoteId);
        }
        await dropObjects(tx, accountId, collectionId, [...removed]);
        const collections = account.collections.map((entry) =>
          entry.remoteId === collectionId ? { ...entry, syncState: changes.syncState } : entry,
        );
        await tx
          .update(accounts)
          .set({ collections, lastSyncAt: at, lastError: null })
          .where(eq(accounts.id, accountId));
      });
    },
    async recordSyncError(accountId: number, message: string, at: Date): Promise<void> {
      const changed = await db
        .update(accounts)
        .set({ lastSyncAt: at, lastError: message })
        .where(eq(accounts.id, accountId))
        .returning({ id: accounts.id });
      if (changed.length === 0) throw new NotFoundError(`no account ${accountId}`);
    },
    async storeObject(accountId: number, collectionId: string, object: DerivedObject): Promise<number[]> {
      return db.transaction(async (tx) => {
        const account = await lockedAccount(tx, accountId);
        const ids = await writeObject(tx, account, collectionOf(account, collectionId), object, new Date());
        await linkParents(tx, accountId, collectionId);
        return ids;
      });
    },
    async objects(accountId: number): Promise<{ collectionId: string; object: RemoteObject }[]> {
      const rows = await db
        .select()
        .from(accountObjects)
        .where(eq(accountObjects.accountId, accountId))
        .orderBy(asc(accountObjects.id));
      return rows.map((row) => ({ collectionId: row.collectionId, object: toObject(row) }));
    },
    async dropObject(accountId: number, collectionId: string, remoteId: string): Promise<void> {
      await db.transaction((tx) => dropObjects(tx, accountId, collectionId, [remoteId]));
    },
  };
}

type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

async function lockedAccount(tx: Tx, accountId: number): Promise<Account> {
  // FOR UPDATE: two syncs of one account (the lease should prevent it) still apply one after the other.
  const [row] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for("update");
  if (!row) throw new NotFoundError(`no account ${accountId}`);
  return toAccount(row);
}

function collectionOf(account: Account, collectionId: string): AccountCollection {
  const collection = account.collections.find((entry) => entry.remoteId === collectionId);
  if (!collection) throw new NotFoundError(`account ${account.id} has no collection ${collectionId}`);
  return collection;
}

/** Stores one object and rewrites what it derives; its tasks keep their ids, position by position. */
async function writeObject(
  tx: Tx,
  account: Account,
  collection: AccountCollection,
  object: DerivedObject,
  at: Date,
): Promise<number[]> {
  await tx
    .insert(accountObjects)
    .values({
      accountId: account.id,
      collectionId: collection.remoteId,
      remoteId: object.remoteId,
      etag: object.etag,
      format: object.format,
      body: object.body,
    })
    .onConflictDoUpdate({
      target: [accountObjects.accountId, accountObjects.collectionId, accountObjects.remoteId],
      set: { etag: object.etag, format: object.format, body: object.body },
    });
  const link = {
    accountId: account.id,
    accountCollectionId: collection.remoteId,
    remoteId: object.remoteId,
    sourceName: `${account.label} · ${collection.name}`,
  };
  const same = and(
    eq(tasks.accountId, account.id),
    eq(tasks.accountCollectionId, collection.remoteId),
    eq(tasks.remoteId, object.remoteId),
  );
  const existing = await tx.select({ id: tasks.id }).from(tasks).where(same).orderBy(asc(tasks.id));
  const ids: number[] = [];
  for (const [index, task] of object.derived.tasks.entries()) {
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
    if (kept) {
      await tx.update(tasks).set(values).where(eq(tasks.id, kept.id));
      ids.push(kept.id);
    } else {
      const [inserted] = await tx
        .insert(tasks)
        .values({ ...link, ...values, userId: account.userId, createdAt: at })
        .returning({ id: tasks.id });
      if (inserted) ids.push(inserted.id);
    }
  }
  const extra = existing.slice(object.derived.tasks.length).map((row) => row.id);
  if (extra.length > 0) await tx.delete(tasks).where(inArray(tasks.id, extra));

  // Events keep their ids position by position too, so an Undo or a follow-up names the same event.
  const sameEvent = and(
    eq(events.accountId, account.id),
    eq(events.accountCollectionId, collection.remoteId),
    eq(events.remoteId, object.remoteId),
  );
  const held = await tx.select({ id: events.id }).from(events).where(sameEvent).orderBy(asc(events.id));
  for (const [index, event] of object.derived.events.entries()) {
    const values = { ...link, ...event, uid: object.remoteId, instanceKey: event.startsAt.toISOString() };
    const kept = held[index];
    if (kept)
      await tx
        .update(events)
        .set({ ...values, updatedAt: at })
        .where(eq(events.id, kept.id));
    else await tx.insert(events).values({ ...values, userId: account.userId, createdAt: at, updatedAt: at });
  }
  const surplus = held.slice(object.derived.events.length).map((row) => row.id);
  if (surplus.length > 0) await tx.delete(events).where(inArray(events.id, surplus));
  return ids;
}

/**
 * Points every subtask of the collection at its parent's task, or at none while the parent is not here:
 * run after objects are written, so a child that came before its parent (or whose parent came back) is
 * linked too. A parent's removal needs no run: the foreign key clears its children's link. A parent in
 * another collection or account is never linked; servers keep subtasks beside their parent.
 */
async function linkParents(tx: Tx, accountId: number, collectionId: string): Promise<void> {
  const parent = alias(tasks, "parent");
  const found = tx
    .select({ id: sql<number>`min(${parent.id})` })
    .from(parent)
    .where(
      and(
        eq(parent.accountId, tasks.accountId),
        eq(parent.accountCollectionId, tasks.accountCollectionId),
        eq(parent.remoteId, tasks.parentRemoteId),
        ne(parent.remoteId, tasks.remoteId),
      ),
    );
  await tx
    .update(tasks)
    .set({ parentId: sql`(${found})` })
    .where(
      and(
        eq(tasks.accountId, accountId),
        eq(tasks.accountCollectionId, collectionId),
        sql`${tasks.parentId} is distinct from (${found})`,
      ),
    );
}

async function dropObjects(
  tx: Tx,
  accountId: number,
  collectionId: string,
  remoteIds: readonly string[],
): Promise<void> {
  if (remoteIds.length === 0) return;
  const ids = [...remoteIds];
  await tx
    .delete(tasks)
    .where(
      and(
        eq(tasks.accountId, accountId),
        eq(tasks.accountCollectionId, collectionId),
        inArray(tasks.remoteId, ids),
      ),
    );
  await tx
    .delete(events)
    .where(
      and(
        eq(events.accountId, accountId),
        eq(events.accountCollectionId, collectionId),
        inArray(events.remoteId, ids),
      ),
    );
  await tx
    .delete(accountObjects)
    .where(
      and(
        eq(accountObjects.accountId, accountId),
        eq(accountObjects.collectionId, collectionId),
        inArray(accountObjects.remoteId, ids),
      ),
    );
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    userId: row.userId,
    kind: accountKind(row.kind),
    label: row.label,
    url: row.url,
    username: row.username,
    collections: row.collections,
    lastSyncAt: row.lastSyncAt,
    lastError: row.lastError,
    createdAt: row.createdAt,
  };
}

function accountKind(kind: string): AccountKind {
  const known = ACCOUNT_KINDS.find((entry) => entry === kind);
  if (!known) throw new Error(`account row has an unknown kind "${kind}"`);
  return known;
}

function mirrored(row: { account: AccountRow; object: typeof accountObjects.$inferSelect }) {
  return {
    account: toAccount(row.account),
    collectionId: row.object.collectionId,
    object: toObject(row.object),
  };
}

function toObject(row: typeof accountObjects.$inferSelect): RemoteObject {
  return { remoteId: row.remoteId, etag: row.etag, format: row.format, body: row.body };
}
