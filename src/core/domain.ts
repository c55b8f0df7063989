/**
 * The core's own types: what a user, a run, a receipt, a task or an event is, as the briefing runner, chat
 * and the tools use them. Plain TypeScript; `db/` stores rows of the same shape and the composition root
 * (`composeCore`) checks that its stores fit the ports in `ports.ts`.
 */

// ---------------------------------------------------------------------------------------------------------
// Users and their platform accounts.

export const SLOT_NAMES = ["morning", "midday", "afternoon", "evening"] as const;
export type SlotName = (typeof SLOT_NAMES)[number];
/** Local "HH:MM" per slot; null means the slot is off. */
export type SlotTimes = Record<SlotName, string | null>;
export const DEFAULT_SLOT_TIMES: SlotTimes = {
  morning: "07:00",
  midday: "12:30",
  afternoon: "16:30",
  evening: null,
};

/** The one check that a string names a briefing slot. */
export function isSlotName(value: string): value is SlotName {
  return (SLOT_NAMES as readonly string[]).includes(value);
}

export const BRIEFING_MODES = ["agentic", "legacy"] as const;
export type BriefingMode = (typeof BRIEFING_MODES)[number];

export interface User {
  id: number;
  name: string;
  timeZone: string;
  locationName: string | null;
  latitude: number | null;
  longitude: number | null;
  /** Free text: tone, interests. */
  profile: string;
  slots: SlotTimes;
  briefingMode: BriefingMode;
  /** Overrides the route's model for this user's requests. */
  preferredModel: string | null;
  createdAt: Date;
}

/** Platforms a person can link an account on. */
export const PLATFORMS = ["telegram", "slack"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** A platform account linked to a user; the only way a platform message reaches user data. */
export interface Identity {
  id: number;
  userId: number;
  platform: Platform;
  /** Telegram numeric user id, or Slack user id (U…). */
  externalUserId: string;
  /** Telegram private chat id, or Slack DM channel (D…) once known. */
  chatId: string | null;
  /** Slack team (T…); null on Telegram. */
  teamId: string | null;
  createdAt: Date;
}

export interface LinkedAccount {
  user: User;
  identity: Identity;
}

// ---------------------------------------------------------------------------------------------------------
// Briefing runs and what they leave behind.

export const RUN_STATES = [
  "claimed",
  "generating",
  "generated",
  "delivering",
  "delivered",
  "failed",
  "skipped",
] as const;
export type RunState = (typeof RUN_STATES)[number];

/** schedule: claimed by the scheduler (once per user/slot/date); manual: /brief or the CLI. */
export const RUN_TRIGGERS = ["schedule", "manual"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** How the prose was written; digest means code wrote it from receipts. */
export const RUN_MODES = ["agentic", "legacy", "digest"] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** The grounding check's verdict, stored on the run. */
export interface GroundingVerdict {
  /** Claims found in the text delivered (or, for a digest, in the last draft checked). */
  claimsChecked: number;
  /** Every claim caught unbacked along the way, as written. */
  unbacked: string[];
  /**
   * none: delivered as written; corrected: the corrective turn's rewrite; sentences_removed: a draft
   * without its unbacked sentences; draft_with_digest: the rewrite failed, so the earlier draft (trimmed)
   * with a digest of the receipts; digest: nothing backed was left, so a plain answer from the receipts.
   */
  action: "none" | "corrected" | "sentences_removed" | "draft_with_digest" | "digest";
  /** Corrective turns asked for (0 or 1). */
  corrections?: number;
  /** Sentences taken out of the delivered text. */
  removed?: number;
  /** Each sentence of the text judged last: its claims, the receipt behind each, or why it was removed. */
  sentences?: SentenceVerdict[];
}

/** One sentence as the gate judged it. */
export interface SentenceVerdict {
  text: string;
  /** False when the sentence was removed (or the whole text gave way to a digest). */
  kept: boolean;
  claims: ClaimVerdict[];
}

/** One claim of a sentence: what it says, and the receipt behind it or why none is. */
export interface ClaimVerdict {
  kind: string;
  text: string;
  backed: boolean;
  /** The receipt (stored tool result) that backs it, when one alone does. */
  receipt?: { id: number; tool: string };
  /** Why it is unbacked. */
  reason?: string;
}

/** One check of a briefing's status row ("✓ checked calendar"). */
export interface StatusCheck {
  label: string;
  ok: boolean;
}

export interface BriefingRun {
  id: number;
  userId: number;
  slot: SlotName;
  /** The user's local date the run is for ("YYYY-MM-DD"). */
  localDate: string;
  trigger: RunTrigger;
  state: RunState;
  reason: string | null;
  mode: RunMode | null;
  route: string | null;
  endpoint: string | null;
  model: string | null;
  turns: number;
  toolCalls: number;
  promptTokens: number;
  evalTokens: number;
  timings: Record<string, number>;
  grounding: GroundingVerdict | null;
  prose: string | null;
  /** The status row's checks, fixed when the briefing was written; null before. */
  checks: StatusCheck[] | null;
  /** The process that claimed (or created) the run and may move it; another process reclaims it only once that one's lease lapsed. */
  claimedBy: string | null;
  claimedAt: Date;
  /** Scheduled runs: past this instant the briefing is not worth sending (set when claimed); null for manual runs. */
  notAfter: Date | null;
  generatedAt: Date | null;
  deliveredAt: Date | null;
  /** Set by the retention roll-up: the run's messages have left every model context. */
  archivedAt: Date | null;
}

/** What a finished generation writes on its run. */
export interface RunResult {
  mode: RunMode;
  route: string;
  endpoint: string | null;
  model: string | null;
  turns: number;
  toolCalls: number;
  promptTokens: number;
  evalTokens: number;
  timings: Record<string, number>;
  grounding: GroundingVerdict | null;
  prose: string;
  checks: StatusCheck[];
  reason: string | null;
}

/** A scheduled (user, slot, local date), claimed once, with the instant past which it is not worth sending. */
export interface SlotClaim {
  userId: number;
  slot: SlotName;
  localDate: string;
  notAfter: Date;
}

/** Where a briefing can be delivered: a platform, or the CLI when the user has no platform linked. */
export const DELIVERY_PLATFORMS = ["telegram", "slack", "cli"] as const;
export type DeliveryPlatform = (typeof DELIVERY_PLATFORMS)[number];

/** pending → sending → sent | failed; a send that surely did not reach the platform goes back to pending. */
export const DELIVERY_STATES = ["pending", "sending", "sent", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One outbox row: a run's briefing on its way to one platform account. */
export interface Delivery {
  id: number;
  runId: number;
  userId: number;
  platform: DeliveryPlatform;
  identityId: number | null;
  /** Where it was posted; null until then. */
  target: string | null;
  state: DeliveryState;
  attempts: number;
  lastError: string | null;
  platformMessageId: string | null;
  nextAttemptAt: Date;
  sendingAt: Date | null;
  sendingBy: string | null;
  /** What a sender already posted of a split briefing, in its own encoding. */
  progress: unknown;
  sentAt: Date | null;
}

/** A row the outbox adds when a run starts its delivery. */
export interface NewDelivery {
  platform: DeliveryPlatform;
  identityId: number | null;
  /** Final from the start: `sent` for the CLI channel, `failed` for a platform this server lacks. */
  state?: "pending" | "sent" | "failed";
  lastError?: string;
}

/** One tool call of a run and what it returned: the evidence a briefing may cite. */
export interface Receipt {
  /** Message id of the stored tool result. */
  id: number;
  runId: number | null;
  toolName: string;
  arguments: Record<string, unknown>;
  /** The parsed tool result (what the model saw, as JSON). */
  result: unknown;
  /**
   * True when the call failed or was refused; `result` then holds `{ error }`, and `{ current }` where the
   * failure found out what is true now (see {@link FAILED_CALL_FACTS}).
   */
  error: boolean;
  /** When the tool ran: the data's "as of" time. */
  at: Date;
}

/**
 * The key of a failed call's result that holds what the failure found out (`BriefbotError.facts`: a
 * server's copy of a task after a refused write). It is data about the user's world, unlike the error text.
 */
export const FAILED_CALL_FACTS = "current";

// ---------------------------------------------------------------------------------------------------------
// Logged messages: every turn, tool call and tool result of a run or a thread.

export const MESSAGE_ROLES = ["system", "user", "assistant", "tool"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** A tool call as the model made it (Ollama's shape). */
export interface ToolCall {
  /** Ollama emits `call_xxxxxxxx` ids since v0.12.10; older servers omit it. */
  id?: string;
  function: {
    index?: number;
    name: string;
    arguments: Record<string, unknown>;
  };
}

export interface MessageMetadata {
  briefing_slot?: string;
  run_id?: number;
  /** "receipt" for tool results, "briefing" for the final prose of a run. */
  kind?: string;
  arguments?: Record<string, unknown>;
  /** Tool results: whether the call failed or was refused. */
  error?: boolean;
  [key: string]: unknown;
}

export interface LoggedMessage {
  id: number;
  userId: number;
  conversationId: number | null;
  runId: number | null;
  role: MessageRole;
  content: string;
  toolCalls: ToolCall[] | null;
  toolName: string | null;
  toolCallId: string | null;
  metadata: MessageMetadata;
  createdAt: Date;
}

export interface NewLoggedMessage {
  userId: number;
  conversationId: number | null;
  runId: number | null;
  role: MessageRole;
  content: string;
  toolCalls?: ToolCall[] | null;
  toolName?: string | null;
  toolCallId?: string | null;
  metadata: MessageMetadata;
  createdAt: Date;
}

/** Where a conversation happens. */
export const CONVERSATION_PLATFORMS = ["cli", "telegram", "slack"] as const;
export type ConversationPlatform = (typeof CONVERSATION_PLATFORMS)[number];

/** A chat thread: a CLI session, a Telegram reply chain or a Slack thread; optionally about one run. */
export interface Conversation {
  id: number;
  userId: number;
  platform: ConversationPlatform;
  /** The platform's own thread key, opaque to the core. */
  threadKey: string;
  runId: number | null;
  createdAt: Date;
}

// ---------------------------------------------------------------------------------------------------------
// The user's records: tasks, projects, notes.

export const TASK_STATUSES = ["open", "done"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_PRIORITIES = ["low", "normal", "high"] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const TASK_FILTERS = ["due_today", "overdue", "high_priority", "open", "completed_recently"] as const;
export type TaskFilter = (typeof TASK_FILTERS)[number];

export interface Task {
  id: number;
  userId: number;
  projectId: number | null;
  title: string;
  notes: string;
  /** The user's local calendar date ("YYYY-MM-DD"): "due Friday" means Friday wherever they are. */
  dueDate: string | null;
  /** Optional local "HH:MM" on the due date. */
  dueTime: string | null;
  priority: TaskPriority;
  status: TaskStatus;
  completedAt: Date | null;
  /** Set on a task derived from an account's object: the account it lives on (writes go there). */
  accountId?: number | null;
  /** Where it comes from, as receipts say it: "Nextcloud · Personal". Null for a local task. */
  sourceName?: string | null;
  /** A subtask's parent (RELATED-TO, Todoist's parent_id), once both are here; null for any other task. */
  parentId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewTask {
  userId: number;
  title: string;
  notes?: string;
  dueDate?: string | null;
  dueTime?: string | null;
  priority?: TaskPriority;
  projectId?: number | null;
  createdAt?: Date;
  updatedAt?: Date;
}

export interface TaskChanges {
  title?: string;
  notes?: string;
  dueDate?: string | null;
  dueTime?: string | null;
  priority?: TaskPriority;
  projectId?: number | null;
}

/** Which tasks, with "today" already worked out in the user's zone. */
export interface TaskQuery {
  filter: TaskFilter;
  /** The user's local date. */
  today: string;
  /** For `completed_recently`: completions since this instant. */
  completedSince: Date;
  limit?: number;
}

export const PROJECT_STATUSES = ["active", "paused", "done", "archived"] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export interface Project {
  id: number;
  userId: number;
  name: string;
  status: ProjectStatus;
  summary: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface Note {
  id: number;
  userId: number;
  title: string;
  body: string;
  createdAt: Date;
}

// ---------------------------------------------------------------------------------------------------------
// Calendar events: synced from subscriptions, or created in chat.

export const EVENT_STATUSES = ["confirmed", "tentative", "cancelled"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const EVENT_RANGES = ["today", "tomorrow", "upcoming"] as const;
export type EventRange = (typeof EVENT_RANGES)[number];

/** One stored occurrence; `calendarId` null means it was created in chat and only chat may change it. */
export interface CalendarEvent {
  id: number;
  userId: number;
  calendarId: number | null;
  title: string;
  description: string;
  location: string;
  allDay: boolean;
  startsAt: Date;
  endsAt: Date;
  /** All-day events: local dates "YYYY-MM-DD", end exclusive. */
  startDate: string | null;
  endDate: string | null;
  status: EventStatus;
  /** Set on an occurrence derived from an account's VEVENT. */
  accountId?: number | null;
  /** "Nextcloud · Personal". */
  sourceName?: string | null;
  /** An account's event that is an occurrence of a recurring series (which chat does not change). */
  recurring?: boolean;
}

/** An event as tools show it: times in the user's zone next to the instants. */
export interface EventView {
  id: number;
  title: string;
  description: string;
  location: string;
  allDay: boolean;
  /** Local "YYYY-MM-DD HH:mm" (timed) or "YYYY-MM-DD" (all-day) in the user's zone. */
  start: string;
  /** Local end; for all-day events the last day it covers (inclusive). */
  end: string;
  startsAt: string;
  endsAt: string;
  /** The user's local dates within the range that this event is on. */
  days: string[];
  status: "confirmed" | "tentative";
  source: "calendar" | "chat";
  calendarId: number | null;
  /** An account's event: where it comes from ("Nextcloud · Personal"). */
  from?: string;
}

/** Whose calendar and which days: ranges are the user's local days around `now`. */
export interface EventQuery {
  range: EventRange;
  /** For `upcoming`: days ahead, default 7. */
  days?: number;
  now: Date;
}

interface ChatEventCommon {
  title: string;
  description?: string;
  location?: string;
  status?: "confirmed" | "tentative";
}

export type NewChatEvent = ChatEventCommon &
  (
    | { allDay?: false; startsAt: Date; endsAt?: Date; timeZone: string }
    | { allDay: true; startDate: string; endDate?: string; timeZone: string }
  );

export type ChatEventChanges = Partial<ChatEventCommon> &
  (
    | { allDay?: undefined }
    | { allDay: false; startsAt: Date; endsAt?: Date }
    | { allDay: true; startDate: string; endDate?: string }
  );

// ---------------------------------------------------------------------------------------------------------
// Feeds and weather, as the tools read them.

export interface FeedItemView {
  id: number;
  feedId: number;
  feedTitle: string;
  title: string;
  link: string | null;
  summary: string;
  publishedAt: Date | null;
  /** Which of the asked-for interests the item mentions. */
  matchedInterests: string[];
}

export interface FeedItemQuery {
  max: number;
  /** Items from feeds tagged with this topic, or whose title/summary mention it. */
  topic?: string | undefined;
  /** Without a topic: items mentioning one of these take the available slots first. */
  interests?: readonly string[] | undefined;
}

/** A forecast as the background refresh cached it (Open-Meteo's JSON), with when it was fetched. */
export interface CachedForecast {
  latitude: number;
  longitude: number;
  payload: Record<string, unknown>;
  fetchedAt: Date;
}

// ---------------------------------------------------------------------------------------------------------
// Changes waiting for the user: a Confirm before one runs, an Undo after one ran.

export const PENDING_ACTION_STATES = ["pending", "confirmed", "cancelled", "expired"] as const;
export type PendingActionState = (typeof PENDING_ACTION_STATES)[number];
/** confirm: a tool call waiting for Confirm / Cancel; undo: the inverse of a change already made. */
export const PENDING_ACTION_KINDS = ["confirm", "undo"] as const;
export type PendingActionKind = (typeof PENDING_ACTION_KINDS)[number];

export interface PendingAction {
  id: number;
  kind: PendingActionKind;
  userId: number;
  conversationId: number | null;
  toolName: string;
  arguments: Record<string, unknown>;
  summary: string;
  state: PendingActionState;
  result: string | null;
  expiresAt: Date;
  createdAt: Date;
  resolvedAt: Date | null;
}

export interface NewPendingAction {
  /** Default "confirm". */
  kind?: PendingActionKind;
  userId: number;
  conversationId: number | null;
  toolName: string;
  arguments: Record<string, unknown>;
  summary: string;
  at: Date;
  expiresAt: Date;
}

/** An update a poller fetched from a platform, kept until the process that claimed it has handled it. */
export interface InboundUpdate {
  /** The platform's id: Telegram's update_id as digits, Slack's event_id or trigger_id. */
  updateId: string;
  /** The update as the platform sent it; null once handled. */
  payload: unknown;
  receivedAt: Date;
  /** The process handling it. */
  claimedBy: string;
  handledAt: Date | null;
  /** What its claimer had posted for it so far (null: nothing yet), for whoever takes it over. */
  progress: InboundProgress | null;
}

/**
 * What handling an inbound update has shown the person, kept so a process taking the update over neither
 * answers a second time nor leaves a stray placeholder. Ids are the platform's (Telegram's message ids as
 * digits, Slack's ts).
 */
export interface InboundProgress {
  /** A message the answer goes into in place (Telegram's streamed message, Slack's "thinking…"). */
  placeholder?: string;
  /** Answer messages the platform accepted, first one first: any at all, and the update is answered. */
  posted: string[];
}

// ---------------------------------------------------------------------------------------------------------
// A person's own task and calendar servers (CalDAV, Todoist): accounts and the mirror of what they hold.
// The interfaces between the parts are in accounts/ports.ts.

export const ACCOUNT_KINDS = ["caldav", "todoist"] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** What a remote collection holds: CalDAV's supported-calendar-component-set, Todoist projects are tasks. */
export type CollectionContent = "events" | "tasks";

export interface RemoteCollection {
  /** The collection's href (CalDAV) or project id (Todoist). */
  remoteId: string;
  /** Its display name ("Personal", "Inbox"). */
  name: string;
  holds: CollectionContent[];
}

/** A collection of an account, as stored: whether the user chose it, and where its sync stands. */
export interface AccountCollection extends RemoteCollection {
  enabled: boolean;
  /**
   * The provider's own position (a sync-token or ctag, a Todoist sync_token); opaque to the core. Null
   * before the first sync, and after the server said the token is no longer valid.
   */
  syncState: string | null;
}

export interface Account {
  id: number;
  userId: number;
  kind: AccountKind;
  /** How receipts name it: "Nextcloud", "Todoist". */
  label: string;
  /** The server's address (CalDAV) or the API's base URL (Todoist). */
  url: string;
  /** CalDAV user name; null for token accounts. */
  username: string | null;
  collections: AccountCollection[];
  lastSyncAt: Date | null;
  /** Why the latest sync failed, one line; null when it succeeded or none ran. */
  lastError: string | null;
  createdAt: Date;
}

/** The stored secret: ciphertext with its key id, never the password itself. */
export interface SealedSecret {
  /** Which key sealed it, so rotation can tell old from new. */
  keyId: string;
  /** base64 of nonce | ciphertext | tag (AES-256-GCM). */
  sealed: string;
}

export interface NewAccount {
  userId: number;
  kind: AccountKind;
  label: string;
  url: string;
  username: string | null;
  secret: SealedSecret;
  collections: AccountCollection[];
  createdAt: Date;
}

/** One object on the server, as the mirror keeps it. */
export interface RemoteObject {
  /** The object's href (CalDAV) or item id (Todoist); unique within its collection. */
  remoteId: string;
  /** The server's version: the ETag (CalDAV), `updated_at` (Todoist, which has no ETag). */
  etag: string;
  /** VTODO / VEVENT objects are iCalendar text; Todoist items are their JSON as the API sent them. */
  format: "icalendar" | "todoist-json";
  body: string;
}

/** A task as one remote object describes it (a recurring VTODO: its current occurrence). */
export interface DerivedTask {
  title: string;
  notes: string;
  /** The user's local date ("YYYY-MM-DD"), a DUE with TZID already moved into the user's zone. */
  dueDate: string | null;
  dueTime: string | null;
  priority: "low" | "normal" | "high";
  status: "open" | "done";
  completedAt: Date | null;
  /** RELATED-TO (CalDAV) or parent_id (Todoist): the parent's remoteId, for subtasks. */
  parentRemoteId: string | null;
  /** CATEGORIES (CalDAV) or labels (Todoist). */
  labels: string[];
}

/** One occurrence of an event inside the expansion window, as the ICS calendars store them. */
export interface DerivedEvent {
  title: string;
  description: string;
  location: string;
  allDay: boolean;
  startsAt: Date;
  endsAt: Date;
  startDate: string | null;
  endDate: string | null;
  status: "confirmed" | "tentative" | "cancelled";
}

export interface DerivedItems {
  tasks: DerivedTask[];
  events: DerivedEvent[];
}

/** An object with what it means, as the store applies it. */
export interface DerivedObject extends RemoteObject {
  derived: DerivedItems;
}
