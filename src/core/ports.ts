/**
 * What the core needs from storage and the platforms, as interfaces it owns. Methods take plain values
 * (ids, dates, small input objects) and never a database handle; `db/stores` implements them, and the
 * composition root assigns `createDbPorts(db)` to `Ports`, so the compiler checks the fit.
 *
 * A method scoped by `userId` never reads or changes another user's rows. Writes of a row that is not
 * there (or not the user's) throw an error whose message says so; lookups return undefined.
 */

import type { Accounts } from "./accounts/ports.ts";
import type {
  BriefingMode,
  BriefingRun,
  CachedForecast,
  CalendarEvent,
  ChatEventChanges,
  Conversation,
  ConversationPlatform,
  Delivery,
  DeliveryPlatform,
  EventQuery,
  EventView,
  FeedItemQuery,
  FeedItemView,
  Identity,
  InboundProgress,
  InboundUpdate,
  LinkedAccount,
  LoggedMessage,
  NewChatEvent,
  NewDelivery,
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
  RunState,
  SlotClaim,
  SlotName,
  SlotTimes,
  Task,
  TaskChanges,
  TaskQuery,
  User,
} from "./domain.ts";
import type { Invites } from "./linking/invites-port.ts";
import type { ForgetQuestions } from "./user-data/forget-flow.ts";
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
  /** Everyone, for the scheduler's tick. */
  list: () => Promise<User[]>;
  /** Throws when there is no such user. */
  update: (userId: number, changes: UserSettingsChanges) => Promise<User>;
}

/** Briefing runs as the core reads them; every change to a run goes through `RunLifecycle`. */
export interface RunStore {
  /** One of the user's runs; another user's id finds nothing. */
  ofUser: (userId: number, runId: number) => Promise<BriefingRun | undefined>;
  /** The (slot, local date) pairs among `localDates` that already have a scheduled run (of any state). */
  scheduledOn: (
    userId: number,
    localDates: readonly string[],
  ) => Promise<Array<{ slot: SlotName; localDate: string }>>;
  /** The user's most recent run that produced a briefing. */
  latestFinished: (userId: number) => Promise<BriefingRun | undefined>;
  /** The user's morning briefing of a local date that produced prose (scheduled or manual), latest first. */
  morningOf: (userId: number, localDate: string) => Promise<BriefingRun | undefined>;
}

/**
 * The one writer of a briefing run and of its outbox rows. Every change is a guarded transition made in a
 * single statement that checks the state it leaves — and, where a process owns the run (`claimedBy`),
 * that the caller still does — so when two processes race, exactly one moves the run and the other gets
 * undefined. Nothing else writes `briefing_runs` or `deliveries`.
 *
 *   (none) ─claim─▶ claimed ─start─▶ generating ─finish─▶ generated ─beginDelivery─▶ delivering ─settle─▶ delivered
 *     │                │ ▲              │                   │                           └──settle──▶ failed
 *     │ skipMissed     │ └──reclaim─────┤ (owner died)      │ skip (window closed)
 *     ▼                ▼ fail           ▼ fail              ▼
 *   skipped          failed           failed              skipped
 *
 *   (none) ─createManual─▶ generating   (/brief, the CLI)
 */
export interface RunLifecycle {
  /** The scheduler: (none) → claimed, once per (user, slot, local date) across every process. */
  claim: (slot: SlotClaim, owner: string, at: Date) => Promise<BriefingRun | undefined>;
  /** The scheduler: (none) → skipped, for a slot whose window closed before any run was claimed. */
  skipMissed: (slot: SlotClaim, owner: string, reason: string, at: Date) => Promise<BriefingRun | undefined>;
  /** The runner: (none) → generating, for a briefing asked for now. */
  createManual: (run: {
    userId: number;
    slot: SlotName;
    localDate: string;
    owner: string;
    at: Date;
  }) => Promise<BriefingRun>;
  /**
   * The runner: claimed → generating, by the run's owner; what an interrupted attempt stored goes with it.
   * Undefined when the run is not the user's, not claimed, or owned by another process.
   */
  start: (runId: number, userId: number, owner: string, at: Date) => Promise<BriefingRun | undefined>;
  /** The runner: generating → generated with its result, by the run's owner. */
  finish: (runId: number, owner: string, result: RunResult, at: Date) => Promise<BriefingRun | undefined>;
  /** The runner, or the scheduler for an orphan past its window: claimed | generating → failed. */
  fail: (runId: number, owner: string, reason: string, at: Date) => Promise<BriefingRun | undefined>;
  /**
   * The scheduler: claimed | generating → claimed by `owner`, taken from `previousOwner` whose process is
   * gone (its lease lapsed, or on the embedded database any earlier owner). Exactly one process wins.
   */
  reclaim: (
    runId: number,
    previousOwner: string,
    owner: string,
    at: Date,
  ) => Promise<BriefingRun | undefined>;
  /** The outbox: generated → skipped, ready only after its window closed. */
  skip: (runId: number, reason: string, at: Date) => Promise<BriefingRun | undefined>;
  /** The outbox: generated → delivering, adding one outbox row per recipient in the same statement. */
  beginDelivery: (runId: number, rows: readonly NewDelivery[], at: Date) => Promise<BriefingRun | undefined>;
  /**
   * The outbox: delivering → delivered (some row sent; the failures, if any, as the reason) or failed (none
   * sent), once no row is pending or sending. Undefined while one is, or when already settled.
   */
  settle: (runId: number, at: Date, reason?: string) => Promise<BriefingRun | undefined>;

  /**
   * An outbox row: pending → sending, by `owner`, once due, to `target` (where the sender posts it). Only
   * one process's attempt matches.
   */
  beginAttempt: (
    deliveryId: number,
    owner: string,
    at: Date,
    target?: string,
  ) => Promise<Delivery | undefined>;
  /** While sending: what of a split briefing is already posted, so any process's retry resumes after it. */
  recordProgress: (deliveryId: number, owner: string, progress: unknown) => Promise<void>;
  /** sending → sent: the platform confirmed the post. */
  delivered: (
    deliveryId: number,
    owner: string,
    receipt: { platformMessageId: string; target: string },
    at: Date,
  ) => Promise<Delivery | undefined>;
  /** sending → pending again: it surely did not reach the platform. */
  retryLater: (
    deliveryId: number,
    owner: string,
    error: string,
    nextAttemptAt: Date,
  ) => Promise<Delivery | undefined>;
  /** pending | sending → failed, for good. */
  failDelivery: (deliveryId: number, reason: string) => Promise<Delivery | undefined>;
  /**
   * sending → failed for rows whose sender's process is gone mid-call (its lease lapsed, or on the embedded
   * database any other process): nobody knows whether the post arrived, so it is never re-sent. Run ids.
   */
  failInterruptedSends: (owner: string, at: Date, everyOtherOwner: boolean) => Promise<number[]>;

  /** Retention: runs older than `retentionDays` leave every model context; their receipts are archived. */
  archiveOld: (options: { now: Date; retentionDays: number; userId?: number }) => Promise<number[]>;
}

/** What the scheduler and the outbox read to decide what to do next; `RunLifecycle` makes the changes. */
export interface RunQueue {
  /** "userId|slot|localDate" of every scheduled run on these local dates. */
  scheduledKeys: (localDates: readonly string[]) => Promise<Set<string>>;
  /**
   * Scheduled or manual runs claimed or generating whose owner's process is gone: no live lease, or (on the
   * embedded database, which one process owns) any owner but `owner`.
   */
  orphaned: (options: { owner: string; at: Date; everyOtherOwner: boolean }) => Promise<BriefingRun[]>;
  /** A run with its user's zone. */
  get: (runId: number) => Promise<{ run: BriefingRun; timeZone: string } | undefined>;
  /** Runs in these states, oldest first (generated runs never enqueued, delivering runs to settle). */
  inStates: (states: readonly RunState[]) => Promise<BriefingRun[]>;
  /** Pending outbox rows due by `at` on these platforms, with everything their send needs. */
  dueDeliveries: (options: {
    at: Date;
    platforms: readonly DeliveryPlatform[];
    limit: number;
    excludeIds: readonly number[];
  }) => Promise<DueDelivery[]>;
  deliveriesOf: (runId: number) => Promise<Delivery[]>;
}

/** A due outbox row with its run (the briefing's only copy) and the account it goes to. */
export interface DueDelivery {
  delivery: Delivery;
  run: BriefingRun;
  /** Undefined when the account was unlinked since. */
  recipient: Identity | undefined;
  /** The user's zone, for reasons written in local time. */
  timeZone: string;
}

/**
 * One holder per name across every process on one database, until the lease lapses: a process's heartbeat,
 * the one long poller of a bot token, the one fetcher of a source.
 */
export interface Leases {
  /** Takes `name` for `holder` until `at + ttlMs`, or renews it; false while another holder's is live. */
  acquire: (name: string, holder: string, ttlMs: number, at: Date) => Promise<boolean>;
  /** Gives it up (only the holder's own). */
  release: (name: string, holder: string) => Promise<void>;
  /** The live holder, if any. */
  holder: (name: string, at: Date) => Promise<string | undefined>;
  /**
   * Voids every lease but `holder`'s: on the embedded database, which one process owns, whatever an
   * earlier process held died with it. Returns how many were voided.
   */
  voidOthers: (holder: string) => Promise<number>;
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
export type SourceKind = "calendar" | "feeds" | "weather" | "accounts";

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

/** Whose a thread is, as someone else may be told it: a name and an account, nothing of the thread. */
export interface MessageOwner {
  userId: number;
  /** The briefing the thread follows; null for a thread of plain chat. */
  runId: number | null;
  /** The briefbot user's name. */
  name: string;
  /** Their account on the thread's platform (Slack U…, Telegram id), when they still have one. */
  externalUserId: string | undefined;
}

/**
 * What the platform adapters keep between updates. Keys (message keys, thread keys, event ids) are the
 * adapters' own encodings and opaque here.
 */
export interface PlatformState {
  /** The user behind a platform account; undefined for a stranger. */
  findAccount: (platform: Platform, externalUserId: string) => Promise<LinkedAccount | undefined>;
  /** The user's linked accounts, oldest first: where briefings can go. */
  accountsOf: (userId: number) => Promise<Identity[]>;
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
  /**
   * Whose thread a message belongs to, whoever asks (a briefing thread in a shared channel answers only its
   * owner, and tells anyone else whose it is). Never a way to the thread's content.
   */
  messageOwner: (platform: Platform, messageKey: string) => Promise<MessageOwner | undefined>;
}

/**
 * What reaches the bot from a platform, kept from before the platform is told it arrived (Telegram confirms a
 * polled update by the next `getUpdates`, a webhook post by its 200; Slack an event or button press by its
 * ack) until it is handled, so nothing is lost or handled twice when the process handling it dies: its
 * process's lease lapses and another process (or the next start) takes it over. The id is unique per
 * `source` (a platform and bot), so an update delivered again — fetched again after a takeover, re-posted by
 * Telegram, retried by Slack (X-Slack-Retry-Num) — is known and left alone. Exactly once, unless the process
 * dies between a reply and `markHandled`.
 */
export interface InboundUpdates {
  /**
   * Stores updates just fetched, claimed by `owner`; returns the ids new here, which `owner` handles. An id
   * already stored is someone's: handled, being handled, or left to reclaim.
   */
  store: (
    source: string,
    updates: readonly { updateId: string; payload: unknown }[],
    owner: string,
    at: Date,
  ) => Promise<string[]>;
  /** Unhandled and `owner`'s → handled (its payload dropped). False when not: reclaimed meanwhile, or done. */
  markHandled: (source: string, updateId: string, owner: string, at: Date) => Promise<boolean>;
  /**
   * Unhandled and `owner`'s → keeps `progress` (replacing what was kept) for whoever takes it over next.
   * False when not: reclaimed meanwhile, or done.
   */
  recordProgress: (
    source: string,
    updateId: string,
    owner: string,
    progress: InboundProgress,
  ) => Promise<boolean>;
  /**
   * Unhandled updates whose claimer's process is gone (no live lease, or — `everyOtherOwner`, the embedded
   * database — any claimer but `owner`) become `owner`'s, in one statement, so exactly one process takes
   * each, with the progress their claimer recorded. Oldest first.
   */
  reclaimOrphans: (
    source: string,
    options: { owner: string; at: Date; everyOtherOwner: boolean },
  ) => Promise<InboundUpdate[]>;
  /** Forgets updates handled before `before`; returns how many. */
  prune: (source: string, before: Date) => Promise<number>;
}

/** Everything the core reads and writes, as one value the composition root builds. */
export interface Ports {
  users: Users;
  runs: RunStore;
  lifecycle: RunLifecycle;
  runQueue: RunQueue;
  leases: Leases;
  receipts: ReceiptLog;
  conversations: Conversations;
  records: Records;
  confirmations: Confirmations;
  sources: Sources;
  platformState: PlatformState;
  inboundUpdates: InboundUpdates;
  invites: Invites;
  /** Everything stored about a user: export and forget. */
  userData: UserData;
  /** The open "are you sure?" questions of /forget. */
  forgetQuestions: ForgetQuestions;
  /** CalDAV and Todoist accounts and the mirror of what they hold. */
  accounts: Accounts;
}
