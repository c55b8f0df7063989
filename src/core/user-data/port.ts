/**
 * The `UserData` port: everything stored about one user, read in one go (export) and deleted in one go
 * (forget). Rows come as the store keeps them (plain values, dates as `Date`); the core shapes them into the
 * export document and decides what is secret, so redaction stays one policy in one place (`redact.ts`).
 */

/** One stored row, as the store reads it. */
export type StoredRow = Record<string, unknown>;

/** A calendar or feed subscription: its address may be a secret (a calendar's "secret address"). */
export type SubscriptionRow = StoredRow & { lastError?: unknown };

/** A stored turn, tool call or tool result; tool results of a run are its receipts. */
export type MessageRow = StoredRow & {
  id: number;
  role: string;
  runId: number | null;
  conversationId: number | null;
};

/** Every row of one user, table by table. */
export interface StoredUserData {
  user: StoredRow & { id: number; name: string };
  identities: StoredRow[];
  projects: StoredRow[];
  tasks: StoredRow[];
  notes: StoredRow[];
  calendars: Array<SubscriptionRow & { source: string }>;
  events: StoredRow[];
  feeds: Array<SubscriptionRow & { url: string }>;
  feedItems: StoredRow[];
  runs: Array<StoredRow & { id: number }>;
  /** Receipts of runs past retention, by run. */
  runArchives: Array<StoredRow & { runId: number }>;
  conversations: Array<StoredRow & { id: number }>;
  messages: MessageRow[];
  deliveries: StoredRow[];
  pendingActions: StoredRow[];
  platformMessages: StoredRow[];
  /** One-time link codes issued for the user, without their hashes. */
  invites: StoredRow[];
  /** Failed link attempts from the user's platform accounts. */
  linkAttempts: StoredRow[];
  /** CalDAV and Todoist accounts, without their sealed secrets (a store never reads those out here). */
  accounts: StoredRow[];
}

/** Rows deleted, per table (the store's table names). */
export type RemovalCounts = Record<string, number>;

export interface UserData {
  /** Undefined when there is no such user. */
  read: (userId: number) => Promise<StoredUserData | undefined>;
  /**
   * Deletes the user and every row that belongs to them, in one transaction; an unknown user deletes
   * nothing and gives empty counts. Shared caches (weather by place, handled platform event ids) stay.
   */
  remove: (userId: number) => Promise<RemovalCounts>;
}
