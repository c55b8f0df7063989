/**
 * What the core needs from storage and the platforms, as interfaces it owns. Methods take plain values
 * (ids, dates, small input objects) and never a database handle; `db/stores` implements them, and the
 * composition root assigns `createDbPorts(db)` to `Ports`, so the compiler checks the fit.
 *
 * A method scoped by `userId` never reads or changes another user's rows. Writes of a row that is not
 * there (or not the user's) throw an error whose message says so; lookups return undefined.
 */
import type {
  BriefingMode,
  BriefingRun,
  CachedForecast,
  CalendarEvent,
  ChatEventChanges,
  Conversation,
  ConversationPlatform,
  EventQuery,
  EventView,
  FeedItemQuery,
  FeedItemView,
  Identity,
  LinkedAccount,
  LoggedMessage,
  NewChatEvent,
  NewLoggedMessage,
  NewPendingAction,
  NewTask,
  Note,
  PendingAction,
  Platform,
  Project,
  ProjectStatus,
  Receipt,
  RunResult,
  SlotName,
  SlotTimes,
  Task,
  TaskChanges,
  TaskQuery,
  User,
} from "./domain.ts";
import type { Invites } from "./linking/invites-port.ts";
import type { UserData } from "./user-data/port.ts";

/** What /settings may change on a user; `slots` merges into the stored slots (only the named ones change). */
export interface UserSettingsChanges {
  timeZone?: string;
  locationName?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  slots?: Partial<SlotTimes>;
  briefingMode?: BriefingMode;
}

export interface Users {
  get: (userId: number) => Promise<User | undefined>;
  /** Throws when there is no such user. */
  update: (userId: number, changes: UserSettingsChanges) => Promise<User>;
}

/** Briefing runs as the runner and the facade see them; claiming scheduled runs is the scheduler's. */
export interface RunStore {
  /** A manual run (/brief, the CLI), created already generating. */
  createManual: (run: {
    userId: number;
    slot: SlotName;
    localDate: string;
    at: Date;
  }) => Promise<BriefingRun>;
  /**
   * A run the scheduler claimed moves to generating; messages of an earlier attempt are dropped with it.
   * Throws for another user's run or a run that is no longer claimed.
   */
  start: (runId: number, userId: number, at: Date) => Promise<BriefingRun>;
  finish: (runId: number, result: RunResult, at: Date) => Promise<BriefingRun>;
  fail: (runId: number, reason: string, at: Date) => Promise<void>;
  /** One of the user's runs; another user's id finds nothing. */
  ofUser: (userId: number, runId: number) => Promise<BriefingRun | undefined>;
  /** The (slot, local date) pairs among `localDates` that already have a scheduled run (of any state). */
  scheduledOn: (
    userId: number,
    localDates: readonly string[],
  ) => Promise<Array<{ slot: SlotName; localDate: string }>>;
  /** The user's most recent run that produced a briefing. */
  latestFinished: (userId: number) => Promise<BriefingRun | undefined>;
  /** Retention: runs older than `retentionDays` leave every model context; their receipts are archived. */
  archiveOld: (options: { now: Date; retentionDays: number; userId?: number }) => Promise<number[]>;
}

/** Every turn, tool call and tool result of a run or thread; tool results are the receipts. */
export interface ReceiptLog {
  /** Stores the messages in order and returns the receipts (tool results) among them. */
  append: (messages: readonly NewLoggedMessage[]) => Promise<Receipt[]>;
  runMessages: (runId: number) => Promise<LoggedMessage[]>;
  /** The last `limit` messages of a conversation, oldest first. */
  threadMessages: (conversationId: number, limit: number) => Promise<LoggedMessage[]>;
  runReceipts: (runId: number) => Promise<Receipt[]>;
  /** Receipts of a run past retention; undefined when it was never archived. */
  archivedReceipts: (runId: number) => Promise<Receipt[] | undefined>;
}

export interface Conversations {
  find: (platform: ConversationPlatform, threadKey: string) => Promise<Conversation | undefined>;
  /**
   * The conversation of a thread, created on first use; per user, so two people in one thread never share
   * a context. A given `runId` is remembered when the conversation had none.
   */
  findOrCreate: (thread: {
    userId: number;
    platform: ConversationPlatform;
    threadKey: string;
    runId?: number | null;
    at: Date;
  }) => Promise<Conversation>;
}

/** The user's own records, as tools read and change them. */
export interface Records {
  listTasks: (userId: number, query: TaskQuery) => Promise<Task[]>;
  /** The true number of tasks a filter matches, past any list's limit. */
  countTasks: (userId: number, query: TaskQuery) => Promise<number>;
  getTask: (userId: number, id: number) => Promise<Task | undefined>;
  createTask: (task: NewTask) => Promise<Task>;
  updateTask: (userId: number, id: number, changes: TaskChanges, now: Date) => Promise<Task>;
  completeTask: (userId: number, id: number, now: Date) => Promise<Task>;
  /** Back to open, as Undo after a completion. */
  reopenTask: (userId: number, id: number, now: Date) => Promise<Task>;
  deleteTask: (userId: number, id: number) => Promise<Task>;

  listProjects: (userId: number, status?: ProjectStatus) => Promise<Project[]>;
  searchProjects: (userId: number, query: string) => Promise<Project[]>;
  /** Case-insensitive. */
  findProjectByName: (userId: number, name: string) => Promise<Project | undefined>;
  createProject: (project: {
    userId: number;
    name: string;
    summary?: string;
    status?: ProjectStatus;
  }) => Promise<Project>;
  updateProject: (
    userId: number,
    id: number,
    changes: { name?: string; summary?: string; status?: ProjectStatus },
    now: Date,
  ) => Promise<Project>;
  deleteProject: (userId: number, id: number) => Promise<Project>;

  listNotes: (userId: number, query: { since?: Date; limit: number }) => Promise<Note[]>;
  searchNotes: (userId: number, query: string) => Promise<Note[]>;
  createNote: (note: { userId: number; body: string; title?: string; createdAt: Date }) => Promise<Note>;
  deleteNote: (userId: number, id: number) => Promise<Note>;

  /** Any of the user's events, synced or created in chat. */
  getEvent: (userId: number, id: number) => Promise<CalendarEvent | undefined>;
  createEvent: (userId: number, event: NewChatEvent) => Promise<CalendarEvent>;
  /** Changes an event created in chat; undefined when there is no such event of this user. */
  updateEvent: (
    userId: number,
    id: number,
    changes: ChatEventChanges,
    timeZone: string,
    now: Date,
  ) => Promise<CalendarEvent | undefined>;
  /** Deletes an event created in chat; false when there is no such event of this user. */
  deleteEvent: (userId: number, id: number) => Promise<boolean>;
}

/** Destructive tool calls waiting for the user's Confirm / Cancel. */
export interface Confirmations {
  create: (action: NewPendingAction) => Promise<PendingAction>;
  get: (id: number) => Promise<PendingAction | undefined>;
  /** Takes a pending action out of "pending" for its owner, before expiry, exactly once. */
  claim: (
    id: number,
    userId: number,
    state: "confirmed" | "cancelled",
    at: Date,
  ) => Promise<PendingAction | undefined>;
  expire: (id: number, at: Date) => Promise<void>;
  recordResult: (id: number, result: string) => Promise<void>;
}

/** The kinds of source a briefing may refresh before the model looks. */
export type SourceKind = "calendar" | "feeds" | "weather";

/** How one kind of source stood after a refresh attempt. */
export interface SourceRefresh {
  source: SourceKind;
  /** fresh: young enough, not fetched; refreshed: fetched now; failed: the last good data stays; skipped: none to fetch. */
  status: "fresh" | "refreshed" | "failed" | "skipped";
  /** One line for people, in the user's zone ("could not reach the forecast service; using the forecast as of 06:12"). */
  detail?: string;
}

/** How one of the user's subscriptions last synced, so a receipt can say how old its data is. */
export interface SourceHealth {
  kind: "calendar" | "feed";
  id: number;
  /** The subscription's own name (may be empty). */
  name: string;
  /** The last fetch that stored data (or confirmed it unchanged); null when none ever did. */
  lastSuccessAt: Date | null;
  /** Why the latest attempt failed; null when it succeeded (or none was made). */
  lastError: string | null;
}

/**
 * The read side of calendars, feeds and weather as tools see them: what the syncs cached.
 * Reads never wait on the network.
 */
export interface Sources {
  events: (owner: { id: number; timeZone: string }, query: EventQuery) => Promise<EventView[]>;
  /** Newest first (undated items by when they were fetched). */
  feedItems: (userId: number, query: FeedItemQuery) => Promise<FeedItemView[]>;
  /** The cached forecast for a place, if one was fetched. */
  forecast: (place: { latitude: number; longitude: number }) => Promise<CachedForecast | undefined>;
  /** How the user's calendars and feeds last synced; absent where nothing records it. */
  health?: (userId: number) => Promise<SourceHealth[]>;
  /**
   * Brings the user's stale sources up to date before a briefing, concurrently, giving up at `deadline`
   * (what failed or was late keeps its last good data). `onStart` hears which kinds are being fetched,
   * once, before any network call; it is not called when everything is fresh. Absent where the edge cannot
   * fetch on the core's behalf (a briefing then reads what the background syncs left).
   */
  refresh?: (
    user: User,
    deadline: Date,
    onStart?: (sources: readonly SourceKind[]) => void,
  ) => Promise<SourceRefresh[]>;
}

/** Where a platform message sits: the run it belongs to and the root key of its thread. */
export interface MessageThread {
  userId: number;
  runId: number | null;
  threadKey: string;
}

/**
 * What the platform adapters keep between updates. Keys (message keys, thread keys, event ids) are the
 * adapters' own encodings and opaque here.
 */
export interface PlatformState {
  /** The user behind a platform account; undefined for a stranger. */
  findAccount: (platform: Platform, externalUserId: string) => Promise<LinkedAccount | undefined>;
  /** Records where to deliver (Telegram chat id, Slack DM channel) once the platform tells us. */
  rememberChat: (identityId: number, chatId: string) => Promise<void>;
  /** Linked accounts whose chat is not known yet. */
  identitiesWithoutChat: (platform: Platform) => Promise<Identity[]>;
  /** Links platform messages to a thread (and the run it follows up on); a known key keeps its first link. */
  linkMessages: (link: {
    platform: Platform;
    userId: number;
    runId: number | null;
    threadKey: string;
    messageKeys: readonly string[];
    at: Date;
  }) => Promise<void>;
  /** The thread a message belongs to, for this user only. */
  findMessage: (platform: Platform, messageKey: string, userId: number) => Promise<MessageThread | undefined>;
  /** True when this call claimed the event; false when someone (a retry, a replica) already did. */
  claimEvent: (platform: Platform, eventId: string, at: Date) => Promise<boolean>;
  /** Forgets claims older than `before`; returns how many. */
  pruneEvents: (platform: Platform, before: Date) => Promise<number>;
}

/** Everything the core reads and writes, as one value the composition root builds. */
export interface Ports {
  users: Users;
  runs: RunStore;
  receipts: ReceiptLog;
  conversations: Conversations;
  records: Records;
  confirmations: Confirmations;
  sources: Sources;
  platformState: PlatformState;
  invites: Invites;
  /** Everything stored about a user: export and forget. */
  userData: UserData;
}
