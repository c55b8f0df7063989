/**
 * Brings one subscription's stored occurrences up to date. A failed fetch or a malformed file never
 * replaces events: the last good set stays and the error is recorded on the calendar.
 */

import type { Database } from "../../../db/client.ts";
import {
  type CalendarWithOwner,
  getCalendar,
  listCalendars,
  recordCalendarFailure,
  recordCalendarNotModified,
} from "../../../db/queries/calendars.ts";
import { replaceCalendarEvents } from "../../../db/queries/events.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import type { Clock } from "../../core/clock.ts";
import type { FetchFunction } from "../http-cache-fetch.ts";
import { defaultExpansionWindow, expandCalendar } from "./expand-calendar.ts";
import { loadCalendarSource, type ReadFileFunction } from "./fetch-calendar.ts";

export interface CalendarSyncDeps {
  fetch: FetchFunction;
  clock: Clock;
  readFile?: ReadFileFunction;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface CalendarSyncResult {
  calendarId: number;
  userName: string;
  source: string;
  /** updated: new events stored; not-modified: the server said 304; failed: last good events kept. */
  status: "updated" | "not-modified" | "failed";
  eventCount: number;
  warnings: string[];
  error?: string;
}

/**
 * Conditional requests only while the stored expansion is fresh: a 304 keeps the old occurrences, and
 * the window they were expanded for slides with the clock, so after a while the body is needed again.
 */
const REVALIDATE_WITHIN_MS = 6 * 3_600_000;

export async function syncCalendar(
  db: Database,
  calendarId: number,
  deps: CalendarSyncDeps,
): Promise<CalendarSyncResult> {
  const calendar = await getCalendar(db, calendarId);
  if (!calendar) throw new Error(`no calendar with id ${calendarId}`);
  return syncLoadedCalendar(db, calendar, deps);
}

async function syncLoadedCalendar(
  db: Database,
  calendar: CalendarWithOwner,
  deps: CalendarSyncDeps,
): Promise<CalendarSyncResult> {
  const now = deps.clock.now();
  const base = { calendarId: calendar.id, userName: calendar.userName, source: calendar.source };
  const fresh =
    calendar.lastSuccessAt !== null &&
    now.getTime() - calendar.lastSuccessAt.getTime() < REVALIDATE_WITHIN_MS;
  try {
    const body = await loadCalendarSource(calendar.source, {
      fetch: deps.fetch,
      ...(deps.readFile ? { readFile: deps.readFile } : {}),
      etag: fresh ? calendar.etag : null,
      lastModified: fresh ? calendar.lastModified : null,
      ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}),
      ...(deps.maxBytes !== undefined ? { maxBytes: deps.maxBytes } : {}),
    });
    if (body.status === "not-modified") {
      await recordCalendarNotModified(db, calendar.id, now);
      return { ...base, status: "not-modified", eventCount: calendar.eventCount, warnings: [] };
    }
    const window = defaultExpansionWindow(now);
    const expanded = expandCalendar(body.text, { userZone: calendar.userTimeZone, ...window });
    await replaceCalendarEvents(db, calendar, expanded.instances, {
      windowStart: window.windowStart,
      at: now,
      ...(body.etag !== undefined ? { etag: body.etag } : {}),
      ...(body.lastModified !== undefined ? { lastModified: body.lastModified } : {}),
      ...(calendar.name === "" && expanded.calendarName ? { name: expanded.calendarName.slice(0, 200) } : {}),
    });
    return { ...base, status: "updated", eventCount: expanded.instances.length, warnings: expanded.warnings };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await recordCalendarFailure(db, calendar.id, now, message);
    return { ...base, status: "failed", eventCount: calendar.eventCount, warnings: [], error: message };
  }
}

export interface SyncAllOptions extends CalendarSyncDeps {
  /** Only this user's calendars. */
  userName?: string;
  onProgress?: (progress: { index: number; total: number; result: CalendarSyncResult }) => void;
}

/** Syncs every calendar one after another (polite to the hosts); never throws for one calendar's trouble. */
export async function syncAllCalendars(db: Database, options: SyncAllOptions): Promise<CalendarSyncResult[]> {
  let userId: number | undefined;
  if (options.userName !== undefined) {
    const user = await findUserByName(db, options.userName);
    if (!user) throw new Error(`no user named "${options.userName}"`);
    userId = user.id;
  }
  const calendars = await listCalendars(db, userId);
  const results: CalendarSyncResult[] = [];
  for (const [index, calendar] of calendars.entries()) {
    let result: CalendarSyncResult;
    try {
      result = await syncLoadedCalendar(db, calendar, options);
    } catch (error) {
      // Even recording the failure failed (database trouble); report it and carry on with the rest.
      result = {
        calendarId: calendar.id,
        userName: calendar.userName,
        source: calendar.source,
        status: "failed",
        eventCount: calendar.eventCount,
        warnings: [],
        error: error instanceof Error ? error.message : String(error),
      };
    }
    results.push(result);
    options.onProgress?.({ index, total: calendars.length, result });
  }
  return results;
}
