import type { Command } from "commander";
import type { Database } from "../../../db/client.ts";
import {
  createUser,
  findUserByIdentity,
  findUserByName,
  linkIdentity,
  listIdentities,
  listUsers,
  requireUserByName,
  updateUser,
} from "../../../db/queries/users.ts";
import type { Identity, NewUser, SlotTimes, User } from "../../../db/schema/users.ts";
import { DEFAULT_SLOT_TIMES, SLOT_NAMES } from "../../core/domain.ts";
import { errorMessage } from "../../core/errors.ts";
import { FIELD_LIMITS } from "../../core/field-limits.ts";
import { isValidTimeZone } from "../../core/local-time.ts";
import { type Place, resolveLocation } from "../../sources/weather/geocoding.ts";
import { describeCandidates } from "../../sources/weather/set-location.ts";
import { type CliContext, CliError, type RegisterCommands, withContext } from "../context.ts";
import {
  collect,
  parseCoordinate,
  parseMode,
  parseSlotAssignments,
  parseText,
  parseTimeZone,
} from "../parse.ts";
import { registerUserDataCommands } from "./user-data.ts";
import { issueInvite, printInvite, registerUserInvite } from "./user-invite.ts";

interface UserOptions {
  tz?: string;
  location?: string;
  lat?: string;
  lon?: string;
  telegram?: string;
  slack?: string;
  team?: string;
  slot?: string[];
  mode?: string;
  model?: string;
  profile?: string;
  json?: boolean;
  invite?: boolean;
}

export const registerUserCommands: RegisterCommands = (program, context) => {
  const user = program
    .command("user")
    .description("people briefbot serves, their zones, slots and platform links");

  withUserOptions(
    user.command("add <name>").description("add a user (a time zone, given or taken from --location)"),
  )
    .option("--tz <zone>", "IANA time zone, e.g. Europe/London (default: the --location's zone)")
    .option("--invite", "also print a one-time code they send the bot to link their account")
    .action((name: string, options: UserOptions) =>
      withContext(context, (ctx) => addUser(ctx, name, options)),
    );

  withUserOptions(user.command("set <name>").description("change a user's settings"))
    .option("--tz <zone>", "IANA time zone")
    .action((name: string, options: UserOptions) =>
      withContext(context, (ctx) => setUser(ctx, name, options)),
    );

  user
    .command("link <name>")
    .description("link a Telegram or Slack account to a user")
    .option("--telegram <id>", "Telegram numeric user id")
    .option("--slack <id>", "Slack user id (U…)")
    .option("--team <id>", "Slack team id (T…)")
    .action((name: string, options: UserOptions) =>
      withContext(context, async (ctx) => {
        if (!options.telegram && !options.slack)
          throw new CliError("user link needs --telegram <id> or --slack <id>");
        const target = await requireUserByName(ctx.db, name);
        const links = parseLinks(options);
        await ensureLinksFree(ctx.db, links, target.id);
        for (const link of links) await linkIdentity(ctx.db, target.id, link);
        ctx.out.line(`linked ${links.map(describeLink).join(" and ")} to ${target.name}`);
      }),
    );

  user
    .command("list")
    .description("list users")
    .option("--json", "machine-readable output")
    .action((options: UserOptions) =>
      withContext(context, async (ctx) => {
        const rows = await listUsers(ctx.db);
        if (options.json) return ctx.out.json(rows);
        if (rows.length === 0) return ctx.out.line("no users yet: briefbot user add <name> --tz <zone>");
        for (const row of rows)
          ctx.out.line(
            `${row.name}  ${row.timeZone}  ${row.locationName ?? "no location"}  ${row.briefingMode}`,
          );
      }),
    );

  registerUserInvite(user, context);

  user
    .command("show <name>")
    .description("show one user")
    .option("--json", "machine-readable output")
    .action((name: string, options: UserOptions) =>
      withContext(context, async (ctx) => {
        const row = await requireUserByName(ctx.db, name);
        const links = await listIdentities(ctx.db, row.id);
        if (options.json) return ctx.out.json({ ...row, identities: links });
        for (const line of describeUser(row, links)) ctx.out.line(line);
      }),
    );

  registerUserDataCommands(user, context);
};

function withUserOptions(command: Command): Command {
  return command
    .option("--location <name>", "place name for the weather, resolved once through Open-Meteo geocoding")
    .option("--lat <latitude>", "latitude (with --lon) instead of a place name")
    .option("--lon <longitude>", "longitude (with --lat)")
    .option("--telegram <id>", "link a Telegram numeric user id")
    .option("--slack <id>", "link a Slack user id (U…)")
    .option("--team <id>", "Slack team id (T…)")
    .option(
      "--slot <slot=time>",
      "briefing slot time or off, e.g. morning=07:00, midday=off (repeatable)",
      collect,
    )
    .option("--mode <mode>", "briefing mode: agentic or legacy")
    .option("--model <name>", "preferred model")
    .option("--profile <text>", "free-text profile: tone, interests")
    .option("--json", "machine-readable output");
}

async function addUser(ctx: CliContext, name: string, options: UserOptions): Promise<void> {
  if (!/^[\w.@-]{1,64}$/.test(name))
    throw new CliError(`user name "${name}" may only use letters, digits, . _ - @`);
  if (await findUserByName(ctx.db, name))
    throw new CliError(`a user named "${name}" already exists (use: briefbot user set)`);
  if (options.tz === undefined && options.location === undefined)
    throw new CliError("user add needs --tz <zone>, or --location <place> to take the place's time zone");
  // An explicit zone is checked before any lookup; without one the place must be geocoded to give one.
  const givenZone = options.tz === undefined ? undefined : parseTimeZone(options.tz);
  // Validate everything before the first write, so a bad option leaves nothing behind.
  const { changes, place } = await settingsFromOptions(ctx, options, DEFAULT_SLOT_TIMES);
  const placeZone = place?.timezone && isValidTimeZone(place.timezone) ? place.timezone : undefined;
  const timeZone = givenZone ?? placeZone;
  if (!timeZone) {
    throw new CliError(
      place
        ? `the geocoder gives no time zone for ${place.label}; add --tz <zone>`
        : "coordinates carry no time zone; add --tz <zone>",
    );
  }
  const values: NewUser = { name, timeZone, slots: { ...DEFAULT_SLOT_TIMES } };
  const links = parseLinks(options);
  await ensureLinksFree(ctx.db, links, undefined);
  const created = await ctx.db.transaction(async (tx) => {
    const row = await createUser(tx, { ...values, ...changes });
    for (const link of links) await linkIdentity(tx, row.id, link);
    return row;
  });
  if (options.invite && options.json) {
    const { lines: _lines, ...invite } = await issueInvite(ctx, created);
    ctx.out.json({ ...created, invite });
    return;
  }
  report(ctx, created, options, `added ${created.name} (${created.timeZone})`);
  if (!options.json && givenZone === undefined && place)
    ctx.out.line(`time zone ${created.timeZone} (from ${place.label})`);
  if (options.invite) await printInvite(ctx, created);
}

async function setUser(ctx: CliContext, name: string, options: UserOptions): Promise<void> {
  const existing = await requireUserByName(ctx.db, name);
  const { changes, place } = await settingsFromOptions(ctx, options, existing.slots);
  if (options.tz !== undefined) changes.timeZone = parseTimeZone(options.tz);
  const links = parseLinks(options);
  await ensureLinksFree(ctx.db, links, existing.id);
  if (Object.keys(changes).length === 0 && links.length === 0)
    throw new CliError("nothing to change: give at least one option");
  const updated = await ctx.db.transaction(async (tx) => {
    const row = Object.keys(changes).length > 0 ? await updateUser(tx, existing.id, changes) : existing;
    for (const link of links) await linkIdentity(tx, row.id, link);
    return row;
  });
  report(ctx, updated, options, `updated ${updated.name}`);
  // A new place never moves the briefings silently: say whose zone differs and how to follow it.
  if (!options.json && place?.timezone && place.timezone !== updated.timeZone)
    ctx.out.line(
      `note: ${place.label} is in ${place.timezone}, but ${updated.name}'s time zone stays ${updated.timeZone}; to change it: briefbot user set ${updated.name} --tz ${place.timezone}`,
    );
}

/** The changes the options ask for, and the place they geocoded (whose zone add may take). */
async function settingsFromOptions(
  ctx: CliContext,
  options: UserOptions,
  currentSlots: SlotTimes,
): Promise<{ changes: Partial<NewUser>; place?: Place }> {
  const changes: Partial<NewUser> = {};
  if (options.slot && options.slot.length > 0)
    changes.slots = { ...currentSlots, ...parseSlotAssignments(options.slot) };
  if (options.mode !== undefined) changes.briefingMode = parseMode(options.mode);
  if (options.model !== undefined)
    changes.preferredModel = parseText("--model", options.model.trim(), FIELD_LIMITS.modelName) || null;
  if (options.profile !== undefined)
    changes.profile = parseText("--profile", options.profile, FIELD_LIMITS.userProfile);
  if (options.location !== undefined) parseText("--location", options.location, FIELD_LIMITS.placeName);
  if ((options.lat === undefined) !== (options.lon === undefined))
    throw new CliError("--lat and --lon go together");
  if (options.lat !== undefined && options.lon !== undefined) {
    changes.latitude = parseCoordinate("--lat", options.lat);
    changes.longitude = parseCoordinate("--lon", options.lon);
    changes.locationName = options.location?.trim() || `${changes.latitude}, ${changes.longitude}`;
  } else if (options.location !== undefined) {
    const result = await resolveLocation(
      ctx.fetch,
      ctx.config.openMeteo.geocodingUrl,
      options.location,
    ).catch((error: unknown) => {
      throw new CliError(
        `could not look up "${options.location}": ${errorMessage(error)}; try again or give --lat and --lon`,
        1,
      );
    });
    if (result.kind === "not-found")
      throw new CliError(`no place called "${options.location}" was found; try --lat and --lon`);
    if (result.kind === "ambiguous") {
      throw new CliError(
        `"${options.location}" is ambiguous: ${describeCandidates(result.candidates)} — give a more precise name (e.g. "Lisbon, Portugal") or --lat/--lon`,
      );
    }
    changes.locationName = result.place.label;
    changes.latitude = result.place.latitude;
    changes.longitude = result.place.longitude;
    return { changes, place: result.place };
  }
  return { changes };
}

type Link = {
  platform: "telegram" | "slack";
  externalUserId: string;
  teamId?: string | null;
  chatId?: string | null;
};

function parseLinks(options: UserOptions): Link[] {
  const links: Link[] = [];
  if (options.telegram !== undefined) {
    if (!/^\d{1,20}$/.test(options.telegram))
      throw new CliError(`--telegram "${options.telegram}" is not a numeric Telegram user id`);
    // In a private chat the chat id equals the user id, so delivery can start before they write.
    links.push({ platform: "telegram", externalUserId: options.telegram, chatId: options.telegram });
  }
  if (options.slack !== undefined) {
    if (!/^[UW][A-Z0-9]{2,}$/.test(options.slack))
      throw new CliError(`--slack "${options.slack}" is not a Slack user id (like U012ABCDEF)`);
    if (options.team !== undefined && !/^T[A-Z0-9]{2,}$/.test(options.team))
      throw new CliError(`--team "${options.team}" is not a Slack team id`);
    links.push({ platform: "slack", externalUserId: options.slack, teamId: options.team ?? null });
  }
  return links;
}

async function ensureLinksFree(db: Database, links: Link[], ownerId: number | undefined): Promise<void> {
  for (const link of links) {
    const existing = await findUserByIdentity(db, link.platform, link.externalUserId);
    if (existing && existing.user.id !== ownerId) {
      throw new CliError(`${describeLink(link)} is already linked to ${existing.user.name}`);
    }
  }
}

function describeLink(link: Link): string {
  return `${link.platform === "telegram" ? "Telegram" : "Slack"} ${link.externalUserId}`;
}

function report(ctx: CliContext, row: User, options: UserOptions, summary: string): void {
  if (options.json) ctx.out.json(row);
  else ctx.out.line(summary);
}

export function describeUser(row: User, links: Identity[]): string[] {
  const slots = SLOT_NAMES.map((slot) => `${slot} ${row.slots[slot] ?? "off"}`).join(", ");
  const place =
    row.locationName && row.latitude !== null && row.longitude !== null
      ? `${row.locationName} (${row.latitude.toFixed(2)}, ${row.longitude.toFixed(2)})`
      : "not set";
  return [
    `${row.name}`,
    `  time zone  ${row.timeZone}`,
    `  location   ${place}`,
    `  slots      ${slots}`,
    `  mode       ${row.briefingMode}${row.preferredModel ? `, model ${row.preferredModel}` : ""}`,
    `  linked     ${links.length > 0 ? links.map((link) => `${link.platform} ${link.externalUserId}`).join(", ") : "nothing (terminal only)"}`,
    `  profile    ${row.profile ? row.profile.replace(/\s+/g, " ").slice(0, 100) : "(empty)"}`,
  ];
}
