import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type Calendar, calendars, users } from "../schema/index.ts";

/** A subscription plus what a sync needs to know about its owner. */
export type CalendarWithOwner = Calendar & { userName: string; userTimeZone: string };

export class CalendarExistsError extends Error {
  constructor(readonly source: string) {
    super(`already subscribed to ${source}`);
    this.name = "CalendarExistsError";
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

const withOwner = {
  calendar: calendars,
  userName: users.name,
  userTimeZone: users.timeZone,
};

function flatten(row: { calendar: Calendar; userName: string; userTimeZone: string }): CalendarWithOwner {
  return { ...row.calendar, userName: row.userName, userTimeZone: row.userTimeZone };
}

/** Every subscription, or one user's, ordered by owner then id. */
export async function listCalendars(db: Database, userId?: number): Promise<CalendarWithOwner[]> {
  const rows = await db
    .select(withOwner)
    .from(calendars)
    .innerJoin(users, eq(users.id, calendars.userId))
    .where(userId === undefined ? undefined : eq(calendars.userId, userId))
    .orderBy(asc(users.name), asc(calendars.id));
  return rows.map(flatten);
}

export async function getCalendar(db: Database, id: number): Promise<CalendarWithOwner | undefined> {
  const [row] = await db
    .select(withOwner)
    .from(calendars)
    .innerJoin(users, eq(users.id, calendars.userId))
    .where(eq(calendars.id, id))
    .limit(1);
  return row ? flatten(row) : undefined;
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
