/**
 * `briefbot runs`: the ledger of briefing runs — state, timings, deliveries and why anything failed or
 * was skipped — so "did my 07:00 briefing go out, and if not why?" has a one-command answer.
 */
import { listRunsWithDeliveries, type RunListing } from "../../../db/queries/schedule.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import { addDays, formatLocal, isIsoDate, localDate } from "../../core/local-time.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";
import { parsePositiveInt } from "../parse.ts";

interface RunsOptions {
  user?: string;
  date?: string;
  limit?: string;
  json?: boolean;
}

export const registerRunsCommands: RegisterCommands = (program, context) => {
  program
    .command("runs")
    .description("briefing runs, newest first: state, timings, deliveries and failure reasons")
    .option("--user <name>", "only this user's runs")
    .option("--date <date>", "only runs for this local date: YYYY-MM-DD, today or yesterday")
    .option("--limit <n>", "at most this many runs (default 50)")
    .option("--json", "machine-readable output")
    .action((options: RunsOptions) =>
      withContext(context, async (ctx) => {
        const user = options.user === undefined ? undefined : await findUserByName(ctx.db, options.user);
        if (options.user !== undefined && !user) {
          throw new CliError(`no user named "${options.user}" (see: briefbot user list)`);
        }
        const limit = options.limit === undefined ? 50 : parsePositiveInt("--limit", options.limit);
        const date =
          options.date === undefined
            ? undefined
            : parseRunDate(options.date, ctx.clock.now(), user?.timeZone ?? "UTC");
        const listings = await listRunsWithDeliveries(ctx.db, {
          ...(user ? { userId: user.id } : {}),
          ...(date ? { localDate: date } : {}),
          limit,
        });
        if (options.json) return ctx.out.json(listings.map(toJson));
        if (listings.length === 0) {
          return ctx.out.line(`no runs${user ? ` for ${user.name}` : ""}${date ? ` on ${date}` : ""}`);
        }
        for (const listing of listings) for (const line of describeRun(listing)) ctx.out.line(line);
      }),
    );
};

function parseRunDate(value: string, now: Date, zone: string): string {
  if (value === "today") return localDate(now, zone);
  if (value === "yesterday") return addDays(localDate(now, zone), -1);
  if (!isIsoDate(value))
    throw new CliError(`--date "${value}" is not a date (use YYYY-MM-DD, today or yesterday)`);
  return value;
}

/** Header line, timings, one line per delivery, and the reason when there is one. */
export function describeRun(listing: RunListing): string[] {
  const { run, userName, timeZone } = listing;
  const at = (instant: Date) => formatLocal(instant, timeZone, "HH:mm:ss");
  const since = (instant: Date | null) =>
    instant ? ` +${formatSeconds((instant.getTime() - run.claimedAt.getTime()) / 1000)}` : "";
  const timings = [`claimed ${at(run.claimedAt)}`];
  if (run.generatedAt) timings.push(`generated${since(run.generatedAt)}`);
  if (run.deliveredAt) timings.push(`delivered${since(run.deliveredAt)}`);
  if (!run.generatedAt && !run.deliveredAt && run.state !== "claimed") {
    timings.push(`${run.state}${since(run.updatedAt)}`);
  }
  const lines = [
    `#${run.id} ${userName} ${run.slot} ${run.localDate} (${run.trigger}) ${run.state.toUpperCase()} · ${timings.join(" · ")}`,
  ];
  for (const delivery of listing.deliveries) {
    const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`;
    const detail =
      delivery.state === "sent"
        ? delivery.platformMessageId
          ? `sent as ${delivery.platformMessageId}${delivery.sentAt ? ` at ${at(delivery.sentAt)}` : ""}, ${attempts}`
          : "kept for the CLI (briefbot receipts)"
        : delivery.state === "failed"
          ? `FAILED after ${attempts}: ${delivery.lastError ?? "no reason recorded"}`
          : `${delivery.state}, ${attempts}${delivery.lastError ? ` (last error: ${delivery.lastError})` : ""}`;
    lines.push(`    ${delivery.platform} → ${delivery.target ?? "(not sent yet)"}: ${detail}`);
  }
  if (run.reason) lines.push(`    reason: ${run.reason}`);
  return lines;
}

function formatSeconds(seconds: number): string {
  return seconds < 100 ? `${seconds.toFixed(1)}s` : `${Math.round(seconds)}s`;
}

function toJson(listing: RunListing) {
  const { run } = listing;
  return {
    id: run.id,
    user: listing.userName,
    slot: run.slot,
    localDate: run.localDate,
    trigger: run.trigger,
    state: run.state,
    reason: run.reason,
    mode: run.mode,
    claimedAt: run.claimedAt.toISOString(),
    generatedAt: run.generatedAt?.toISOString() ?? null,
    deliveredAt: run.deliveredAt?.toISOString() ?? null,
    updatedAt: run.updatedAt.toISOString(),
    timings: run.timings,
    grounding: run.grounding,
    deliveries: listing.deliveries.map((delivery) => ({
      ...delivery,
      sentAt: delivery.sentAt?.toISOString() ?? null,
    })),
  };
}
