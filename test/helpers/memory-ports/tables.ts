/**
 * The rows the in-memory ports share, table by table, as the database keeps them: one `MemoryTables` is one
 * database. Several ports read one table (the run queue joins users, an orphan check reads leases), so the
 * ports take the tables rather than keeping their own state. Ids come from one sequence per table, as
 * `serial` columns do.
 */
import type {
  Account,
  BriefingRun,
  CalendarEvent,
  Conversation,
  Delivery,
  Identity,
  InboundUpdate,
  LoggedMessage,
  Note,
  PendingAction,
  Platform,
  Project,
  Receipt,
  RemoteObject,
  SealedSecret,
  Task,
  User,
} from "../../../src/core/domain.ts";

/** A task row: derived ones also name the collection and object they come from. */
export interface TaskRow extends Task {
  accountCollectionId?: string | null;
  remoteId?: string | null;
  parentRemoteId?: string | null;
}

export interface AccountRow extends Account {
  secret: SealedSecret;
}

export interface AccountObjectRow extends RemoteObject {
  id: number;
  accountId: number;
  collectionId: string;
}

/** A run row: the domain's run and the columns only the store keeps. */
export interface RunRow extends BriefingRun {
  conversationId: number | null;
  updatedAt: Date;
}

export interface LeaseRow {
  name: string;
  holder: string;
  acquiredAt: Date;
  expiresAt: Date;
}

/** A stored event: synced ones carry their calendar's uid and occurrence key; chat ones `chat-…`. */
export interface EventRow extends CalendarEvent {
  uid: string;
  instanceKey: string;
  timeZone: string | null;
  /** Set on an occurrence derived from an account's object. */
  accountCollectionId?: string | null;
  remoteId?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CalendarRow {
  id: number;
  userId: number;
  source: string;
  name: string;
  lastSyncAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

export interface FeedRow {
  id: number;
  userId: number;
  url: string;
  title: string;
  topics: string[];
  lastSyncAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  itemCount: number;
  createdAt: Date;
}

export interface FeedItemRow {
  id: number;
  userId: number;
  feedId: number;
  guid: string;
  title: string;
  link: string | null;
  summary: string;
  publishedAt: Date | null;
  fetchedAt: Date;
}

export interface ForecastRow {
  latitude: number;
  longitude: number;
  payload: Record<string, unknown>;
  fetchedAt: Date;
}

export interface PlatformMessageRow {
  platform: Platform;
  messageKey: string;
  userId: number;
  runId: number | null;
  threadKey: string;
  createdAt: Date;
}

export interface InboundUpdateRow extends InboundUpdate {
  source: string;
}

export interface InviteRow {
  id: number;
  userId: number;
  codeHash: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface LinkAttemptRow {
  id: number;
  platform: Platform;
  externalUserId: string;
  attemptedAt: Date;
}

export interface ArchiveRow {
  runId: number;
  userId: number;
  /** As the database keeps them: JSON, so `at` is text. */
  receipts: Array<Omit<Receipt, "at"> & { at: string }>;
  archivedAt: Date;
}

export interface MemoryTables {
  users: User[];
  identities: Identity[];
  runs: RunRow[];
  deliveries: Delivery[];
  leases: Map<string, LeaseRow>;
  messages: LoggedMessage[];
  runArchives: ArchiveRow[];
  conversations: Conversation[];
  pendingActions: PendingAction[];
  tasks: TaskRow[];
  accounts: AccountRow[];
  accountObjects: AccountObjectRow[];
  projects: Project[];
  notes: Note[];
  calendars: CalendarRow[];
  events: EventRow[];
  feeds: FeedRow[];
  feedItems: FeedItemRow[];
  forecasts: ForecastRow[];
  platformMessages: PlatformMessageRow[];
  /** "source|updateId" → the stored update. */
  inboundUpdates: Map<string, InboundUpdateRow>;
  invites: InviteRow[];
  linkAttempts: LinkAttemptRow[];
  /** The next id per table, as a serial column hands them out. */
  nextId: (table: string) => number;
  /** What a column's `defaultNow()` gives when a write names no time: the wall clock, as in the database. */
  now: () => Date;
}

export function createMemoryTables(options: { now?: () => Date } = {}): MemoryTables {
  const sequences = new Map<string, number>();
  return {
    users: [],
    identities: [],
    runs: [],
    deliveries: [],
    leases: new Map(),
    messages: [],
    runArchives: [],
    conversations: [],
    pendingActions: [],
    tasks: [],
    accounts: [],
    accountObjects: [],
    projects: [],
    notes: [],
    calendars: [],
    events: [],
    feeds: [],
    feedItems: [],
    forecasts: [],
    platformMessages: [],
    inboundUpdates: new Map(),
    invites: [],
    linkAttempts: [],
    nextId(table) {
      const next = (sequences.get(table) ?? 0) + 1;
      sequences.set(table, next);
      return next;
    },
    now: options.now ?? (() => new Date()),
  };
}

/**
 * A copy of a row, as a query returns one: callers may change what they got without changing the table,
 * and the table changing later does not change what they hold. Dates and JSON values are copied too.
 */
export function copyRow<ROW>(row: ROW): ROW {
  return structuredClone(row);
}

/** Removes the rows matching `doomed` from `rows` in place; returns them. */
export function removeWhere<ROW>(rows: ROW[], doomed: (row: ROW) => boolean): ROW[] {
  const removed: ROW[] = [];
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index] as ROW;
    if (doomed(row)) {
      removed.unshift(row);
      rows.splice(index, 1);
    }
  }
  return removed;
}

/** A unique index refused a row: the message names the index, as PostgreSQL's does. */
export class UniqueViolation extends Error {
  readonly code = "23505";
  constructor(index: string) {
    super(`duplicate key value violates unique constraint "${index}"`);
    this.name = "UniqueViolation";
  }
}

/** Deletes tasks as the database does: their subtasks stay, without a parent (on delete set null). */
export function removeTasks(tables: MemoryTables, doomed: (row: TaskRow) => boolean): TaskRow[] {
  const gone = removeWhere(tables.tasks, doomed);
  const ids = new Set(gone.map((task) => task.id));
  for (const task of tables.tasks) if (task.parentId !== null && ids.has(task.parentId)) task.parentId = null;
  return gone;
}
