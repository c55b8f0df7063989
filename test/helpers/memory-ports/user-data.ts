/**
 * The `UserData` port in memory: every row of one user, read in one go and deleted in one go, with the
 * database's table names as the removal counts' keys (what the core shows after /forget).
 */
import type { StoredRow, StoredUserData, UserData } from "../../../src/core/user-data/port.ts";
import { copyRow, type MemoryTables, removeWhere } from "./tables.ts";

export function createMemoryUserData(tables: MemoryTables): UserData {
  /** Each table holding user rows, by its name in the database. */
  const owned = (): Record<string, Array<{ userId: number }>> => ({
    accounts: tables.accounts,
    briefing_runs: tables.runs,
    calendars: tables.calendars,
    conversations: tables.conversations,
    deliveries: tables.deliveries,
    events: tables.events,
    feed_items: tables.feedItems,
    feeds: tables.feeds,
    identities: tables.identities,
    invites: tables.invites,
    messages: tables.messages,
    notes: tables.notes,
    pending_actions: tables.pendingActions,
    platform_messages: tables.platformMessages,
    projects: tables.projects,
    run_archives: tables.runArchives,
    tasks: tables.tasks,
  });
  const attemptsOf = (userId: number) =>
    tables.linkAttempts
      .filter((attempt) =>
        tables.identities.some(
          (identity) =>
            identity.userId === userId &&
            identity.platform === attempt.platform &&
            identity.externalUserId === attempt.externalUserId,
        ),
      )
      .sort((a, b) => a.id - b.id);
  return {
    async read(userId) {
      const user = tables.users.find((row) => row.id === userId);
      if (!user) return undefined;
      const mine = <ROW extends { userId: number }>(rows: readonly ROW[], order: (row: ROW) => number) =>
        rows
          .filter((row) => row.userId === userId)
          .sort((a, b) => order(a) - order(b))
          .map((row) => copyRow(row) as ROW & StoredRow);
      const byId = (row: { id: number }) => row.id;
      const data: StoredUserData = {
        user: { ...copyRow(user) },
        identities: mine(tables.identities, byId),
        projects: mine(tables.projects, byId),
        tasks: mine(tables.tasks, byId),
        notes: mine(tables.notes, byId),
        calendars: mine(tables.calendars, byId),
        events: mine(tables.events, byId),
        feeds: mine(tables.feeds, byId),
        feedItems: mine(tables.feedItems, byId),
        runs: mine(tables.runs, byId),
        runArchives: mine(tables.runArchives, (row) => row.runId),
        conversations: mine(tables.conversations, byId),
        messages: mine(tables.messages, byId),
        deliveries: mine(tables.deliveries, byId),
        pendingActions: mine(tables.pendingActions, byId),
        platformMessages: mine(tables.platformMessages, (row) => row.createdAt.getTime()),
        // The hash is left out: it would only help someone guess the code.
        invites: mine(tables.invites, byId).map(({ id, createdAt, expiresAt, usedAt }) => ({
          id,
          createdAt,
          expiresAt,
          usedAt,
        })),
        linkAttempts: attemptsOf(userId).map((attempt) => ({ ...copyRow(attempt) })),
        accounts: mine(tables.accounts, byId).map(
          ({ secret: _secret, userId: _userId, ...account }) => account,
        ),
      };
      return data;
    },
    async remove(userId) {
      if (!tables.users.some((row) => row.id === userId)) return {};
      const counts: Record<string, number> = { users: 1 };
      // Counted before anything goes: the attempts are found through the identities.
      const attempts = new Set(attemptsOf(userId).map((attempt) => attempt.id));
      const accountIds = new Set(tables.accounts.filter((row) => row.userId === userId).map((row) => row.id));
      // The mirror has no user column; it goes with its accounts, as ON DELETE CASCADE takes it.
      counts.account_objects = removeWhere(tables.accountObjects, (row) =>
        accountIds.has(row.accountId),
      ).length;
      for (const [table, rows] of Object.entries(owned()))
        counts[table] = removeWhere(rows, (row) => row.userId === userId).length;
      counts.forget_questions = 0;
      counts.link_attempts = removeWhere(tables.linkAttempts, (row) => attempts.has(row.id)).length;
      removeWhere(tables.users, (row) => row.id === userId);
      return counts;
    },
  };
}
