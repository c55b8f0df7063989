/**
 * `briefbot brief --user U --slot morning`: runs one briefing now through the same runner the scheduler
 * uses, then prints the prose, the status row, the grounding verdict and timings (`--json` for scripts).
 */
import { getRun } from "../../../db/queries/runs.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import { buildAssistantDeps } from "../../assistant-deps.ts";
import type { BriefingOutcome } from "../../core/assistant.ts";
import { type AssistantDeps, createAssistant } from "../../core/assistant-service.ts";
import type { CliContext, RegisterCommands } from "../context.ts";
import { withContext } from "../context.ts";
import { parseSlotName } from "../parse.ts";

interface BriefOptions {
  user: string;
  slot?: string;
  json?: boolean;
}

export const registerBriefCommands: RegisterCommands = (program, context) => {
  program
    .command("brief")
    .description("run one briefing now and print it with its status row, grounding verdict and timings")
    .requiredOption("--user <name>", "whose briefing")
    .option("--slot <slot>", "morning, midday, afternoon or evening (default: from the user's local time)")
    .option("--json", "machine-readable output")
    .action((options: BriefOptions) =>
      withContext(context, async (ctx) => {
        const slot = options.slot === undefined ? undefined : parseSlotName(options.slot);
        const user = await requireUserByName(ctx.db, options.user);
        const assistant = createAssistant(assistantDeps(ctx));
        const outcome = await assistant.brief(user.id, {
          ...(slot ? { slot } : {}),
          ...(options.json ? {} : { onProgress: (text: string) => ctx.out.progress(text) }),
        });
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
      }),
    );
};

/** What every assistant command needs, built from the CLI context; warnings go to stderr. */
export function assistantDeps(ctx: CliContext): AssistantDeps {
  const logger = {
    warn: (details: object, message: string) =>
      ctx.out.progress(`warning: ${message} ${JSON.stringify(details)}`),
  };
  return buildAssistantDeps({ db: ctx.db, config: ctx.config, clock: ctx.clock, fetch: ctx.fetch, logger });
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
    ...part("modelMs", "model"),
    ...part("toolsMs", "tools"),
    ...part("storageMs", "storage"),
    ...part("groundingMs", "grounding"),
  ].join(", ")}`;
}
