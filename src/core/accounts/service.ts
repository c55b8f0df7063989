/**
 * The account service: joins the store (`Accounts`), the providers and the cipher. It adds accounts
 * (discovery through the provider), syncs them collection by collection, and writes task and event
 * changes through to the server before the mirror takes them, so the server stays the source of truth. A
 * secret is opened only for the call that needs it and never appears in a message.
 */
import type { Clock } from "../clock.ts";
import type {
  Account,
  AccountKind,
  CalendarEvent,
  DerivedItems,
  RemoteCollection,
  RemoteObject,
  Task,
} from "../domain.ts";
import { BriefbotError, errorMessage, NotFoundError } from "../errors.ts";
import { addDays, localDate, startOfLocalDay } from "../local-time.ts";
import type { Logger } from "../logger.ts";
import type { Users } from "../ports.ts";
import { eventDifferences, eventFacts, quote } from "./event-facts.ts";
import {
  type AccountConnection,
  type AccountProvider,
  type Accounts,
  ASK_AGAIN_TEXT,
  ConflictError,
  type DerivedObject,
  type DeriveOptions,
  type EventChanges,
  type EventDraft,
  type EventTiming,
  type SecretCipher,
  type TaskDraft,
  type TaskWrite,
} from "./ports.ts";

/** The providers the composition root built, by kind. */
export interface ProviderRegistry {
  get: (kind: AccountKind) => AccountProvider | undefined;
}

export function providerRegistry(providers: readonly AccountProvider[]): ProviderRegistry {
  const byKind = new Map(providers.map((provider) => [provider.kind, provider]));
  return { get: (kind) => byKind.get(kind) };
}

export interface AccountServiceDeps {
  accounts: Accounts;
  users: Pick<Users, "get">;
  providers: ProviderRegistry;
  /** Undefined when no key is configured: every call that needs a secret refuses, in one line. */
  cipher: SecretCipher | undefined;
  clock: Clock;
  logger: Logger;
  /** The line refusals without a key give (the edge names its variable). */
  noKeyText?: string;
}

/** How one collection's sync went, for progress lines and the bench. */
export interface CollectionSyncReport {
  collectionId: string;
  name: string;
  changed: number;
  removed: number;
  full: boolean;
  /** Objects that could not be read, each with why; the rest were kept. */
  skipped: string[];
  requests: number;
  bytes: number;
}

export interface AccountSyncReport {
  accountId: number;
  collections: CollectionSyncReport[];
  /** Set when the sync failed; the mirror keeps its last good state. */
  error?: string;
}

/** The day before today to two weeks ahead, in the user's zone: the window ICS calendars use too. */
const WINDOW_PAST_DAYS = 1;
const WINDOW_FUTURE_DAYS = 14;

export function createAccountService(deps: AccountServiceDeps) {
  const { accounts, clock, logger } = deps;
  /** The window each account's objects were last derived in (its start day): re-derived when it moves. */
  const derivedFor = new Map<number, string>();

  const cipher = (): SecretCipher => {
    if (!deps.cipher)
      throw new BriefbotError("secret_key", deps.noKeyText ?? "account commands need a secret key");
    return deps.cipher;
  };
  const provider = (kind: AccountKind): AccountProvider => {
    const found = deps.providers.get(kind);
    if (!found) throw new BriefbotError("account_kind", `no provider for ${kind} accounts in this build`);
    return found;
  };
  const connection = async (account: Account): Promise<AccountConnection> => ({
    url: account.url,
    username: account.username,
    secret: cipher().open(await accounts.secretOf(account.id)),
  });
  const zoneOf = async (userId: number): Promise<string> => {
    const user = await deps.users.get(userId);
    if (!user) throw new NotFoundError(`no user ${userId}`);
    return user.timeZone;
  };
  const windowFor = (timeZone: string): DeriveOptions & { key: string } => {
    const today = localDate(clock.now(), timeZone);
    const first = addDays(today, -WINDOW_PAST_DAYS);
    return {
      key: `${first}|${timeZone}`,
      windowStart: startOfLocalDay(first, timeZone),
      windowEnd: startOfLocalDay(addDays(today, WINDOW_FUTURE_DAYS + 1), timeZone),
      timeZone,
    };
  };
  const derive = (account: Account, object: RemoteObject, options: DeriveOptions): DerivedObject => ({
    ...object,
    derived: provider(account.kind).derive(object, options),
  });
  const sourceName = (account: Account, collectionId: string) =>
    `${account.label} · ${account.collections.find((entry) => entry.remoteId === collectionId)?.name ?? collectionId}`;

  /** Objects derived for an older window (recurring events, due dates in a moved zone) are derived again. */
  async function rederiveIfMoved(account: Account, window: DeriveOptions & { key: string }): Promise<void> {
    // Unknown in this process (a restart) counts as moved: the mirror may have been derived days ago.
    if (derivedFor.get(account.id) === window.key) return;
    derivedFor.set(account.id, window.key);
    for (const { collectionId, object } of await accounts.objects(account.id)) {
      try {
        await accounts.storeObject(account.id, collectionId, derive(account, object, window));
      } catch (error) {
        logger.warn(
          { accountId: account.id, remoteId: object.remoteId, error: errorMessage(error) },
          "account object could not be derived again; it keeps what it showed",
        );
      }
    }
  }

  async function syncAccount(
    listed: Account,
    onProgress?: (report: CollectionSyncReport) => void,
  ): Promise<AccountSyncReport> {
    const report: AccountSyncReport = { accountId: listed.id, collections: [] };
    // The row as stored now, not as listed: a sync that ran since then moved the collections' positions,
    // and asking with the old one would fetch again what that sync already fetched.
    const account = await accounts.get(listed.userId, listed.id);
    if (!account) return report;
    try {
      const window = windowFor(await zoneOf(account.userId));
      const server = await connection(account);
      const kind = provider(account.kind);
      // The window moved since the last derive: the mirror is derived again before the new changes land.
      await rederiveIfMoved(account, window);
      for (const collection of account.collections.filter((entry) => entry.enabled)) {
        const known = await accounts.known(account.id, collection.remoteId);
        const changes = await kind.sync(server, collection, known);
        const skipped: string[] = [];
        const changed: DerivedObject[] = [];
        for (const object of changes.changed) {
          try {
            changed.push(derive(account, object, window));
          } catch (error) {
            // One unreadable object does not cost the others; the old copy (if any) stays in the mirror.
            const reason = `${object.remoteId}: ${errorMessage(error)}`;
            skipped.push(reason);
            logger.warn(
              { accountId: account.id, collection: collection.name, reason },
              "account object skipped",
            );
          }
        }
        const kept = new Set(changed.map((object) => object.remoteId));
        const unreadable = changes.changed.filter((object) => !kept.has(object.remoteId)).length;
        await accounts.applySync(
          account.id,
          collection.remoteId,
          {
            changed,
            removed: changes.removed,
            // A full answer with an unreadable object would drop its old copy: apply it as incremental.
            full: changes.full && unreadable === 0,
            // Nor may the position move past an object not yet stored, or it would never be fetched again.
            syncState: unreadable === 0 ? changes.syncState : collection.syncState,
          },
          clock.now(),
        );
        const line: CollectionSyncReport = {
          collectionId: collection.remoteId,
          name: collection.name,
          changed: changed.length,
          removed: changes.removed.length,
          full: changes.full,
          skipped,
          requests: changes.requests,
          bytes: changes.bytes,
        };
        report.collections.push(line);
        onProgress?.(line);
      }
      derivedFor.set(account.id, window.key);
    } catch (error) {
      report.error = errorMessage(error);
      await accounts.recordSyncError(account.id, report.error, clock.now());
      logger.warn({ accountId: account.id, error: report.error }, "account sync failed; the mirror stays");
    }
    return report;
  }

  /** Stores what the server holds now and tells the user what changed there; nothing was written. */
  async function conflict(
    account: Account,
    collectionId: string,
    before: ItemRef,
    error: ConflictError,
    window: DeriveOptions,
  ): Promise<never> {
    const where = sourceName(account, collectionId);
    const what = `${before.noun} ${before.id} "${before.title}"`;
    if (!error.current) {
      await accounts.dropObject(account.id, collectionId, before.remoteId);
      throw new ConflictError(
        `${what} was deleted on ${where} since it was read; nothing was written.`,
        undefined,
      );
    }
    const current = derive(account, error.current, window);
    await accounts.storeObject(account.id, collectionId, current);
    const { changes, facts } = before.compare(current.derived);
    throw new ConflictError(
      `${what} was changed on ${where} since it was read (${changes}); nothing was written. ${ASK_AGAIN_TEXT}`,
      error.current,
      facts && { ...facts, from: where },
    );
  }

  const taskRef = (task: Task, remoteId: string): ItemRef => ({
    noun: "task",
    id: task.id,
    title: task.title,
    remoteId,
    compare: ({ tasks: [now] }) =>
      now
        ? {
            changes: taskDifferences(task, now),
            facts: {
              id: task.id,
              title: now.title,
              due_date: now.dueDate,
              due_time: now.dueTime,
              priority: now.priority,
              status: now.status,
            },
          }
        : { changes: "it is no longer a task" },
  });

  const eventRef = (event: CalendarEvent, remoteId: string, zone: string): ItemRef => ({
    noun: "event",
    id: event.id,
    title: event.title,
    remoteId,
    compare: ({ events: [now] }) =>
      now
        ? { changes: eventDifferences(event, now, zone), facts: eventFacts(event.id, now, zone) }
        : { changes: "it is no longer on the calendar in the coming two weeks" },
  });

  /** The mirrored object of an account's event, refused when it is a recurring series (see vevent-write.ts). */
  async function eventObject(userId: number, event: CalendarEvent) {
    const found = await accounts.objectOfEvent(userId, event.id);
    if (found && provider(found.account.kind).isSeries?.(found.object))
      throw recurringEventRefusal({ ...event, sourceName: sourceName(found.account, found.collectionId) });
    return found;
  }

  /** The usual window, stretched to hold the event a write puts outside it, so the write derives it. */
  const windowWith = (zone: string, timing: EventTiming | undefined): DeriveOptions => {
    const window = windowFor(zone);
    if (!timing) return window;
    const start = timing.allDay ? startOfLocalDay(timing.startDate, zone) : timing.startsAt;
    return {
      ...window,
      windowStart: new Date(Math.min(window.windowStart.getTime(), start.getTime())),
      windowEnd: new Date(Math.max(window.windowEnd.getTime(), start.getTime() + 86_400_000)),
    };
  };

  /** The calendar-holding provider of an account, or a refusal naming the kind. */
  const eventWriter = (account: Account) => {
    const kind = provider(account.kind);
    const { createEvent, writeEvent, deleteEvent } = kind;
    if (!createEvent || !writeEvent || !deleteEvent)
      throw new BriefbotError("account_kind", `${account.kind} accounts hold no events to write`);
    return { createEvent, writeEvent, deleteEvent };
  };

  return {
    syncAccount,

    /** Every account, one after the other (the background schedule). */
    async syncAll(guard?: (account: Account, run: () => Promise<AccountSyncReport>) => Promise<unknown>) {
      for (const account of await accounts.listAll()) {
        const run = () => syncAccount(account);
        await (guard ? guard(account, run) : run());
      }
    },

    /** Discovery through the provider, then the account stored with its secret sealed. */
    async addAccount(input: {
      userId: number;
      kind: AccountKind;
      label: string;
      url: string;
      username: string | null;
      secret: string;
      /** Names or remote ids to enable; all when absent. */
      choose?: readonly string[];
    }): Promise<{ account: Account; found: RemoteCollection[] }> {
      const sealed = cipher().seal(input.secret);
      const found = await provider(input.kind).discover({
        url: input.url,
        username: input.username,
        secret: input.secret,
      });
      if (found.length === 0)
        throw new BriefbotError("account_empty", "the server lists no calendars or task lists");
      const choose = input.choose?.map((name) => name.toLowerCase());
      const unknown = (choose ?? []).filter(
        (name) =>
          !found.some((entry) => entry.name.toLowerCase() === name || entry.remoteId.toLowerCase() === name),
      );
      if (unknown.length > 0)
        throw new BriefbotError(
          "account_collection",
          `no collection named ${unknown.map((name) => `"${name}"`).join(", ")}; the server has ${found.map((entry) => `"${entry.name}"`).join(", ")}`,
        );
      const account = await accounts.create({
        userId: input.userId,
        kind: input.kind,
        label: input.label,
        url: input.url,
        username: input.username,
        secret: sealed,
        collections: found.map((entry) => ({
          ...entry,
          enabled:
            !choose ||
            choose.includes(entry.name.toLowerCase()) ||
            choose.includes(entry.remoteId.toLowerCase()),
          syncState: null,
        })),
        createdAt: clock.now(),
      });
      return { account, found };
    },

    /** Re-seals every stored secret with `next`, in one transaction; each must open with the current key. */
    async rotateKey(next: SecretCipher): Promise<number> {
      const current = cipher();
      const secrets = await accounts.allSecrets();
      const resealed = secrets.map(({ accountId, secret }) => ({
        accountId,
        // A secret already under the new key (a rotation run twice) is kept as it is.
        secret: secret.keyId === next.keyId ? secret : next.seal(current.open(secret)),
      }));
      await accounts.replaceSecrets(resealed);
      return resealed.length;
    },

    /**
     * A change to an account-backed task, written to the server first (conditional on the mirror's
     * version), then stored as the server answered. Undefined for a local task: the caller changes it.
     */
    async writeTask(userId: number, task: Task, write: TaskWrite): Promise<Task | undefined> {
      const found = await accounts.objectOfTask(userId, task.id);
      if (!found) return undefined;
      const { account, collectionId, object } = found;
      const window = windowFor(await zoneOf(userId));
      let written: RemoteObject;
      try {
        written = await provider(account.kind).writeTask(await connection(account), object, write);
      } catch (error) {
        if (error instanceof ConflictError)
          return conflict(account, collectionId, taskRef(task, object.remoteId), error, window);
        throw error;
      }
      await accounts.storeObject(account.id, collectionId, derive(account, written, window));
      return task;
    },

    async deleteTask(userId: number, task: Task): Promise<boolean> {
      const found = await accounts.objectOfTask(userId, task.id);
      if (!found) return false;
      const { account, collectionId, object } = found;
      try {
        await provider(account.kind).deleteTask(await connection(account), object);
      } catch (error) {
        if (error instanceof ConflictError)
          return conflict(
            account,
            collectionId,
            taskRef(task, object.remoteId),
            error,
            windowFor(await zoneOf(userId)),
          );
        throw error;
      }
      await accounts.dropObject(account.id, collectionId, object.remoteId);
      return true;
    },

    /**
     * Where a new task of the user goes: the first enabled task collection of their first account, or
     * undefined (a local task) when they have none.
     */
    async taskHome(userId: number): Promise<{ account: Account; collectionId: string } | undefined> {
      for (const account of await accounts.list(userId)) {
        const home = account.collections.find((entry) => entry.enabled && entry.holds.includes("tasks"));
        if (home) return { account, collectionId: home.remoteId };
      }
      return undefined;
    },

    /** Creates the task on the server (`If-None-Match: *`) and stores it; returns the object's remote id. */
    async createTask(
      home: { account: Account; collectionId: string },
      draft: TaskDraft,
    ): Promise<{ remoteId: string; taskIds: number[] }> {
      const { account, collectionId } = home;
      const collection = account.collections.find((entry) => entry.remoteId === collectionId);
      if (!collection) throw new NotFoundError(`account ${account.id} has no collection ${collectionId}`);
      const created = await provider(account.kind).createTask(await connection(account), collection, draft);
      const taskIds = await accounts.storeObject(
        account.id,
        collectionId,
        derive(account, created, windowFor(draft.timeZone)),
      );
      return { remoteId: created.remoteId, taskIds };
    },

    /**
     * Where a new event of the user goes: the first enabled event collection of their first account that
     * holds calendars (the order the server listed them in at discovery), or undefined (a chat event).
     */
    async eventHome(userId: number): Promise<{ account: Account; collectionId: string } | undefined> {
      for (const account of await accounts.list(userId)) {
        if (!deps.providers.get(account.kind)?.createEvent) continue;
        const home = account.collections.find((entry) => entry.enabled && entry.holds.includes("events"));
        if (home) return { account, collectionId: home.remoteId };
      }
      return undefined;
    },

    /** Creates the event on the server (`If-None-Match: *`) and stores it; the ids of what it derives. */
    async createEvent(
      home: { account: Account; collectionId: string },
      draft: EventDraft,
    ): Promise<{ remoteId: string; eventIds: number[] }> {
      const { account, collectionId } = home;
      const collection = account.collections.find((entry) => entry.remoteId === collectionId);
      if (!collection) throw new NotFoundError(`account ${account.id} has no collection ${collectionId}`);
      const created = await eventWriter(account).createEvent(await connection(account), collection, draft);
      const window = windowWith(draft.timeZone, draft.timing);
      await accounts.storeObject(account.id, collectionId, derive(account, created, window));
      return {
        remoteId: created.remoteId,
        eventIds: await accounts.eventsOfObject(account.id, collectionId, created.remoteId),
      };
    },

    /** True when an account's event is an occurrence of a recurring series, which is not written from here. */
    async eventIsSeries(userId: number, eventId: number): Promise<boolean> {
      const found = await accounts.objectOfEvent(userId, eventId);
      // A read: a build without the kind's provider shows the event as it is, and the write refuses.
      return found ? (deps.providers.get(found.account.kind)?.isSeries?.(found.object) ?? false) : false;
    },

    /** As `writeTask`, for an account's event; false when the event is not an account's. */
    async writeEvent(userId: number, event: CalendarEvent, changes: EventChanges): Promise<boolean> {
      const found = await eventObject(userId, event);
      if (!found) return false;
      const { account, collectionId, object } = found;
      const window = windowWith(changes.timeZone, changes.timing);
      let written: RemoteObject;
      try {
        written = await eventWriter(account).writeEvent(await connection(account), object, changes);
      } catch (error) {
        if (error instanceof ConflictError)
          return conflict(
            account,
            collectionId,
            eventRef(event, object.remoteId, changes.timeZone),
            error,
            window,
          );
        throw error;
      }
      await accounts.storeObject(account.id, collectionId, derive(account, written, window));
      return true;
    },

    async deleteEvent(userId: number, event: CalendarEvent): Promise<boolean> {
      const found = await eventObject(userId, event);
      if (!found) return false;
      const { account, collectionId, object } = found;
      try {
        await eventWriter(account).deleteEvent(await connection(account), object);
      } catch (error) {
        if (error instanceof ConflictError) {
          const zone = await zoneOf(userId);
          return conflict(
            account,
            collectionId,
            eventRef(event, object.remoteId, zone),
            error,
            windowFor(zone),
          );
        }
        throw error;
      }
      await accounts.dropObject(account.id, collectionId, object.remoteId);
      return true;
    },
  };
}

/**
 * An occurrence of a recurring series on an account is not changed or deleted from chat: the object holds
 * the whole series, and writing it would change every occurrence when the person meant one.
 */
export function recurringEventRefusal(
  event: Pick<CalendarEvent, "id" | "title" | "sourceName">,
): BriefbotError {
  return new BriefbotError(
    "recurring_event",
    `event ${event.id} "${event.title}" is one occurrence of a recurring series on ${event.sourceName ?? "an account"}; change it there (neither one occurrence nor the whole series is changed from here)`,
  );
}

export type AccountService = ReturnType<typeof createAccountService>;

/** The task or event a write was about, and how the server's copy of it differs. */
interface ItemRef {
  noun: "task" | "event";
  id: number;
  title: string;
  remoteId: string;
  compare: (now: DerivedItems) => { changes: string; facts?: Record<string, unknown> };
}

/** `title "A" → "B"; due 2026-03-02 → 2026-03-04`: what the server's copy says differently. */
export function taskDifferences(
  before: Pick<Task, "title" | "notes" | "dueDate" | "dueTime" | "priority" | "status">,
  now: Pick<Task, "title" | "notes" | "dueDate" | "dueTime" | "priority" | "status">,
): string {
  const fields = ["title", "dueDate", "dueTime", "priority", "status", "notes"] as const;
  const labels = {
    title: "title",
    dueDate: "due date",
    dueTime: "due time",
    priority: "priority",
    status: "status",
    notes: "notes",
  };
  const changed = fields
    .filter((field) => (before[field] ?? null) !== (now[field] ?? null))
    .map((field) => `${labels[field]} ${quote(before[field])} → ${quote(now[field])}`);
  return changed.length > 0 ? changed.join("; ") : "its version changed, not what it says";
}
