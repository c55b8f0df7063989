import { sql } from "drizzle-orm";
import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type {
  ClaimVerdict,
  DeliveryState,
  GroundingVerdict,
  MessageMetadata,
  MessageRole,
  RunState,
  SentenceVerdict,
} from "../../src/core/domain.ts";
import {
  conversationPlatformEnum,
  deliveryPlatformEnum,
  deliveryStateEnum,
  messageRoleEnum,
  pendingActionKindEnum,
  pendingActionStateEnum,
  platformEnum,
  runModeEnum,
  runStateEnum,
  runTriggerEnum,
  slotNameEnum,
} from "./enums.ts";
import { identities, users } from "./users.ts";

export type {
  ClaimVerdict,
  DeliveryState,
  GroundingVerdict,
  MessageMetadata,
  MessageRole,
  RunState,
  SentenceVerdict,
};

export const briefingRuns = pgTable(
  "briefing_runs",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    slot: slotNameEnum().notNull(),
    /** The user's local date the run is for ("YYYY-MM-DD"). */
    localDate: text().notNull(),
    /** schedule: claimed by the scheduler (unique per user/slot/date); manual: /brief or the CLI. */
    trigger: runTriggerEnum().notNull().default("manual"),
    state: runStateEnum().notNull().default("claimed"),
    reason: text(),
    /** agentic | legacy | digest (the model was unavailable). */
    mode: runModeEnum(),
    route: text(),
    endpoint: text(),
    model: text(),
    turns: integer().notNull().default(0),
    toolCalls: integer().notNull().default(0),
    promptTokens: integer().notNull().default(0),
    evalTokens: integer().notNull().default(0),
    timings: jsonb().$type<Record<string, number>>().notNull().default({}),
    grounding: jsonb().$type<GroundingVerdict>(),
    prose: text(),
    /** The status row's checks ("✓ checked calendar"), fixed when the briefing is written; delivery posts them. */
    checks: jsonb().$type<Array<{ label: string; ok: boolean }>>(),
    conversationId: integer(),
    claimedBy: text(),
    claimedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * Scheduled runs: past this instant the briefing is no longer worth sending (the slot's window), set by
     * the scheduler when it claims the run, so delivery never has to work it out again. Null for manual runs.
     */
    notAfter: timestamp({ withTimezone: true }),
    generatedAt: timestamp({ withTimezone: true }),
    deliveredAt: timestamp({ withTimezone: true }),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Set by the retention roll-up: the run's messages leave every model context. */
    archivedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("briefing_runs_scheduled_once_idx")
      .on(t.userId, t.slot, t.localDate)
      .where(sql`${t.trigger} = 'schedule'`),
    index("briefing_runs_user_date_idx").on(t.userId, t.localDate),
    index("briefing_runs_state_idx").on(t.state),
  ],
);
export type BriefingRun = typeof briefingRuns.$inferSelect;

/** A chat thread: a CLI session, a Telegram reply chain or a Slack thread; optionally about one run. */
export const conversations = pgTable(
  "conversations",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    platform: conversationPlatformEnum().notNull(),
    /** Platform-specific thread key, e.g. "telegram:<chat>:<root message>" or "slack:<channel>:<thread_ts>". */
    threadKey: text().notNull(),
    runId: integer().references(() => briefingRuns.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("conversations_thread_idx").on(t.platform, t.threadKey),
    index("conversations_user_idx").on(t.userId),
  ],
);
export type Conversation = typeof conversations.$inferSelect;

/** A model's tool call as stored on its assistant message (Ollama's shape). */
export interface StoredToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> };
}

/** Every turn, tool call and tool result; tool results of a run are its receipts. */
export const messages = pgTable(
  "messages",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    conversationId: integer().references(() => conversations.id, { onDelete: "cascade" }),
    runId: integer().references(() => briefingRuns.id, { onDelete: "cascade" }),
    role: messageRoleEnum().notNull(),
    content: text().notNull().default(""),
    toolCalls: jsonb().$type<StoredToolCall[]>(),
    toolName: text(),
    toolCallId: text(),
    metadata: jsonb().$type<MessageMetadata>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("messages_run_idx").on(t.runId, t.id),
    index("messages_conversation_idx").on(t.conversationId, t.id),
  ],
);
export type StoredMessage = typeof messages.$inferSelect;
export type NewStoredMessage = typeof messages.$inferInsert;

/** Receipts of runs past the retention window, kept for /receipts but out of every model context. */
export const runArchives = pgTable("run_archives", {
  runId: integer()
    .primaryKey()
    .references(() => briefingRuns.id, { onDelete: "cascade" }),
  userId: integer()
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  receipts: jsonb().$type<unknown[]>().notNull(),
  archivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** The outbox: a generated briefing waits here until a platform adapter confirms it was posted. */
export const deliveries = pgTable(
  "deliveries",
  {
    id: serial().primaryKey(),
    runId: integer()
      .notNull()
      .references(() => briefingRuns.id, { onDelete: "cascade" }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    platform: deliveryPlatformEnum().notNull(),
    /** The linked account it goes to; where on the platform is resolved when it is sent. */
    identityId: integer().references(() => identities.id, { onDelete: "set null" }),
    /** Where it was posted (Telegram chat id, Slack channel); null until it is. */
    target: text(),
    state: deliveryStateEnum().notNull().default("pending"),
    attempts: integer().notNull().default(0),
    lastError: text(),
    /** Telegram message id, or Slack ts of the thread parent. */
    platformMessageId: text(),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Set just before a send, so a crash mid-send is known on restart. */
    sendingAt: timestamp({ withTimezone: true }),
    /** The process sending it: when its lease lapses mid-send, nobody knows whether the post arrived. */
    sendingBy: text(),
    /**
     * What a sender already posted of a briefing split over several messages (its own encoding), so a retry
     * on any process resumes after the last part instead of posting the first again.
     */
    progress: jsonb().$type<unknown>(),
    sentAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("deliveries_run_platform_idx").on(t.runId, t.platform),
    index("deliveries_state_next_idx").on(t.state, t.nextAttemptAt),
    index("deliveries_platform_message_idx").on(t.platform, t.target, t.platformMessageId),
  ],
);
export type Delivery = typeof deliveries.$inferSelect;

/**
 * A change waiting for the user's Confirm / Cancel (kind confirm: the tool call to run), or the Undo button
 * under a change already made (kind undo: the inverse step to run).
 */
export const pendingActions = pgTable(
  "pending_actions",
  {
    id: serial().primaryKey(),
    kind: pendingActionKindEnum().notNull().default("confirm"),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    conversationId: integer().references(() => conversations.id, { onDelete: "cascade" }),
    toolName: text().notNull(),
    arguments: jsonb().$type<Record<string, unknown>>().notNull(),
    summary: text().notNull(),
    state: pendingActionStateEnum().notNull().default("pending"),
    result: text(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("pending_actions_user_idx").on(t.userId, t.state)],
);
export type PendingAction = typeof pendingActions.$inferSelect;

/**
 * Which thread (and run) a platform message belongs to: every bot message of a briefing's chain, so a reply
 * to any of them finds the run and the thread's root key. Keys are the adapters' own encodings.
 */
export const platformMessages = pgTable(
  "platform_messages",
  {
    platform: platformEnum().notNull(),
    messageKey: text().notNull(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    runId: integer().references(() => briefingRuns.id, { onDelete: "cascade" }),
    threadKey: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.platform, t.messageKey] }),
    index("platform_messages_run_idx").on(t.runId),
  ],
);
export type PlatformMessage = typeof platformMessages.$inferSelect;
