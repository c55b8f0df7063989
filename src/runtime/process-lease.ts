/**
 * This process's heartbeat: a lease named after it, renewed every few seconds. The runs it claims and the
 * sends it starts are its own while the lease lives; once it lapses (the process died, or stalled longer
 * than the lease), any other process reclaims them. A run's owner is checked on every transition, so a
 * process that wakes up after its runs were reclaimed can no longer finish them.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import type { Leases } from "../core/ports.ts";
import type { StatusLogger } from "./component-status.ts";

/** Long enough to ride out a slow database answer or a GC pause; short enough to reclaim in seconds. */
export const PROCESS_LEASE_TTL_MS = 20_000;
export const PROCESS_LEASE_RENEW_MS = 5_000;

export interface ProcessLease {
  readonly owner: string;
  /** Gives the lease up, so what this process owned is reclaimed at once, not after it lapses. */
  stop(): Promise<void>;
}

/** A name no other process (here or on another host) has: host, pid and a random part. */
export function newOwnerId(role: string): string {
  return `${role}-${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

export const processLeaseName = (owner: string) => `process:${owner}`;

export async function holdProcessLease(
  leases: Leases,
  owner: string,
  options: { clock: Clock; logger?: Pick<StatusLogger, "warn">; ttlMs?: number; renewMs?: number },
): Promise<ProcessLease> {
  const ttlMs = options.ttlMs ?? PROCESS_LEASE_TTL_MS;
  const name = processLeaseName(owner);
  await leases.acquire(name, owner, ttlMs, options.clock.now());
  let renewedAt = options.clock.now().getTime();
  let renewing: Promise<unknown> | undefined;
  const renew = async () => {
    const at = options.clock.now();
    await leases.acquire(name, owner, ttlMs, at);
    const gapMs = at.getTime() - renewedAt;
    renewedAt = at.getTime();
    // Nothing can undo it now; the operator should know why a briefing or an answer may have gone twice.
    if (gapMs > ttlMs)
      options.logger?.warn(
        { stalledSeconds: Math.round(gapMs / 1000), leaseSeconds: ttlMs / 1000 },
        "this process's lease lapsed while it stalled: another process may have taken over its work meanwhile",
      );
  };
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = renew()
      .catch((error: unknown) =>
        options.logger?.warn({ error: errorMessage(error) }, "could not renew this process's lease"),
      )
      .finally(() => {
        renewing = undefined;
      });
  }, options.renewMs ?? PROCESS_LEASE_RENEW_MS);
  timer.unref();
  return {
    owner,
    async stop() {
      clearInterval(timer);
      await renewing;
      await leases.release(name, owner).catch(() => undefined);
    },
  };
}
