import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import { BriefbotError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type Calendar, calendars, users } from "../schema/index.ts";

/**
 * A subscription plus what a sync needs to know about its owner. The stored ICS body (up to the fetch
 * limit) stays in the database unless asked for with `getCalendarBody`; `hasBody` says whether there is one.
 */
export type CalendarWithOwner = Omit<Calendar, "body"> & {
  hasBody: boolean;
  userName: string;
  userTimeZone: string;
};

export class CalendarExistsError extends BriefbotError {
  constructor(readonly source: string) {
    super("already_subscribed", `already subscribed to ${source}`);
  }
}

export async function addCalendar(
  db: Database,
  input: { userId: number; source: string; name?: string },
): Promise<Calendar> {
  const [row] = await db
    .insert(calendars)
    .values({ userId: input.userId, source: input.source, name: input.name ?? "" })
    .onConflictDoNothing({ target: [calendars.userId, calendars.source] })
    .returning();
  if (!row) throw new CalendarExistsError(input.source);
  return row;
}

const { body: _body, ...calendarColumns } = getTableColumns(calendars);
const withOwner = {
  ...calendarColumns,
  hasBody: sql<boolean>`${calendars.body} is not null`.mapWith(Boolean),
  userName: users.name,
  userTimeZone: users.timeZone,
};

/** Every subscription, or one user's, ordered by owner then id. */
export async function listCalendars(db: Database, userId?: number): Promise<CalendarWithOwner[]> {
  return db
    .select(withOwner)
    .from(calendars)
    .innerJoin(users, eq(users.id, calendars.userId))
    .where(userId === undefined ? undefined : eq(calendars.userId, userId))
    .orderBy(asc(users.name), asc(calendars.id));
}

export async function getCalendar(db: Database, id: number): Promise<CalendarWithOwner | undefined> {
  const [row] = await db
    .select(withOwner)
    .from(calendars)
    .innerJoin(users, eq(users.id, calendars.userId))
    .where(eq(calendars.id, id))
    .limit(1);
  return row;
}

/** The last good ICS text stored for a subscription, or null. */
export async function getCalendarBody(db: Database, id: number): Promise<string | null> {
  const [row] = await db
    .select({ body: calendars.body })
    .from(calendars)
    .where(eq(calendars.id, id))
    .limit(1);
  return row?.body ?? null;
}

/** Forgets a stored body that can no longer be expanded, so the next sync fetches the calendar in full. */
export async function dropCalendarBody(db: Database, id: number): Promise<void> {
  await db.update(calendars).set({ body: null }).where(eq(calendars.id, id));
}

/** Removes a subscription and (by cascade) its synced events; chat-created events are not linked and stay. */
export async function removeCalendar(db: Database, userId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(calendars)
    .where(and(eq(calendars.id, id), eq(calendars.userId, userId)))
    .returning({ id: calendars.id });
  return deleted.length > 0;
}

export async function recordCalendarNotModified(db: Database, id: number, at: Date): Promise<void> {
  await db
    .update(calendars)
    .set({ lastSyncAt: at, lastSuccessAt: at, lastError: null })
    .where(eq(calendars.id, id));
}

export async function recordCalendarFailure(
  db: Database,
  id: number,
  at: Date,
  error: string,
): Promise<void> {
  await db
    .update(calendars)
    .set({ lastSyncAt: at, lastError: error.slice(0, 1000) })
    .where(eq(calendars.id, id));
}
