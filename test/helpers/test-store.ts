/**
 * What the core's tests store their data in: the in-memory ports by default (`describeInMemory`), or a real
 * database where a suite needs SQL (`describeEachDatabase`). The seeding and reading helpers below take
 * either and go through the core's ports wherever a port can do it, so one test body runs on both; the
 * names and arguments are those of the `db/queries` functions they stand in for.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe } from "vitest";
import type { Database } from "../../db/client.ts";
import { getEvent as getDbEvent } from "../../db/queries/events.ts";
import { addFeed as addDbFeed, saveFeedSync as saveDbFeedSync } from "../../db/queries/feeds.ts";
import { createNote as createDbNote } from "../../db/queries/notes.ts";
import { linkIdentity as linkDbIdentity } from "../../db/queries/users.ts";
import { saveCachedForecast as saveDbForecast } from "../../db/queries/weather.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import type {
  BriefingRun,
  CalendarEvent,
  ChatEventChanges,
  Conversation,
  Identity,
  LoggedMessage,
  NewChatEvent,
  NewLoggedMessage,
  NewTask,
  Platform,
  ProjectStatus,
  Receipt,
  TaskQuery,
  User,
} from "../../src/core/domain.ts";
import type { Ports, UserSettingsChanges } from "../../src/core/ports.ts";
import { createTestUser as createDbUser } from "./database.ts";
import { createMemoryPorts, createMemoryTables, type MemoryTables } from "./memory-ports/index.ts";
import { addMemoryFeed, saveMemoryFeedSync, saveMemoryForecast } from "./memory-ports/sources.ts";
import { insertMemoryUser, linkMemoryIdentity } from "./memory-ports/users.ts";

/** The core's ports in memory with the tables behind them, for seeding what no port writes. */
export interface MemoryStore {
  kind: "memory";
  tables: MemoryTables;
  ports: Ports;
}

export type TestStore = Database | MemoryStore;

export function createMemoryStore(): MemoryStore {
  const tables = createMemoryTables();
  return { kind: "memory", tables, ports: createMemoryPorts(tables) };
}

export function isMemoryStore(store: TestStore): store is MemoryStore {
  return (store as Partial<MemoryStore>).kind === "memory";
}

/** The core's ports over the store: the memory ports, or the database's stores. */
export function portsOf(store: TestStore): Ports {
  return isMemoryStore(store) ? store.ports : createDbPorts(store);
}

/**
 * A suite over one in-memory store, fresh for the suite (as `describeEachDatabase` gives each suite its own
 * database): create your own users rather than assuming an empty table.
 */
export function describeInMemory(name: string, suite: (getStore: () => MemoryStore) => void): void {
  describe(name, () => {
    let store: MemoryStore | undefined;
    beforeAll(() => {
      store = createMemoryStore();
    });
    suite(() => {
      if (!store) throw new Error("memory store not ready");
      return store;
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Seeding: what the CLI and the background syncs write.

let userCounter = 0;

/** A user with a unique name and `briefbot user add`'s defaults, as `helpers/database.ts`'s does. */
export async function createTestUser(
  store: TestStore,
  overrides: Partial<Omit<User, "id" | "createdAt">> = {},
): Promise<User> {
  if (!isMemoryStore(store)) return createDbUser(store, overrides);
  userCounter += 1;
  return insertMemoryUser(store.tables, {
    name: `user${userCounter}_${randomBytes(3).toString("hex")}`,
    timeZone: "Europe/London",
    ...overrides,
  });
}

export async function linkIdentity(
  store: TestStore,
  userId: number,
  account: { platform: Platform; externalUserId: string; chatId?: string | null; teamId?: string | null },
): Promise<Identity> {
  return isMemoryStore(store)
    ? linkMemoryIdentity(store.tables, userId, account)
    : linkDbIdentity(store, userId, account);
}

export async function addFeed(
  store: TestStore,
  values: { userId: number; url: string; topics?: readonly string[] },
): Promise<{ id: number; userId: number; title: string }> {
  return isMemoryStore(store) ? addMemoryFeed(store.tables, values) : addDbFeed(store, values);
}

export async function saveFeedSync(
  store: TestStore,
  feed: { id: number; userId: number; title: string },
  result: {
    title: string;
    items: ReadonlyArray<{
      guid: string;
      title: string;
      link: string | null;
      summary: string;
      publishedAt: Date | null;
    }>;
    etag: string | null;
    lastModified: string | null;
    at: Date;
  },
): Promise<void> {
  if (isMemoryStore(store)) saveMemoryFeedSync(store.tables, feed, result);
  else await saveDbFeedSync(store, feed, result);
}

export async function saveCachedForecast(
  store: TestStore,
  latitude: number,
  longitude: number,
  payload: Record<string, unknown>,
  fetchedAt: Date,
): Promise<void> {
  if (isMemoryStore(store)) saveMemoryForecast(store.tables, { latitude, longitude }, payload, fetchedAt);
  else await saveDbForecast(store, latitude, longitude, payload, fetchedAt);
}

/** A note; without `createdAt`, now (the column's default). */
export async function createNote(
  store: TestStore,
  values: { userId: number; body: string; title?: string; createdAt?: Date },
) {
  if (!isMemoryStore(store)) return createDbNote(store, values);
  return store.ports.records.createNote({ ...values, createdAt: values.createdAt ?? store.tables.now() });
}

// ---------------------------------------------------------------------------------------------------------
// Through the ports: the same call on either store.

export const createTask = (store: TestStore, task: NewTask) => portsOf(store).records.createTask(task);
export const getTask = (store: TestStore, userId: number, id: number) =>
  portsOf(store).records.getTask(userId, id);
export const listTasks = (store: TestStore, userId: number, query: TaskQuery) =>
  portsOf(store).records.listTasks(userId, query);
export const completeTask = (store: TestStore, userId: number, id: number, now: Date) =>
  portsOf(store).records.completeTask(userId, id, now);
export const createProject = (
  store: TestStore,
  project: { userId: number; name: string; summary?: string; status?: ProjectStatus },
) => portsOf(store).records.createProject(project);
export const createEvent = (store: TestStore, userId: number, event: NewChatEvent) =>
  portsOf(store).records.createEvent(userId, event);
/** One of the user's events as stored, with when it last changed (which the port's type leaves out). */
export async function getEvent(
  store: TestStore,
  userId: number,
  id: number,
): Promise<(CalendarEvent & { updatedAt: Date }) | undefined> {
  if (!isMemoryStore(store)) return getDbEvent(store, userId, id);
  const row = store.tables.events.find((event) => event.id === id && event.userId === userId);
  return row && structuredClone(row);
}
export const updateEvent = (
  store: TestStore,
  userId: number,
  id: number,
  changes: ChatEventChanges,
  timeZone: string,
  now: Date,
) => portsOf(store).records.updateEvent(userId, id, changes, timeZone, now);
export const deleteEvent = (store: TestStore, userId: number, id: number) =>
  portsOf(store).records.deleteEvent(userId, id);
export const getUser = (store: TestStore, userId: number) => portsOf(store).users.get(userId);
export const updateUser = (store: TestStore, userId: number, changes: UserSettingsChanges) =>
  portsOf(store).users.update(userId, changes);
export const getPendingAction = (store: TestStore, id: number) => portsOf(store).confirmations.get(id);
export const findConversation = (
  store: TestStore,
  platform: Conversation["platform"],
  threadKey: string,
): Promise<Conversation | undefined> => portsOf(store).conversations.find(platform, threadKey);

/** Any run by id, whoever's. */
export async function getRun(store: TestStore, runId: number): Promise<BriefingRun | undefined> {
  return (await portsOf(store).runQueue.get(runId))?.run;
}

export const listRunMessages = (store: TestStore, runId: number): Promise<LoggedMessage[]> =>
  portsOf(store).receipts.runMessages(runId);
export const listRunReceipts = (store: TestStore, runId: number): Promise<Receipt[]> =>
  portsOf(store).receipts.runReceipts(runId);
/** The last `limit` messages of a thread (default 60), oldest first. */
export const listConversationMessages = (store: TestStore, conversationId: number, limit = 60) =>
  portsOf(store).receipts.threadMessages(conversationId, limit);
export const insertMessages = (store: TestStore, messages: readonly NewLoggedMessage[]) =>
  portsOf(store).receipts.append(messages);

/** The retention roll-up, as the scheduler runs it. */
export async function rollUpOldRuns(
  store: TestStore,
  options: { now: Date; retentionDays: number; userId?: number },
): Promise<{ archivedRuns: number[] }> {
  return { archivedRuns: await portsOf(store).lifecycle.archiveOld(options) };
}
