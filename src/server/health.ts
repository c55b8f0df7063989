/**
 * `/healthz`: one answer per component — the database, the scheduler, each configured platform, each model
 * endpoint — and an overall verdict. 503 when the bot cannot do its job: the database does not answer, the
 * scheduler stopped ticking (briefings silently stop), or a configured platform is not connected (nothing
 * can be delivered there). A model endpoint that is down is reported but is not an outage: briefings fall
 * back to a plain digest of the receipts, so the answer stays 200 with `status: "degraded"`.
 */
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";

/** One component as `/healthz` shows it. */
export interface ComponentHealth {
  ok: boolean;
  /** What it is doing, in a word: "polling", "unreachable", "unauthorized", "starting"… */
  state: string;
  error?: string;
  /** When it entered this state. */
  since?: string;
}

export interface HealthReport {
  /** Can the bot do its job? False → HTTP 503. */
  ok: boolean;
  status: "ok" | "degraded" | "unavailable";
  database: { ok: boolean; error?: string };
  scheduler: { ok: boolean; ticking: boolean; lastTickAt: string | null; lastTickError?: string };
  /** Each configured platform (telegram, slack); absent ones are not listed. */
  platforms: Record<string, ComponentHealth>;
  /** Each model endpoint by name, with its address. */
  models: Record<string, ComponentHealth & { url: string }>;
  checkedAt: string;
}

export interface HealthSources {
  clock: Clock;
  /** Throws when the database is unreachable (`OpenDatabase.ping`). */
  pingDatabase: () => Promise<void>;
  scheduler:
    | { readonly lastTickAt: Date | undefined; readonly lastTickError?: string | undefined }
    | undefined;
  platforms?: () => Record<string, ComponentHealth>;
  models?: () => Promise<Record<string, ComponentHealth & { url: string }>>;
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
    const [database, models] = await Promise.all([
      checkDatabase(sources.pingDatabase, pingTimeoutMs),
      sources.models?.() ?? Promise.resolve<HealthReport["models"]>({}),
    ]);
    const lastTickAt = sources.scheduler?.lastTickAt;
    const ticking = lastTickAt !== undefined && now.getTime() - lastTickAt.getTime() <= maxTickAgeMs;
    const lastTickError = sources.scheduler?.lastTickError;
    const scheduler = {
      ok: ticking,
      ticking,
      lastTickAt: lastTickAt?.toISOString() ?? null,
      ...(lastTickError ? { lastTickError } : {}),
    };
    const platforms = sources.platforms?.() ?? {};
    const ok = database.ok && scheduler.ok && Object.values(platforms).every((platform) => platform.ok);
    const modelsOk = Object.values(models).every((endpoint) => endpoint.ok);
    return {
      ok,
      status: !ok ? "unavailable" : modelsOk ? "ok" : "degraded",
      database,
      scheduler,
      platforms,
      models,
      checkedAt: now.toISOString(),
    };
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
