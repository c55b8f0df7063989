/** `briefbot receipts --user U [--run ID]`: what each tool of a briefing was asked and what it returned. */

import { getUserRun, latestFinishedRun } from "../../../db/queries/runs.ts";
import { requireUserByName } from "../../../db/queries/users.ts";
import { createReceiptLog } from "../../../db/stores/index.ts";
import { type ReceiptsView, receiptBlock, receiptsView } from "../../core/index.ts";
import { formatLocal } from "../../core/local-time.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";
import { parseId } from "../parse.ts";

interface ReceiptsOptions {
  user: string;
  run?: string;
  json?: boolean;
}

export const registerReceiptsCommands: RegisterCommands = (program, context) => {
  program
    .command("receipts")
    .description("each tool call of a briefing with its arguments and result (latest briefing by default)")
    .requiredOption("--user <name>", "whose briefing")
    .option("--run <id>", "a specific run")
    .option("--json", "machine-readable output (full results)")
    .action((options: ReceiptsOptions) =>
      withContext(context, async (ctx) => {
        const user = await requireUserByName(ctx.db, options.user);
        const runId = options.run === undefined ? undefined : parseId("--run", options.run);
        const run =
          options.run === undefined
            ? await latestFinishedRun(ctx.db, user.id)
            : runId === undefined
              ? undefined
              : await getUserRun(ctx.db, user.id, runId);
        if (!run) {
          throw new CliError(
            options.run === undefined
              ? `${user.name} has no briefing yet`
              : `${user.name} has no run ${options.run.trim()} (no such run)`,
          );
        }
        const view = await receiptsView(createReceiptLog(ctx.db), run);
        if (options.json) return ctx.out.json(view);
        for (const line of formatReceipts(view, user.timeZone)) ctx.out.line(line);
      }),
    );
};

/** Every receipt whole: what the tool was asked, when, and every item and field it returned. */
export function formatReceipts(view: ReceiptsView, zone: string): string[] {
  const lines = [
    `run ${view.run.id} · ${view.run.slot} of ${view.run.localDate}${view.run.archived ? " (archived)" : ""} · ${view.receipts.length} tool calls`,
  ];
  if (view.receipts.length === 0) lines.push("  (no tool calls)");
  for (const receipt of view.receipts) {
    const args = Object.keys(receipt.arguments).length > 0 ? JSON.stringify(receipt.arguments) : "";
    lines.push(
      `${formatLocal(receipt.at, zone, "HH:mm:ss")}  ${receipt.error ? "✗" : "✓"} ${receipt.toolName}(${args})`,
    );
    for (const line of receiptBlock(receipt, zone).lines) lines.push(`          ${line}`);
  }
  return lines;
}
