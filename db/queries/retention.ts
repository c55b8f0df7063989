/**
 * The retention roll-up: a run older than the window leaves every model context (its messages are deleted)
 * but its receipts stay readable in `run_archives`, so `/receipts` can still answer "what did it see?".
 */
import { eq, inArray } from "drizzle-orm";
import type { Database } from "../client.ts";
import { briefingRuns, messages, runArchives } from "../schema/index.ts";
import { type Receipt, receiptFromMessage } from "./messages.ts";
import { listRunsToArchive } from "./runs.ts";

const DAY_MS = 86_400_000;

/** What an archive stores per receipt; `at` as ISO text because it lives in JSON. */
export interface ArchivedReceipt extends Omit<Receipt, "at"> {
  at: string;
}

export async function rollUpOldRuns(
  db: Database,
  options: { now: Date; retentionDays: number; userId?: number },
): Promise<{ archivedRuns: number[] }> {
  const before = new Date(options.now.getTime() - options.retentionDays * DAY_MS);
  const runs = await listRunsToArchive(db, before, options.userId);
  const archived: number[] = [];
  for (const run of runs) {
    await db.transaction(async (tx) => {
      const rows = await tx.select().from(messages).where(eq(messages.runId, run.id)).orderBy(messages.id);
      const receipts: ArchivedReceipt[] = rows
        .filter((row) => row.role === "tool")
        .map((row) => {
          const receipt = receiptFromMessage(row);
          return { ...receipt, at: receipt.at.toISOString() };
        });
      await tx
        .insert(runArchives)
        .values({ runId: run.id, userId: run.userId, receipts, archivedAt: options.now })
        .onConflictDoNothing({ target: runArchives.runId });
      await tx.delete(messages).where(inArray(messages.runId, [run.id]));
      await tx.update(briefingRuns).set({ archivedAt: options.now }).where(eq(briefingRuns.id, run.id));
    });
    archived.push(run.id);
  }
  return { archivedRuns: archived };
}

export async function getArchivedReceipts(db: Database, runId: number): Promise<Receipt[] | undefined> {
  const [row] = await db.select().from(runArchives).where(eq(runArchives.runId, runId)).limit(1);
  if (!row) return undefined;
  return row.receipts.filter(isArchivedReceipt).map((receipt) => ({ ...receipt, at: new Date(receipt.at) }));
}

function isArchivedReceipt(value: unknown): value is ArchivedReceipt {
  return typeof value === "object" && value !== null && "toolName" in value && "at" in value;
}
