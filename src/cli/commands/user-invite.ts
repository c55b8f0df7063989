/**
 * `briefbot user invite <name> [--expires 24h]`: a one-time code the person sends to the bot (`/link CODE`
 * in Telegram or Slack, or Telegram's deep link) to link their own account, so the owner never has to find
 * their platform id. `user add … --invite` prints the same for a new user.
 */
import type { Command } from "commander";
import { DateTime } from "luxon";
import { requireUserByName } from "../../../db/queries/users.ts";
import type { User } from "../../../db/schema/users.ts";
import { createInvites, createPlatformState } from "../../../db/stores/index.ts";
import { errorMessage } from "../../core/errors.ts";
import { createLinking, DEFAULT_INVITE_HOURS } from "../../core/linking/linking.ts";
import { type CliContext, CliError, type ContextFactory, withContext } from "../context.ts";

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A code is a key to the user's data; a month is as long as one should lie around. */
const MAX_VALIDITY_MS = 30 * UNITS.d!;
const GET_ME_TIMEOUT_MS = 5_000;

export function registerUserInvite(user: Command, context: ContextFactory): void {
  user
    .command("invite <name>")
    .description("print a one-time code that links the person's Telegram or Slack account (/link CODE)")
    .option(
      "--expires <duration>",
      "how long the code works, like 30m, 24h or 7d",
      `${DEFAULT_INVITE_HOURS}h`,
    )
    .option("--json", "machine-readable output")
    .action((name: string, options: { expires: string; json?: boolean }) =>
      withContext(context, async (ctx) => {
        const validFor = parseValidity(options.expires);
        await printInvite(ctx, await requireUserByName(ctx.db, name), { validFor, json: options.json });
      }),
    );
}

export interface InviteReport {
  user: string;
  code: string;
  expiresAt: string;
  replaced: number;
  /** The deep link `t.me/<bot>?start=CODE`; null when the bot's username could not be learned. */
  telegramLink: string | null;
}

/** Issues a code for `user` (retiring their earlier unused ones) and prints how it is used. */
export async function printInvite(
  ctx: CliContext,
  user: User,
  options: { validFor?: number | undefined; json?: boolean | undefined } = {},
): Promise<void> {
  const { lines, ...report } = await issueInvite(ctx, user, options.validFor);
  if (options.json) ctx.out.json(report);
  else for (const line of lines) ctx.out.line(line);
}

/** The code and what to tell the owner, for `user add --invite --json` to fold into its own output. */
export async function issueInvite(
  ctx: CliContext,
  user: User,
  validFor?: number,
): Promise<InviteReport & { lines: string[] }> {
  const linking = createLinking({
    invites: createInvites(ctx.db),
    platformState: createPlatformState(ctx.db),
    clock: ctx.clock,
  });
  const invite = await linking.invite(user.id, validFor);
  const bot = await telegramUsername(ctx);
  const deepLink = `https://t.me/${bot.username ?? "<bot username>"}?start=${invite.code}`;
  const expires = DateTime.fromJSDate(invite.expiresAt, { zone: user.timeZone });
  const lines = [
    `invite for ${user.name}: ${invite.code}`,
    `  expires   ${expires.toFormat("ccc d LLL yyyy HH:mm")} (${user.timeZone}); works once`,
    `  Telegram  open ${deepLink}, or send /link ${invite.code} to the bot`,
    ...(bot.username ? [] : [`            (put the bot's username in the link: ${bot.why})`]),
    `  Slack     send /link ${invite.code} to the app, or "link ${invite.code}" in its DM`,
  ];
  if (invite.replaced > 0) {
    const earlier =
      invite.replaced === 1 ? "an earlier unused code" : `${invite.replaced} earlier unused codes`;
    lines.push(`  ${earlier} of ${user.name} no longer work${invite.replaced === 1 ? "s" : ""}`);
  }
  return {
    user: user.name,
    code: invite.code,
    expiresAt: invite.expiresAt.toISOString(),
    replaced: invite.replaced,
    telegramLink: bot.username ? deepLink : null,
    lines,
  };
}

/** "24h", "30m", "7d" in milliseconds; one line saying what is wrong otherwise. */
export function parseValidity(value: string): number {
  const match = /^\s*(\d{1,5})\s*([mhd])\s*$/i.exec(value);
  const amount = Number(match?.[1]);
  const unit = UNITS[match?.[2]?.toLowerCase() ?? ""];
  if (!match || !unit || amount <= 0)
    throw new CliError(`--expires "${value}" is not a duration like 30m, 24h or 7d`);
  if (amount * unit > MAX_VALIDITY_MS) throw new CliError(`--expires "${value}" is longer than 30 days`);
  return amount * unit;
}

/** The bot's username from Telegram (getMe), or why it isn't known. */
async function telegramUsername(ctx: CliContext): Promise<{ username?: string; why: string }> {
  const telegram = ctx.config.telegram;
  if (!telegram) return { why: "TELEGRAM_BOT_TOKEN is not set here" };
  try {
    const response = await ctx.fetch(`${telegram.apiRoot}/bot${telegram.token}/getMe`, {
      signal: AbortSignal.timeout(GET_ME_TIMEOUT_MS),
    });
    const body = (await response.json()) as { ok?: boolean; result?: { username?: unknown } };
    const username = body.result?.username;
    if (body.ok && typeof username === "string") return { username, why: "" };
    return { why: `Telegram's getMe answered HTTP ${response.status}` };
  } catch (error) {
    return { why: `could not ask Telegram (${errorMessage(error)})` };
  }
}
