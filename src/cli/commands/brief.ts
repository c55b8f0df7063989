/**
 * `briefbot brief --user U --slot morning`: runs one briefing now through the same runner the scheduler
 * uses, then prints the prose, the status row, the grounding verdict and timings (`--json` for scripts).
 */
import { getRun } from "../../../db/queries/runs.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import { createOutbox, createPlatforms } from "../../app.ts";
import { buildCore } from "../../build-core.ts";
import {
  type BriefingEvent,
  type BriefingOutcome,
  type Core,
  type Delivery,
  progressLine,
} from "../../core/index.ts";
import type { Ports } from "../../core/ports.ts";
import { createLogger } from "../../logger.ts";
import { holdProcessLease, newOwnerId } from "../../runtime/process-lease.ts";
import type { CliContext, RegisterCommands } from "../context.ts";
import { withContext } from "../context.ts";
import { parseSlotName } from "../parse.ts";

interface BriefOptions {
  user: string;
  slot?: string;
  deliver?: boolean;
  json?: boolean;
}

export const registerBriefCommands: RegisterCommands = (program, context) => {
  program
    .command("brief")
    .description("run one briefing now and print it with its status row, grounding verdict and timings")
    .requiredOption("--user <name>", "whose briefing")
    .option("--slot <slot>", "morning, midday, afternoon or evening (default: from the user's local time)")
    .option("--deliver", "also post it to the user's linked Telegram / Slack, through the delivery outbox")
    .option("--json", "machine-readable output")
    .action((options: BriefOptions) =>
      withContext(context, async (ctx) => {
        const slot = options.slot === undefined ? undefined : parseSlotName(options.slot);
        const user = await requireUserByName(ctx.db, options.user);
        const core = assistantCore(ctx);
        // The run is this command's own while it generates: its lease keeps the bot from reclaiming it.
        const lease = await holdProcessLease(core.ports.leases, core.owner, { clock: ctx.clock });
        let outcome: BriefingOutcome;
        let deliveries: Delivery[] | undefined;
        try {
          outcome = await core.assistant.brief(user.id, {
            ...(slot ? { slot } : {}),
            ...(options.json ? {} : { onEvent: (event: BriefingEvent) => showProgress(ctx, event) }),
          });
          deliveries = options.deliver ? await deliverNow(ctx, core, outcome.runId) : undefined;
        } finally {
          await lease.stop();
        }
        const run = await getRun(ctx.db, outcome.runId);
        if (options.json) {
          return ctx.out.json({
            ...outcome,
            model: run
              ? {
                  route: run.route,
                  endpoint: run.endpoint,
                  model: run.model,
                  turns: run.turns,
                  toolCalls: run.toolCalls,
                }
              : null,
            ...(deliveries ? { deliveries } : {}),
          });
        }
        ctx.out.line(outcome.prose);
        ctx.out.line("");
        ctx.out.line(outcome.statusRow || "(no tools were called)");
        ctx.out.line(groundingLine(outcome));
        ctx.out.line(
          `run ${outcome.runId} · ${outcome.mode}${run?.model ? ` · ${run.model} on ${run.endpoint}` : ""} · ${run?.turns ?? 0} model turns · ${run?.toolCalls ?? 0} tool calls`,
        );
        ctx.out.line(timingLine(outcome.timings));
        if (deliveries) for (const delivery of deliveries) ctx.out.line(deliveryLine(delivery));
      }),
    );
};

/** The core every assistant command uses, built from the CLI context; warnings and errors go to stderr. */
export function assistantCore(ctx: CliContext): Core & { ports: Ports; owner: string } {
  const report = (level: string) => (details: object, message: string) =>
    ctx.out.progress(`${level}: ${message} ${JSON.stringify(details)}`);
  const logger = { info: () => {}, warn: report("warning"), error: report("error") };
  const owner = newOwnerId("cli");
  const core = buildCore({
    db: ctx.db,
    config: ctx.config,
    clock: ctx.clock,
    fetch: ctx.fetch,
    logger,
    owner,
  });
  return { ...core, owner };
}

/**
 * Progress on stderr: "refreshing weather and calendars…" while stale sources are fetched, what came of
 * them, then one line per tool result ("✓ list_events", "✗ get_weather").
 */
function showProgress(ctx: CliContext, event: BriefingEvent): void {
  const line = progressLine(event);
  if (line !== undefined) ctx.out.progress(line);
}

/** Sends the run through the same outbox the scheduler uses, and waits for the outcome. */
async function deliverNow(
  ctx: CliContext,
  core: ReturnType<typeof assistantCore>,
  runId: number,
): Promise<Delivery[]> {
  const appDeps = {
    ...ctx,
    logger: createLogger(ctx.config.logLevel === "info" ? "warn" : ctx.config.logLevel),
  };
  const platforms = await createPlatforms(appDeps, core.assistant);
  try {
    const outbox = createOutbox(appDeps, core.ports, core.owner, platforms.senders);
    await outbox.enqueue(runId);
    await outbox.drain();
  } finally {
    await platforms.stop();
  }
  return core.ports.runQueue.deliveriesOf(runId);
}

function deliveryLine(delivery: Delivery): string {
  if (delivery.platform === "cli")
    return "not delivered: no Telegram or Slack account is linked to this user";
  if (delivery.state === "sent")
    return `delivered to ${delivery.platform} ${delivery.target} (message ${delivery.platformMessageId})`;
  const where = delivery.target ? `${delivery.platform} ${delivery.target}` : delivery.platform;
  return `${where}: ${delivery.state}${delivery.lastError ? ` — ${delivery.lastError}` : ""}`;
}

export function groundingLine(outcome: Pick<BriefingOutcome, "grounding">): string {
  const verdict = outcome.grounding;
  if (!verdict) return "grounding: not checked";
  const unbacked =
    verdict.unbacked.length === 0
      ? "all backed"
      : `unbacked: ${verdict.unbacked.map((claim) => `"${claim}"`).join(", ")}`;
  const action = verdict.action === "none" ? "" : ` → ${verdict.action.replace("_", " ")}`;
  return `grounding: ${verdict.claimsChecked} claims checked, ${unbacked}${action}`;
}

function timingLine(timings: Record<string, number>): string {
  const part = (key: string, label: string) =>
    timings[key] === undefined ? [] : [`${label} ${Math.round(timings[key] ?? 0)} ms`];
  return `timings: ${[
    ...part("totalMs", "total"),
    ...part("refreshMs", "refresh"),
    ...part("modelMs", "model"),
    ...part("toolsMs", "tools"),
    ...part("storageMs", "storage"),
    ...part("groundingMs", "grounding"),
  ].join(", ")}`;
}
