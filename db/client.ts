import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import type { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { BriefbotError } from "../src/core/errors.ts";
import { readClusterTemplate } from "./embedded/cluster-template.ts";
import type { LockHolder, OwnerRole } from "./embedded/data-dir-lock.ts";
import { openEmbedded } from "./embedded/open-embedded.ts";
import type { WireServerLogger } from "./embedded/wire-server.ts";
import { pendingMigrations } from "./migration-state.ts";
import * as schema from "./schema/index.ts";

export { DataDirBusyError } from "./embedded/open-embedded.ts";

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
  /**
   * Embedded folder only. "bot": own the folder (waits briefly for a CLI command holding it, refuses beside
   * another bot). "cli" (default): own it when nobody does, else work through the owner's socket.
   */
  role?: OwnerRole;
  /** The command line, for the lock file (what others are told holds the folder). */
  command?: string;
  /** How long a bot waits for a CLI command that holds the embedded folder. Default 30 s. */
  waitForCommandMs?: number;
  /** Lines worth showing while opening takes a while (first start, waiting for another process). */
  onProgress?: (line: string) => void;
  logger?: WireServerLogger;
}

/**
 * How this process reaches the data: a PostgreSQL server; in-memory PGlite (tests); an embedded folder it
 * owns (and serves to other processes on a socket); or an embedded folder through its owner's socket.
 */
export type DatabaseAccess = "server" | "memory" | "owner" | "via-owner";

export interface OpenDatabase {
  db: Database;
  kind: "pglite" | "postgres";
  access: DatabaseAccess;
  /** Where the data lives, for start-up messages (password removed). */
  location: string;
  /** Who owns the embedded folder, when this process works through its socket. */
  owner?: LockHolder | undefined;
  /** The owner's socket (`psql -h <folder of it>` works there too). */
  socketPath?: string | undefined;
  /**
   * Brings the schema up to date (or up to another folder's migrations, e.g. a prefix of them), skipping
   * all work when it already is. Through an owner's socket it only checks: the owner migrates.
   * An embedded owner starts serving its socket once this has run.
   */
  migrate(options?: { migrationsFolder?: string }): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The database server cannot be reached, or refuses us (one line for the operator). */
export class DatabaseUnavailableError extends BriefbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("database_unavailable", message, options);
  }
}

/** A CLI reached a running bot whose schema is older than this program's migrations. */
export class SchemaBehindError extends BriefbotError {
  constructor(message: string) {
    super("schema_behind", message);
  }
}

/** This module's folder: db/ in the sources, dist/db/ in the build (which also holds the cluster template). */
const builtFolder = dirname(fileURLToPath(import.meta.url));

export const migrationsFolder = join(builtFolder, "migrations");

/**
 * PGlite's default 128 MB of shared buffers are touched at start-up and stay resident; a personal
 * assistant's data fits in a fraction (the OS page cache still holds the files). This keeps an idle bot
 * about 100 MB smaller; the price, measured with the fan-out bench (1,000 users due at once), is about
 * 14 % more time generating that burst.
 */
const PGLITE_SETTINGS = ["shared_buffers=16MB", "max_connections=3"];

/**
 * V8 compiles PGlite's WebAssembly with its baseline compiler (Liftoff) and then recompiles the hot
 * functions with its optimising one; the optimised copies of PostgreSQL's code stay resident. Baseline
 * only keeps an idle bot about 60 MB smaller and starts faster on two cores (no background recompiling);
 * the price is about 1.4× on long CPU-bound queries, which a personal assistant's small tables never run.
 * The flag is process-wide and read when a module is compiled, so it is set before PGlite's is.
 */
const WASM_FLAGS = "--liftoff-only";

/** How long a command that owns the embedded folder keeps serving other commands after its own work. */
const COMMAND_LINGER_MS = 10 * 60_000;

/** How long the first query to a PostgreSQL server may take before the start gives up on it. */
const FIRST_CONTACT_MS = 10_000;

export async function openDatabase(config: DatabaseConfig): Promise<OpenDatabase> {
  if (config.databaseUrl) return openServer(config.databaseUrl);
  if (config.dataDir.startsWith("memory://")) {
    const client = await createPGlite(config.dataDir, config.pgliteTemplate);
    return await pgliteDatabase(client, { access: "memory", location: config.dataDir });
  }

  const firstStart = !existsSync(join(config.dataDir, "PG_VERSION"));
  const access = await openEmbedded({
    dataDir: config.dataDir,
    role: config.role ?? "cli",
    command: config.command ?? "",
    ...(config.onProgress ? { onProgress: config.onProgress } : {}),
    ...(config.waitForCommandMs !== undefined ? { waitForCommandMs: config.waitForCommandMs } : {}),
    ...(config.logger ? { logger: config.logger } : {}),
    createPGlite: async (dataDir) => {
      if (firstStart)
        config.onProgress?.(`creating a new embedded database in ${dataDir} (first start only)…`);
      // Asked again under the lock: another process may have created the cluster while this one waited.
      const empty = !existsSync(join(dataDir, "PG_VERSION"));
      return createPGlite(dataDir, empty ? readClusterTemplate(builtFolder) : undefined);
    },
  });
  if (access.kind === "client") {
    const { holder } = access;
    const db = drizzlePostgres(access.sql, { schema, casing: "snake_case" }) as unknown as Database;
    return {
      db,
      kind: "pglite",
      access: "via-owner",
      location: config.dataDir,
      owner: holder,
      socketPath: holder.socketPath,
      migrate: async (options) => {
        const pending = await pendingMigrations(db, options?.migrationsFolder ?? migrationsFolder);
        if (pending.length > 0) {
          throw new SchemaBehindError(
            `the running briefbot (pid ${holder.pid}) has not applied ${pending.join(", ")}; restart it (briefbot start) so it migrates, then try again`,
          );
        }
      },
      ping: async () => {
        await access.sql`select 1`;
      },
      close: () => access.sql.end({ timeout: 5 }),
    };
  }
  const { client, server, lock } = access;
  const open = await pgliteDatabase(client, {
    access: "owner",
    location: config.dataDir,
    onProgress: config.onProgress,
  });
  return {
    ...open,
    socketPath: server.socketPath,
    migrate: async (options) => {
      await open.migrate(options);
      await server.serve(client);
    },
    close: async () => {
      try {
        // A command that owns the folder serves other commands until they are done; a bot stopping does not wait.
        await server.close({ lingerMs: config.role === "bot" ? 0 : COMMAND_LINGER_MS });
        await client.close();
      } finally {
        lock.release();
      }
    },
  };
}

function openServer(databaseUrl: string): OpenDatabase {
  const location = redactUrl(databaseUrl);
  // Notices ("relation already exists, skipping") are migration chatter, not news for the operator.
  const client = postgres(databaseUrl, { max: 10, onnotice: () => {}, connect_timeout: 10 });
  const db = drizzlePostgres(client, { schema, casing: "snake_case" });
  // postgres.js retries a connection that times out for as long as queries wait on it (a black-holed
  // host never refuses): the first contact gets a deadline of its own.
  const reachable = async <T>(work: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new DatabaseUnavailableError(
                  `cannot use the database at ${location}: no answer within ${FIRST_CONTACT_MS / 1000} s`,
                ),
              ),
            FIRST_CONTACT_MS,
          );
        }),
      ]);
    } catch (error) {
      throw unavailable(error, location) ?? error;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    db: db as unknown as Database,
    kind: "postgres",
    access: "server",
    location,
    migrate: (options) =>
      reachable(async () => {
        const folder = options?.migrationsFolder ?? migrationsFolder;
        if ((await pendingMigrations(db, folder)).length > 0)
          await migratePostgres(db, { migrationsFolder: folder });
      }),
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 2 }),
  };
}

async function createPGlite(dataDir: string, template?: Blob): Promise<PGlite> {
  // Loaded here, not at the top: a CLI working through the bot's socket never needs the WebAssembly build.
  setFlagsFromString(WASM_FLAGS);
  const { PGlite } = await import("@electric-sql/pglite");
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  return PGlite.create({
    dataDir,
    ...(template ? { loadDataDir: template } : {}),
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((setting) => ["-c", setting])],
  });
}

async function pgliteDatabase(
  client: PGlite,
  options: { access: DatabaseAccess; location: string; onProgress?: ((line: string) => void) | undefined },
): Promise<OpenDatabase> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const db = drizzle(client, { schema, casing: "snake_case" });
  return {
    db: db as unknown as Database,
    kind: "pglite",
    access: options.access,
    location: options.location,
    migrate: async (migrateOptions) => {
      const folder = migrateOptions?.migrationsFolder ?? migrationsFolder;
      const pending = await pendingMigrations(db, folder);
      if (pending.length === 0) return;
      options.onProgress?.(
        `applying ${pending.length} database migration${pending.length === 1 ? "" : "s"}…`,
      );
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      await migrate(db, { migrationsFolder: folder });
    },
    ping: async () => {
      await client.query("select 1");
    },
    close: () => client.close(),
  };
}

/** Connection-level failures become one operator-facing line; query errors pass through unchanged. */
function unavailable(error: unknown, location: string): DatabaseUnavailableError | undefined {
  if (error instanceof DatabaseUnavailableError) return error;
  // drizzle wraps the driver's error ("Failed query: …") and keeps it as the cause.
  let code: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 4 && !code; depth += 1) {
    code = (current as { code?: string }).code;
    current = current.cause;
  }
  const reasons: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host not found",
    EAI_AGAIN: "host not found",
    ETIMEDOUT: "no answer",
    CONNECT_TIMEOUT: "no answer within 10 s",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    "28P01": "password authentication failed",
    "28000": "not authorised",
    "3D000": "the database does not exist",
  };
  const reason = code ? reasons[code] : undefined;
  if (!reason) return undefined;
  return new DatabaseUnavailableError(`cannot use the database at ${location}: ${reason}`, { cause: error });
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
