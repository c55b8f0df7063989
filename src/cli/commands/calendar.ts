import { statSync } from "node:fs";
import { resolve } from "node:path";
import { DateTime } from "luxon";
import type { Database } from "../../../db/client.ts";
import {
  addCalendar,
  CalendarExistsError,
  type CalendarWithOwner,
  listCalendars,
  removeCalendar,
} from "../../../db/queries/calendars.ts";
import {
  createEvent,
  deleteEvent,
  EVENT_RANGES,
  EventInputError,
  type EventRange,
  type EventView,
  listEvents,
} from "../../../db/queries/events.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import type { User } from "../../../db/schema/index.ts";
import { redactAddress, redactAddressesIn } from "../../core/redact.ts";
import { isHttpSource, normalizeCalendarSource } from "../../sources/calendar/fetch-calendar.ts";
import {
  type CalendarSyncResult,
  syncAllCalendars,
  syncCalendar,
} from "../../sources/calendar/sync-calendar.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";
import { probeCalendar } from "../source-probe.ts";

interface CalendarOptions {
  user?: string;
  json?: boolean;
  showSecrets?: boolean;
}

const SHOW_SECRETS = "show calendar addresses in full (anyone who has one can read the calendar)";

/** Secret addresses are shown redacted unless the owner asks for them. */
function shower(options: CalendarOptions) {
  return {
    address: options.showSecrets ? (address: string) => address : redactAddress,
    text: options.showSecrets ? (text: string) => text : redactAddressesIn,
  };
}

export const registerCalendarCommands: RegisterCommands = (program, context) => {
  const calendar = program
    .command("calendar")
    .description("iCalendar subscriptions (Google, Outlook, iCloud, .ics files)");

  calendar
    .command("add <url-or-file>")
    .description(
      "subscribe a user to a secret ICS address or a local .ics file (fetched and parsed first: one that fails is not added)",
    )
    .requiredOption("--user <name>", "whose calendar")
    .option("--json", "machine-readable output")
    .option("--show-secrets", SHOW_SECRETS)
    .action((input: string, options: CalendarOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx.db, options.user ?? "");
        const show = shower(options);
        const source = validateSource(input, show.address);
        if ((await listCalendars(ctx.db, owner.id)).some((row) => row.source === source))
          throw new CliError(`${owner.name} is already subscribed to ${show.address(source)}`);
        await probeCalendar(source, owner.timeZone, {
          fetch: ctx.fetch,
          now: ctx.clock.now(),
          network: ctx.config.sources,
          showSecrets: options.showSecrets ?? false,
        });
        let added: Awaited<ReturnType<typeof addCalendar>>;
        try {
          added = await addCalendar(ctx.db, { userId: owner.id, source });
        } catch (error) {
          if (error instanceof CalendarExistsError)
            throw new CliError(`${owner.name} is already subscribed to ${show.address(source)}`);
          throw error;
        }
        const result = await syncCalendar(ctx.db, added.id, {
          fetch: ctx.fetch,
          clock: ctx.clock,
          network: ctx.config.sources,
        });
        if (options.json) {
          return ctx.out.json({
            calendarId: added.id,
            source: show.address(source),
            sync: {
              ...result,
              source: show.address(result.source),
              ...(result.error ? { error: show.text(result.error) } : {}),
            },
          });
        }
        ctx.out.line(`added calendar ${added.id} for ${owner.name}: ${show.address(source)}`);
        ctx.out.line(describeResult(result, show.text));
      }),
    );

  calendar
    .command("list")
    .description("subscriptions with last sync time, event count, warnings and last error")
    .option("--user <name>", "only this user's calendars")
    .option("--json", "machine-readable output")
    .option("--show-secrets", SHOW_SECRETS)
    .action((options: CalendarOptions) =>
      withContext(context, async (ctx) => {
        const owner = options.user === undefined ? undefined : await requireUser(ctx.db, options.user);
        const rows = await listCalendars(ctx.db, owner?.id);
        const show = shower(options);
        if (options.json) {
          return ctx.out.json(
            rows.map((row) => ({
              ...row,
              source: show.address(row.source),
              lastError: row.lastError === null ? null : show.text(row.lastError),
            })),
          );
        }
        if (rows.length === 0) return ctx.out.line(owner ? `${owner.name} has no calendars` : "no calendars");
        for (const row of rows) ctx.out.line(describeCalendar(row, show));
      }),
    );

  calendar
    .command("sync")
    .description("sync calendars now")
    .option("--user <name>", "only this user's calendars")
    .option("--json", "machine-readable output")
    .option("--show-secrets", SHOW_SECRETS)
    .action((options: CalendarOptions) =>
      withContext(context, async (ctx) => {
        const show = shower(options);
        const owner = options.user === undefined ? undefined : await requireUser(ctx.db, options.user);
        const results = await syncAllCalendars(ctx.db, {
          fetch: ctx.fetch,
          clock: ctx.clock,
          network: ctx.config.sources,
          ...(owner ? { userName: owner.name } : {}),
          onProgress: ({ index, total, result }) =>
            ctx.out.progress(
              `[${index + 1}/${total}] ${result.userName} · ${show.address(result.source)}: ${describeResult(result, show.text)}`,
            ),
        });
        if (options.json) {
          return ctx.out.json(
            results.map((result) => ({
              ...result,
              source: show.address(result.source),
              ...(result.error ? { error: show.text(result.error) } : {}),
            })),
          );
        }
        const failed = results.filter((result) => result.status === "failed").length;
        ctx.out.line(
          results.length === 0
            ? "no calendars to sync"
            : `synced ${results.length - failed}/${results.length} calendars`,
        );
      }),
    );

  calendar
    .command("remove <id>")
    .description("unsubscribe (removes its synced events; chat-created events stay)")
    .requiredOption("--user <name>", "whose calendar")
    .action((id: string, options: CalendarOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx.db, options.user ?? "");
        const calendarId = positiveInt("calendar id", id);
        if (!(await removeCalendar(ctx.db, owner.id, calendarId))) {
          throw new CliError(`${owner.name} has no calendar ${calendarId}`);
        }
        ctx.out.line(`removed calendar ${calendarId}`);
      }),
    );
};

interface EventOptions {
  user: string;
  title?: string;
  start?: string;
  end?: string;
  allDay?: boolean;
  date?: string;
  endDate?: string;
  location?: string;
  range?: string;
  days?: string;
  json?: boolean;
}

export const registerEventCommands: RegisterCommands = (program, context) => {
  const event = program.command("event").description("a user's calendar events (synced and created by hand)");

  event
    .command("add")
    .description(
      'add an event: --start "2026-12-01 10:00" or --all-day --date 2026-12-01 (in the user\'s zone)',
    )
    .requiredOption("--user <name>", "whose event")
    .requiredOption("--title <text>", "what it is")
    .option("--start <local time>", '"YYYY-MM-DD HH:MM" in the user\'s zone')
    .option("--end <local time>", '"YYYY-MM-DD HH:MM" (default: one hour after the start)')
    .option("--all-day", "an all-day event (with --date)")
    .option("--date <date>", "YYYY-MM-DD, for --all-day")
    .option("--end-date <date>", "last day YYYY-MM-DD of a multi-day all-day event")
    .option("--location <text>", "where")
    .option("--json", "machine-readable output")
    .action((options: EventOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx.db, options.user);
        const common = {
          title: options.title ?? "",
          location: options.location ?? "",
          timeZone: owner.timeZone,
        };
        try {
          let created: Awaited<ReturnType<typeof createEvent>>;
          if (options.allDay) {
            if (!options.date) throw new CliError("--all-day needs --date YYYY-MM-DD");
            if (options.start) throw new CliError("use --date (not --start) with --all-day");
            const endDate = options.endDate ? nextDate(options.endDate) : undefined;
            created = await createEvent(ctx.db, owner.id, {
              ...common,
              allDay: true,
              startDate: options.date,
              ...(endDate ? { endDate } : {}),
            });
          } else {
            if (!options.start)
              throw new CliError('an event needs --start "YYYY-MM-DD HH:MM" (or --all-day --date D)');
            const startsAt = parseLocal("--start", options.start, owner.timeZone);
            const endsAt = options.end ? parseLocal("--end", options.end, owner.timeZone) : undefined;
            created = await createEvent(ctx.db, owner.id, {
              ...common,
              startsAt,
              ...(endsAt ? { endsAt } : {}),
            });
          }
          if (options.json) return ctx.out.json(created);
          const when = created.allDay
            ? `${created.startDate} (all day)`
            : DateTime.fromJSDate(created.startsAt, { zone: owner.timeZone }).toFormat("yyyy-MM-dd HH:mm");
          ctx.out.line(`added event ${created.id}: ${created.title} · ${when}`);
        } catch (error) {
          if (error instanceof EventInputError) throw new CliError(error.message);
          throw error;
        }
      }),
    );

  event
    .command("list")
    .description("events in the user's zone")
    .requiredOption("--user <name>", "whose events")
    .option("--range <range>", `one of ${EVENT_RANGES.join(", ")}`, "today")
    .option("--days <n>", "with --range upcoming: how many days ahead", "7")
    .option("--json", "machine-readable output")
    .action((options: EventOptions) =>
      withContext(context, async (ctx) => {
        const range = options.range ?? "today";
        if (!(EVENT_RANGES as readonly string[]).includes(range)) {
          throw new CliError(`--range "${range}" must be one of ${EVENT_RANGES.join(", ")}`);
        }
        const days = positiveInt("--days", options.days ?? "7");
        const owner = await requireUser(ctx.db, options.user);
        const rows = await listEvents(ctx.db, owner, {
          range: range as EventRange,
          days,
          now: ctx.clock.now(),
        });
        if (options.json) return ctx.out.json(rows);
        if (rows.length === 0) return ctx.out.line(`no events ${range === "upcoming" ? "coming up" : range}`);
        for (const row of rows) ctx.out.line(describeEvent(row));
      }),
    );

  event
    .command("delete <id>")
    .description("delete an event created by hand or in chat (synced events come from their calendar)")
    .requiredOption("--user <name>", "whose event")
    .action((id: string, options: EventOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx.db, options.user);
        const eventId = positiveInt("event id", id);
        if (!(await deleteEvent(ctx.db, owner.id, eventId))) {
          throw new CliError(`${owner.name} has no hand-made event ${eventId}`);
        }
        ctx.out.line(`deleted event ${eventId}`);
      }),
    );
};

async function requireUser(db: Database, name: string): Promise<User> {
  const user = name === "" ? undefined : await findUserByName(db, name);
  if (!user) throw new CliError(`no user named "${name}" (see: briefbot user list)`);
  return user;
}

function validateSource(input: string, show: (address: string) => string): string {
  const source = normalizeCalendarSource(input);
  if (isHttpSource(source)) {
    try {
      new URL(source);
    } catch {
      throw new CliError(`"${show(input)}" is not a valid http(s) address`);
    }
    return source;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw new CliError(
      `"${show(input)}" is neither an http(s) address nor a file (only http, https and webcal are supported)`,
    );
  }
  const path = resolve(source);
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw new CliError(`"${input}" is neither an http(s) address nor an existing file`);
  }
  if (!isFile) throw new CliError(`"${input}" is not a file`);
  return path;
}

function parseLocal(option: string, value: string, zone: string): Date {
  const trimmed = value.trim();
  for (const format of [
    "yyyy-MM-dd HH:mm",
    "yyyy-MM-dd'T'HH:mm",
    "yyyy-MM-dd HH:mm:ss",
    "yyyy-MM-dd'T'HH:mm:ss",
  ]) {
    const parsed = DateTime.fromFormat(trimmed, format, { zone });
    if (parsed.isValid) return parsed.toJSDate();
  }
  throw new CliError(`${option} "${value}" is not a local time like "2026-12-01 10:00"`);
}

function nextDate(date: string): string {
  const parsed = DateTime.fromISO(date, { zone: "UTC" });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !parsed.isValid)
    throw new CliError(`--end-date "${date}" is not a date (YYYY-MM-DD)`);
  return parsed.plus({ days: 1 }).toISODate() ?? date;
}

function positiveInt(option: string, value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw new CliError(`${option} "${value}" must be a positive whole number`);
  }
  return parsed;
}

function describeResult(result: CalendarSyncResult, showText: (text: string) => string): string {
  const warnings = result.warnings.length > 0 ? ` (${describeWarnings(result.warnings)})` : "";
  if (result.status === "updated")
    return `synced: ${result.eventCount} events in the next two weeks${warnings}`;
  if (result.status === "not-modified") return `unchanged since the last sync (${result.eventCount} events)`;
  return `sync failed, last good events kept: ${showText(result.error ?? "unknown error")}`;
}

/** "1 warning: …", "3 warnings: first; second; and 1 more". */
function describeWarnings(warnings: string[]): string {
  const shown = warnings.slice(0, 2).join("; ");
  const more = warnings.length > 2 ? `; and ${warnings.length - 2} more` : "";
  return `${warnings.length} warning${warnings.length === 1 ? "" : "s"}: ${shown}${more}`;
}

function describeCalendar(row: CalendarWithOwner, show: ReturnType<typeof shower>): string {
  const name = row.name ? ` "${row.name}"` : "";
  const synced = row.lastSyncAt
    ? `last sync ${DateTime.fromJSDate(row.lastSyncAt, { zone: row.userTimeZone }).toFormat("yyyy-MM-dd HH:mm")}`
    : "never synced";
  const warnings = row.lastWarnings.length > 0 ? ` · ${describeWarnings(row.lastWarnings)}` : "";
  const error = row.lastError ? ` · error: ${show.text(row.lastError)}` : "";
  return `${String(row.id).padStart(4)}  ${row.userName}${name} · ${show.address(row.source)} · ${synced} · ${row.eventCount} events${warnings}${error}`;
}

function describeEvent(view: EventView): string {
  const when = view.allDay
    ? view.start === view.end
      ? `${view.start} all day`
      : `${view.start} – ${view.end} all day`
    : `${view.start} – ${view.end.slice(0, 10) === view.start.slice(0, 10) ? view.end.slice(11) : view.end}`;
  const extras = [
    view.location,
    view.status === "tentative" ? "tentative" : "",
    view.source === "chat" ? "added by hand" : "",
  ]
    .filter(Boolean)
    .join(" · ");
  return `${String(view.id).padStart(4)}  ${when}  ${view.title}${extras ? ` · ${extras}` : ""}`;
}
