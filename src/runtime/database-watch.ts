/**
 * After start, the database can go away (a PostgreSQL restart, a full disk). `/healthz` pings it on every
 * request; this pings it in the background too, so losing and regaining it is logged once each, and re-checks
 * with backoff while it is down. postgres.js reconnects by itself on the next query.
 */
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import { backoffDelay, pause } from "./backoff.ts";
import { createComponentStatus, type StatusLogger } from "./component-status.ts";

export function watchDatabase(
  ping: () => Promise<void>,
  options: { clock: Clock; logger: StatusLogger; everyMs?: number; timeoutMs?: number },
): { stop(): Promise<void> } {
  const everyMs = options.everyMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const status = createComponentStatus("database", { clock: options.clock, logger: options.logger });
  status.up("answering");
  const stopping = new AbortController();
  const loop = (async () => {
    for (let failures = 0; !stopping.signal.aborted; ) {
      const delay = failures === 0 ? everyMs : backoffDelay(failures, { maxMs: everyMs });
      if (!(await pause(delay, stopping.signal))) return;
      try {
        await Promise.race([
          ping(),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
          ),
        ]);
        status.up("answering");
        failures = 0;
      } catch (error) {
        status.down("unreachable", errorMessage(error), "error");
        failures += 1;
      }
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
