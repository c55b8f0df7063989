/**
 * Derives a run's final state from its outbox rows once none is pending or in flight:
 * all sent → delivered; some sent → delivered, with the failures as the reason; none sent → failed.
 */
import type { Database } from "../../db/client.ts";
import { deliveriesOfRun } from "../../db/queries/deliveries.ts";
import { transitionRun } from "../../db/queries/schedule.ts";
import type { BriefingRun } from "../../db/schema/index.ts";

export async function settleRun(db: Database, runId: number, now: Date): Promise<BriefingRun | undefined> {
  const rows = await deliveriesOfRun(db, runId);
  if (rows.length === 0) return undefined;
  if (rows.some((row) => row.state === "pending" || row.state === "sending")) return undefined;
  const failures = rows
    .filter((row) => row.state === "failed")
    .map((row) => `${row.platform}: ${row.lastError ?? "failed"}`);
  const sent = rows.filter((row) => row.state === "sent");
  if (sent.length === 0) {
    return transitionRun(db, runId, { from: ["delivering"], to: "failed", now, reason: failures.join("; ") });
  }
  return transitionRun(db, runId, {
    from: ["delivering"],
    to: "delivered",
    now,
    ...(failures.length > 0 ? { reason: `partly delivered; ${failures.join("; ")}` } : {}),
  });
}
