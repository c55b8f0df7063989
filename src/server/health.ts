/**
 * `/healthz`: healthy when the database answers and the scheduler has ticked recently. A scheduler that
 * stopped ticking is an outage even though the process is up: briefings silently stop.
 */
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";

export interface HealthReport {
  ok: boolean;
  database: { ok: boolean; error?: string };
  scheduler: { ok: boolean; ticking: boolean; lastTickAt: string | null; lastTickError?: string };
  checkedAt: string;
}

export interface HealthSources {
  clock: Clock;
  /** Throws when the database is unreachable (`OpenDatabase.ping`). */
  pingDatabase: () => Promise<void>;
  scheduler:
    | { readonly lastTickAt: Date | undefined; readonly lastTickError?: string | undefined }
    | undefined;
  /** A tick older than this means the scheduler stalled. Default 150 s (two missed minutes and change). */
  maxTickAgeMs?: number;
  /** The database check gives up after this. Default 2 s. */
  pingTimeoutMs?: number;
}

export function createHealthCheck(sources: HealthSources): () => Promise<HealthReport> {
  const maxTickAgeMs = sources.maxTickAgeMs ?? 150_000;
  const pingTimeoutMs = sources.pingTimeoutMs ?? 2_000;
  return async () => {
    const now = sources.clock.now();
    const database = await checkDatabase(sources.pingDatabase, pingTimeoutMs);
    const lastTickAt = sources.scheduler?.lastTickAt;
    const ticking = lastTickAt !== undefined && now.getTime() - lastTickAt.getTime() <= maxTickAgeMs;
    const lastTickError = sources.scheduler?.lastTickError;
    const scheduler = {
      ok: ticking,
      ticking,
      lastTickAt: lastTickAt?.toISOString() ?? null,
      ...(lastTickError ? { lastTickError } : {}),
    };
    return { ok: database.ok && scheduler.ok, database, scheduler, checkedAt: now.toISOString() };
  };
}

async function checkDatabase(
  ping: () => Promise<void>,
  timeoutMs: number,
): Promise<HealthReport["database"]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  } finally {
    clearTimeout(timer);
  }
}
