/**
 * Brings one subscription's stored occurrences up to date. A failed fetch or a malformed file never
 * replaces events: the last good set stays and the error is recorded on the calendar. Expansion runs on
 * a worker thread (`expand-off-thread.ts`), so a hostile calendar costs the bot no responsiveness.
 */

import type { Database } from "../../../db/client.ts";
import {
  type CalendarWithOwner,
  dropCalendarBody,
  getCalendar,
  getCalendarBody,
  listCalendars,
  recordCalendarFailure,
  recordCalendarNotModified,
} from "../../../db/queries/calendars.ts";
import { replaceCalendarEvents } from "../../../db/queries/events.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import type { Clock } from "../../core/clock.ts";
import { errorMessage } from "../../core/errors.ts";
import { DEFAULT_MAX_BYTES, type FetchFunction } from "../http-cache-fetch.ts";
import type { NetworkPolicy } from "../network/address-policy.ts";
import { type SourceLeases, sourceLeaseName, unsharedSources } from "../source-lease.ts";
import { storableSnippet, storableText } from "../storable-text.ts";
import { defaultExpansionWindow } from "./expand-calendar.ts";
import { type CalendarExpander, expandCalendarOffThread } from "./expand-off-thread.ts";
import { isHttpSource, loadCalendarSource, type ReadFileFunction } from "./fetch-calendar.ts";

export interface CalendarSyncDeps {
  fetch: FetchFunction;
  clock: Clock;
  readFile?: ReadFileFunction;
  timeoutMs?: number;
  maxBytes?: number;
  /** Which addresses calendar fetches and their redirects may reach; default public only. */
  network?: NetworkPolicy;
  /** Default: the process-wide expansion thread. */
  expander?: CalendarExpander;
}

export interface CalendarSyncResult {
  calendarId: number;
  userName: string;
  source: string;
  /**
   * updated: new events stored; not-modified: the server said 304 (the stored body was expanded again for
   * the current window); failed: last good events kept.
   */
  status: "updated" | "not-modified" | "failed";
  eventCount: number;
  warnings: string[];
  error?: string;
}

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
  const maxBytes = deps.maxBytes ?? DEFAULT_MAX_BYTES;
  const expand = (text: string, window: { windowStart: Date; windowEnd: Date }) =>
    deps.expander
      ? deps.expander.expand(text, { userZone: calendar.userTimeZone, ...window })
      : expandCalendarOffThread(text, { userZone: calendar.userTimeZone, ...window });
  let expandingStoredBody = false;
  try {
    // A 304 is only useful with the body it refers to: without one, ask for the whole calendar.
    const loaded = await loadCalendarSource(calendar.source, {
      fetch: deps.fetch,
      ...(deps.readFile ? { readFile: deps.readFile } : {}),
      etag: calendar.hasBody ? calendar.etag : null,
      lastModified: calendar.hasBody ? calendar.lastModified : null,
      ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}),
      ...(deps.network ? { network: deps.network } : {}),
      maxBytes,
    });
    const window = defaultExpansionWindow(now);
    if (loaded.status === "not-modified") {
      const stored = calendar.hasBody ? await getCalendarBody(db, calendar.id) : null;
      if (stored === null) {
        await recordCalendarNotModified(db, calendar.id, now);
        return { ...base, status: "not-modified", eventCount: calendar.eventCount, warnings: [] };
      }
      // The occurrences stored last time were expanded for a window that has since slid with the clock.
      expandingStoredBody = true;
      const expanded = await expand(stored, window);
      await replaceCalendarEvents(db, calendar, expanded.instances, {
        windowStart: window.windowStart,
        at: now,
        warnings: expanded.warnings,
      });
      return {
        ...base,
        status: "not-modified",
        eventCount: expanded.instances.length,
        warnings: expanded.warnings,
      };
    }
    const expanded = await expand(loaded.text, window);
    const keepBody = isHttpSource(calendar.source) && Buffer.byteLength(loaded.text, "utf8") <= maxBytes;
    await replaceCalendarEvents(db, calendar, expanded.instances, {
      windowStart: window.windowStart,
      at: now,
      ...(loaded.etag !== undefined ? { etag: loaded.etag } : {}),
      ...(loaded.lastModified !== undefined ? { lastModified: loaded.lastModified } : {}),
      ...(calendar.name === "" && expanded.calendarName ? { name: expanded.calendarName.slice(0, 200) } : {}),
      // Kept for re-expansion on a 304; PostgreSQL text cannot hold the NULs a hostile file may carry.
      body: keepBody ? storableText(loaded.text) : null,
      warnings: expanded.warnings,
    });
    return { ...base, status: "updated", eventCount: expanded.instances.length, warnings: expanded.warnings };
  } catch (error) {
    // Messages quote the offending input; PostgreSQL must be able to store them.
    const message = storableSnippet(errorMessage(error), 1000);
    await recordCalendarFailure(db, calendar.id, now, message);
    // A stored body that no longer expands would fail the same way after every 304.
    if (expandingStoredBody) await dropCalendarBody(db, calendar.id);
    return { ...base, status: "failed", eventCount: calendar.eventCount, warnings: [], error: message };
  }
}

export interface SyncAllOptions extends CalendarSyncDeps {
  /** Only this user's calendars. */
  userName?: string;
  /** Shared by the processes on one database: a calendar another one is fetching is left out. */
  leases?: SourceLeases;
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
  const guard = options.leases ?? unsharedSources;
  for (const [index, calendar] of calendars.entries()) {
    let result: CalendarSyncResult;
    try {
      const outcome = await guard.exclusive(sourceLeaseName.calendar(calendar.id), () =>
        syncLoadedCalendar(db, calendar, options),
      );
      // Another process is fetching it; what it gets lands in the same rows.
      if (!outcome.ran) continue;
      result = outcome.value;
    } catch (error) {
      // Even recording the failure failed (database trouble); report it and carry on with the rest.
      result = {
        calendarId: calendar.id,
        userName: calendar.userName,
        source: calendar.source,
        status: "failed",
        eventCount: calendar.eventCount,
        warnings: [],
        error: errorMessage(error),
      };
    }
    results.push(result);
    options.onProgress?.({ index, total: calendars.length, result });
  }
  return results;
}
