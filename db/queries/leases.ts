/** Named leases: one live holder per name, renewed before it lapses, free for anyone once it has. */
import { and, eq, gt, ne, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database } from "../client.ts";
import { leases } from "../schema/index.ts";

/**
 * Takes a lapsed or free lease, or renews one's own, in one statement: the conflict update only applies
 * when the row is the caller's or has lapsed, so of two processes racing for a free name exactly one wins.
 */
export async function acquireLease(
  db: Database,
  name: string,
  holder: string,
  ttlMs: number,
  at: Date,
): Promise<boolean> {
  const expiresAt = new Date(at.getTime() + ttlMs);
  const rows = await db
    .insert(leases)
    .values({ name, holder, acquiredAt: at, expiresAt })
    .onConflictDoUpdate({
      target: leases.name,
      set: {
        holder,
        expiresAt,
        acquiredAt: sql`case when ${leases.holder} = ${holder} then ${leases.acquiredAt} else ${at.toISOString()}::timestamptz end`,
      },
      // Dates inside sql`` go as text: postgres.js serialises only typed column parameters.
      setWhere: sql`${leases.holder} = ${holder} or ${leases.expiresAt} <= ${at.toISOString()}::timestamptz`,
    })
    .returning({ holder: leases.holder });
  return rows.length > 0;
}

export async function releaseLease(db: Database, name: string, holder: string): Promise<void> {
  await db.delete(leases).where(and(eq(leases.name, name), eq(leases.holder, holder)));
}

export async function leaseHolder(db: Database, name: string, at: Date): Promise<string | undefined> {
  const [row] = await db
    .select({ holder: leases.holder })
    .from(leases)
    .where(and(eq(leases.name, name), gt(leases.expiresAt, at)))
    .limit(1);
  return row?.holder;
}

export async function voidLeasesOfOthers(db: Database, holder: string): Promise<number> {
  const rows = await db.delete(leases).where(ne(leases.holder, holder)).returning({ name: leases.name });
  return rows.length;
}

/**
 * `column` (holding a process id) names a process that has no live lease at `at`: every process renews a
 * lease named `process:<its id>` while it lives (src/runtime/process-lease.ts), so what it owned is
 * orphaned once that lapses.
 */
function ownerIsGone(column: AnyPgColumn, at: Date): SQL {
  return sql`not exists (select 1 from ${leases} where ${leases.name} = 'process:' || ${column} and ${leases.expiresAt} > ${at.toISOString()}::timestamptz)`;
}

/**
 * The owner column's process is gone: its lease lapsed, or (`everyOtherOwner`) it is not `owner`. Never
 * `owner` itself: a process asking is alive, even one whose lease lapsed while it stalled — taking its own
 * work back would do that work a second time beside the first.
 */
export function orphanedBy(column: AnyPgColumn, owner: string, at: Date, everyOtherOwner: boolean): SQL {
  return everyOtherOwner
    ? sql`${column} is distinct from ${owner}`
    : sql`(${column} is null or (${column} <> ${owner} and ${ownerIsGone(column, at)}))`;
}
