/**
 * The export document: one JSON value holding everything stored about a user, with a format name and
 * version so a reader can tell what it holds. Each message appears once: a run's messages (its receipts
 * apart) under the run, a thread's own messages under its conversation.
 */
import { redactAddress, redactAddressesIn } from "../redact.ts";
import type { MessageRow, StoredRow, StoredUserData, SubscriptionRow } from "./port.ts";

export const EXPORT_FORMAT = "briefbot-user-export";
/** Bumped whenever a reader would have to change: a section renamed, moved or removed. */
export const EXPORT_VERSION = 1;

export interface ExportOptions {
  /** Subscription addresses in full. Default false: redacted as everywhere else they are shown. */
  includeSecrets?: boolean;
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  secretsIncluded: boolean;
  profile: StoredRow;
  identities: StoredRow[];
  projects: StoredRow[];
  tasks: StoredRow[];
  notes: StoredRow[];
  calendars: StoredRow[];
  events: StoredRow[];
  feeds: StoredRow[];
  feedItems: StoredRow[];
  runs: Array<StoredRow & { receipts: MessageRow[]; messages: MessageRow[]; archivedReceipts: unknown }>;
  conversations: Array<StoredRow & { messages: MessageRow[] }>;
  /** Messages of neither a run nor a thread (none are written today; kept so nothing stored is left out). */
  otherMessages: MessageRow[];
  deliveries: StoredRow[];
  pendingActions: StoredRow[];
  platformMessages: StoredRow[];
  invites: StoredRow[];
  linkAttempts: StoredRow[];
  /** Task and calendar accounts: where they are and what they sync, never a password or token. */
  accounts: StoredRow[];
}

export function exportDocument(data: StoredUserData, at: Date, options: ExportOptions = {}): ExportDocument {
  const secrets = options.includeSecrets === true;
  const ofRun = group(
    data.messages.filter((message) => message.runId !== null),
    (m) => m.runId,
  );
  const ofThread = group(
    data.messages.filter((message) => message.runId === null && message.conversationId !== null),
    (m) => m.conversationId,
  );
  const archives = new Map(data.runArchives.map((archive) => [archive.runId, archive.receipts]));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: at.toISOString(),
    secretsIncluded: secrets,
    profile: data.user,
    identities: data.identities,
    projects: data.projects,
    tasks: data.tasks,
    notes: data.notes,
    calendars: data.calendars.map((calendar) =>
      secrets ? calendar : { ...redactErrors(calendar), source: redactAddress(calendar.source) },
    ),
    events: data.events,
    feeds: data.feeds.map((feed) =>
      secrets ? feed : { ...redactErrors(feed), url: redactAddress(feed.url) },
    ),
    feedItems: data.feedItems,
    runs: data.runs.map((run) => {
      const messages = ofRun.get(run.id) ?? [];
      return {
        ...run,
        receipts: messages.filter((message) => message.role === "tool"),
        messages: messages.filter((message) => message.role !== "tool"),
        archivedReceipts: archives.get(run.id) ?? null,
      };
    }),
    conversations: data.conversations.map((conversation) => ({
      ...conversation,
      messages: ofThread.get(conversation.id) ?? [],
    })),
    otherMessages: data.messages.filter(
      (message) => message.runId === null && message.conversationId === null,
    ),
    deliveries: data.deliveries,
    pendingActions: data.pendingActions,
    platformMessages: data.platformMessages,
    invites: data.invites,
    linkAttempts: data.linkAttempts,
    accounts: data.accounts.map((account) => {
      // Whatever a store hands over, a secret never leaves in an export, not even with includeSecrets.
      const { secretSealed: _sealed, secretKeyId: _keyId, secret: _secret, ...rest } = account;
      if (secrets) return rest;
      // The address is shown as calendars' are: a server path may carry a token.
      const url = typeof rest.url === "string" ? { url: redactAddress(rest.url) } : {};
      return typeof rest.lastError === "string"
        ? { ...rest, ...url, lastError: redactAddressesIn(rest.lastError) }
        : { ...rest, ...url };
    }),
  };
}

/** `briefbot-ann-2025-06-02.json`: the name kept to characters every file system and chat client accepts. */
export function exportFilename(userName: string, at: Date): string {
  const safe = userName.replace(/[^\w.@-]+/g, "_").slice(0, 64) || "user";
  return `briefbot-${safe}-${at.toISOString().slice(0, 10)}.json`;
}

/** Sync errors quote the address they failed on. */
function redactErrors<ROW extends SubscriptionRow>(row: ROW): ROW {
  return typeof row.lastError === "string" ? { ...row, lastError: redactAddressesIn(row.lastError) } : row;
}

function group<KEY>(messages: MessageRow[], keyOf: (message: MessageRow) => KEY): Map<KEY, MessageRow[]> {
  const groups = new Map<KEY, MessageRow[]>();
  for (const message of messages) {
    const key = keyOf(message);
    groups.set(key, [...(groups.get(key) ?? []), message]);
  }
  return groups;
}
