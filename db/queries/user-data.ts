/**
 * Everything stored about one user: read table by table (the export), and deleted with the user's row, whose
 * foreign keys cascade to every table that holds the user's rows.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import {
  accounts,
  briefingRuns,
  calendars,
  conversations,
  deliveries,
  events,
  feedItems,
  feeds,
  identities,
  invites,
  linkAttempts,
  messages,
  notes,
  pendingActions,
  platformMessages,
  projects,
  runArchives,
  tasks,
  users,
} from "../schema/index.ts";

export async function readUserData(db: Database, userId: number) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) return undefined;
  // One snapshot: a briefing finishing meanwhile cannot leave a receipt without its run.
  return db.transaction(async (tx) => ({
    user,
    identities: await tx
      .select()
      .from(identities)
      .where(eq(identities.userId, userId))
      .orderBy(asc(identities.id)),
    projects: await tx.select().from(projects).where(eq(projects.userId, userId)).orderBy(asc(projects.id)),
    tasks: await tx.select().from(tasks).where(eq(tasks.userId, userId)).orderBy(asc(tasks.id)),
    notes: await tx.select().from(notes).where(eq(notes.userId, userId)).orderBy(asc(notes.id)),
    calendars: await tx
      .select()
      .from(calendars)
      .where(eq(calendars.userId, userId))
      .orderBy(asc(calendars.id)),
    events: await tx.select().from(events).where(eq(events.userId, userId)).orderBy(asc(events.id)),
    feeds: await tx.select().from(feeds).where(eq(feeds.userId, userId)).orderBy(asc(feeds.id)),
    feedItems: await tx
      .select()
      .from(feedItems)
      .where(eq(feedItems.userId, userId))
      .orderBy(asc(feedItems.id)),
    runs: await tx
      .select()
      .from(briefingRuns)
      .where(eq(briefingRuns.userId, userId))
      .orderBy(asc(briefingRuns.id)),
    runArchives: await tx
      .select()
      .from(runArchives)
      .where(eq(runArchives.userId, userId))
      .orderBy(asc(runArchives.runId)),
    conversations: await tx
      .select()
      .from(conversations)
      .where(eq(conversations.userId, userId))
      .orderBy(asc(conversations.id)),
    messages: await tx.select().from(messages).where(eq(messages.userId, userId)).orderBy(asc(messages.id)),
    deliveries: await tx
      .select()
      .from(deliveries)
      .where(eq(deliveries.userId, userId))
      .orderBy(asc(deliveries.id)),
    pendingActions: await tx
      .select()
      .from(pendingActions)
      .where(eq(pendingActions.userId, userId))
      .orderBy(asc(pendingActions.id)),
    platformMessages: await tx
      .select()
      .from(platformMessages)
      .where(eq(platformMessages.userId, userId))
      .orderBy(asc(platformMessages.createdAt)),
    // Codes are kept as hashes only, and the hash is left out: it would only help someone guess the code.
    invites: await tx
      .select({
        id: invites.id,
        createdAt: invites.createdAt,
        expiresAt: invites.expiresAt,
        usedAt: invites.usedAt,
      })
      .from(invites)
      .where(eq(invites.userId, userId))
      .orderBy(asc(invites.id)),
    linkAttempts: await linkAttemptsOf(tx, userId),
    // Without the sealed secret and its key id: an export never carries a password or token.
    accounts: await tx
      .select({
        id: accounts.id,
        kind: accounts.kind,
        label: accounts.label,
        url: accounts.url,
        username: accounts.username,
        collections: accounts.collections,
        lastSyncAt: accounts.lastSyncAt,
        lastError: accounts.lastError,
        createdAt: accounts.createdAt,
      })
      .from(accounts)
      .where(eq(accounts.userId, userId))
      .orderBy(asc(accounts.id)),
  }));
}

/**
 * Deletes the user; every table holding user rows references `users` with ON DELETE CASCADE, so one delete
 * takes them all, in one transaction. The counts come from the catalog's `user_id` columns, so a table added
 * later is counted without a change here.
 */
export async function removeUserData(db: Database, userId: number): Promise<Record<string, number>> {
  return db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    if (!user) return {};
    const owning = rowsOf<{ table_name: string }>(
      await tx.execute(sql`
        select c.table_name from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema() and c.column_name = 'user_id' and t.table_type = 'BASE TABLE'
        order by c.table_name`),
    );
    const counts: Record<string, number> = { users: 1 };
    for (const { table_name: table } of owning) {
      const [row] = rowsOf<{ count: string | number }>(
        await tx.execute(
          sql`select count(*) as count from ${sql.identifier(table)} where user_id = ${userId}`,
        ),
      );
      counts[table] = Number(row?.count ?? 0);
    }
    // The mirror of the user's accounts has no user column; it goes with the accounts (ON DELETE CASCADE).
    const [mirror] = rowsOf<{ count: string | number }>(
      await tx.execute(sql`
        select count(*) as count from account_objects
        where account_id in (select id from accounts where user_id = ${userId})`),
    );
    counts.account_objects = Number(mirror?.count ?? 0);
    // Failed link attempts name the person's platform account, not the user row, so no cascade reaches them.
    const attempts = await linkAttemptsOf(tx, userId);
    if (attempts.length > 0)
      await tx.delete(linkAttempts).where(
        inArray(
          linkAttempts.id,
          attempts.map((attempt) => attempt.id),
        ),
      );
    counts.link_attempts = attempts.length;
    await tx.delete(users).where(eq(users.id, userId));
    return counts;
  });
}

/** Failed `/link` attempts from any of the user's linked accounts (made before a link by the CLI). */
function linkAttemptsOf(db: Database, userId: number) {
  return db
    .select({
      id: linkAttempts.id,
      platform: linkAttempts.platform,
      externalUserId: linkAttempts.externalUserId,
      attemptedAt: linkAttempts.attemptedAt,
    })
    .from(linkAttempts)
    .innerJoin(
      identities,
      and(
        eq(identities.platform, linkAttempts.platform),
        eq(identities.externalUserId, linkAttempts.externalUserId),
      ),
    )
    .where(eq(identities.userId, userId))
    .orderBy(asc(linkAttempts.id));
}

/** postgres.js answers an array of rows, PGlite an object holding them. */
function rowsOf<ROW>(result: unknown): ROW[] {
  return (Array.isArray(result) ? result : (result as { rows: ROW[] }).rows) as ROW[];
}
