/**
 * Opens an embedded data directory the one safe way: as its owner (lock, socket, PGlite), or — while
 * another briefbot process owns it — as a client of that owner's socket. A bot never shares: it waits
 * briefly for a CLI command that holds the directory, and refuses to start beside another bot.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { BriefbotError } from "../../src/core/errors.ts";
import { acquireDataDirLock, type DataDirLock, type LockHolder, type OwnerRole } from "./data-dir-lock.ts";
import { listenWireServer, type WireServer, type WireServerLogger } from "./wire-server.ts";

export interface EmbeddedOptions {
  dataDir: string;
  role: OwnerRole;
  /** The owner's command line, shown to whoever finds the directory taken. */
  command: string;
  onProgress?: (line: string) => void;
  /** How long a bot waits for a CLI command that holds the directory. Default 30 s. */
  waitForCommandMs?: number;
  logger?: WireServerLogger;
  /** Creates the PGlite instance once the lock is held and the socket listens. */
  createPGlite: (dataDir: string) => Promise<PGlite>;
}

export type EmbeddedAccess =
  | { kind: "owner"; client: PGlite; server: WireServer; lock: DataDirLock }
  | { kind: "client"; sql: postgres.Sql; holder: LockHolder };

/** The directory belongs to another process that this one may not share it with. */
export class DataDirBusyError extends BriefbotError {
  constructor(message: string) {
    super("data_dir_busy", message);
  }
}

export async function openEmbedded(options: EmbeddedOptions): Promise<EmbeddedAccess> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const socketPath = socketPathFor(dataDir);
  const waitMs = options.waitForCommandMs ?? 30_000;
  const started = Date.now();
  let announced = false;

  for (;;) {
    const outcome = await acquireDataDirLock(dataDir, {
      role: options.role,
      command: options.command,
      socketPath,
    });
    if (outcome.kind === "acquired") return openAsOwner(dataDir, outcome.lock, options);
    const holder = outcome.holder;
    if (options.role === "cli") return { kind: "client", sql: connectToOwner(holder), holder };
    if (holder.role === "bot") {
      throw new DataDirBusyError(
        `another briefbot (pid ${holder.pid}, started ${holder.startedAt}) already runs on ${dataDir}; stop it first, or set BRIEFBOT_DATA_DIR to another folder`,
      );
    }
    if (Date.now() - started > waitMs) {
      throw new DataDirBusyError(
        `\`briefbot ${holder.command}\` (pid ${holder.pid}) still holds ${dataDir} after ${Math.round(waitMs / 1000)} s; let it finish or stop it, then start again`,
      );
    }
    if (!announced) {
      options.onProgress?.(
        `waiting for \`briefbot ${holder.command}\` (pid ${holder.pid}) to finish with ${dataDir}…`,
      );
      announced = true;
    }
    await new Promise((wake) => setTimeout(wake, 250));
  }
}

async function openAsOwner(
  dataDir: string,
  lock: DataDirLock,
  options: EmbeddedOptions,
): Promise<EmbeddedAccess> {
  let server: WireServer | undefined;
  try {
    // Listen before the (slow) PGlite start, so others see a live owner from the first moment.
    server = await listenWireServer({
      socketPath: lock.holder.socketPath,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const client = await options.createPGlite(dataDir);
    return { kind: "owner", client, server, lock };
  } catch (error) {
    await server?.close().catch(() => {});
    lock.release();
    throw error;
  }
}

/** One connection: the owner runs one statement at a time anyway, and one session keeps it simple. */
function connectToOwner(holder: LockHolder): postgres.Sql {
  return postgres({
    path: holder.socketPath,
    max: 1,
    // Named prepared statements would outlive this client in the owner's single session.
    prepare: false,
    onnotice: () => {},
    // The owner may still be opening the database (first start: initdb).
    connect_timeout: 120,
  });
}

/**
 * `<dataDir>/.s.PGSQL.5432`, the name `psql -h <dataDir>` looks for; a data directory too deep for a Unix
 * socket path (about 100 bytes) gets one in a private folder under the system temp directory instead.
 */
export function socketPathFor(dataDir: string): string {
  const inside = join(dataDir, ".s.PGSQL.5432");
  if (Buffer.byteLength(inside) <= 100) return inside;
  const folder = join(
    tmpdir(),
    `briefbot-${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}`,
  );
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return join(folder, ".s.PGSQL.5432");
}
