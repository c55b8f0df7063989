/**
 * Is the schema current? drizzle's migrator answers by creating its bookkeeping schema and table (writes),
 * then comparing; on every CLI command and every start that is wasted work. This reads the committed
 * journal and the last applied migration's timestamp — one read-only query — the way the migrator decides.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type SQL, sql } from "drizzle-orm";

/** Any drizzle PostgreSQL database: only `execute` is used. */
export interface Executes {
  execute(query: SQL): PromiseLike<unknown>;
}

interface Journal {
  entries: Array<{ tag: string; when: number }>;
}

/** Migrations of `folder` the database has not applied, oldest first (all of them on an empty database). */
export async function pendingMigrations(db: Executes, folder: string): Promise<string[]> {
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as Journal;
  const lastApplied = await lastAppliedAt(db);
  return journal.entries.filter((entry) => lastApplied < entry.when).map((entry) => entry.tag);
}

async function lastAppliedAt(db: Executes): Promise<number> {
  // to_regclass answers null rather than failing when the table is not there yet.
  const [present] = rowsOf<{ present: boolean }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`),
  );
  if (!present?.present) return Number.NEGATIVE_INFINITY;
  const [row] = rowsOf<{ last: string | number | null }>(
    await db.execute(sql`select max(created_at) as last from drizzle.__drizzle_migrations`),
  );
  return row?.last === null || row?.last === undefined ? Number.NEGATIVE_INFINITY : Number(row.last);
}

/** postgres.js answers an array of rows, PGlite an object holding them. */
function rowsOf<ROW>(result: unknown): ROW[] {
  return (Array.isArray(result) ? result : (result as { rows: ROW[] }).rows) as ROW[];
}
