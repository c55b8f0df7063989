import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The one typed API every query uses, whichever engine is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface DatabaseConfig {
  /** Set → PostgreSQL server through postgres.js. */
  databaseUrl?: string | undefined;
  /** Embedded PGlite data folder; "memory://" keeps it in memory (tests). */
  dataDir: string;
  /** Start an in-memory PGlite from this data-directory dump instead of an empty cluster (tests). */
  pgliteTemplate?: Blob | undefined;
}

export interface OpenDatabase {
  db: Database;
  kind: "pglite" | "postgres";
  /** Where the data lives, for start-up messages (password removed). */
  location: string;
  /** Applies committed migrations (or those of another folder, e.g. a prefix of them); idempotent. */
  migrate(options?: { migrationsFolder?: string }): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), "migrations");

export async function openDatabase(config: DatabaseConfig): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    // Notices ("relation already exists, skipping") are migration chatter, not news for the operator.
    const client = postgres(config.databaseUrl, { max: 10, onnotice: () => {} });
    const db = drizzlePostgres(client, { schema, casing: "snake_case" });
    return {
      db: db as unknown as Database,
      kind: "postgres",
      location: redactUrl(config.databaseUrl),
      migrate: (options) =>
        migratePostgres(db, { migrationsFolder: options?.migrationsFolder ?? migrationsFolder }),
      ping: async () => {
        await client`select 1`;
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  if (!config.dataDir.startsWith("memory://")) mkdirSync(config.dataDir, { recursive: true });
  const client = config.pgliteTemplate
    ? await PGlite.create({ dataDir: config.dataDir, loadDataDir: config.pgliteTemplate })
    : await PGlite.create(config.dataDir);
  const db = drizzlePglite(client, { schema, casing: "snake_case" });
  return {
    db: db as unknown as Database,
    kind: "pglite",
    location: config.dataDir,
    migrate: (options) =>
      migratePglite(db, { migrationsFolder: options?.migrationsFolder ?? migrationsFolder }),
    ping: async () => {
      await client.query("select 1");
    },
    close: () => client.close(),
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
