/**
 * Who may hold the one connection a token allows (Telegram long polling, Slack Socket Mode), when several
 * processes run on one database. The holder of a lease named after the token polls; every other process
 * is a standby: it does not connect, says so, and tries again every few seconds, so when the holder dies
 * its lease lapses and a standby takes over within `ttlMs + checkEveryMs`. A holder whose renewal finds
 * the lease taken by another stops at once: two pollers on one token steal each other's updates.
 */
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import type { Leases } from "../core/ports.ts";
import type { StatusLogger } from "./component-status.ts";

/** Long enough to ride out a slow database answer; short enough that a standby takes over within a minute. */
export const POLLING_LEASE_TTL_MS = 30_000;
export const POLLING_LEASE_CHECK_MS = 10_000;

/** The lease's name: the platform and the token's fingerprint, never the token. */
export const pollingLeaseName = (platform: "telegram" | "slack", tokenFingerprint: string) =>
  `polling:${platform}:${tokenFingerprint}`;

export type PollingTurn =
  | { holds: true }
  /** `holder` is who polls instead, when the lease is live and readable. */
  | { holds: false; holder: string | undefined };

export interface PollingLease {
  readonly name: string;
  readonly owner: string;
  /** Whether this process holds the lease, as of the last check. */
  holds(): boolean;
  /**
   * Takes or renews the lease once. A database failure keeps the current verdict while the lease could
   * still be ours (less than `ttlMs` since the last renewal), so a blip does not drop the connection.
   */
  check(): Promise<PollingTurn>;
  /**
   * Checks every `checkEveryMs` from now on, calling `onChange` whenever holding starts or ends; calls
   * run one after another, never overlapping, so a connection is started and stopped in order. One that
   * throws is called again on the next check.
   */
  keep(onChange: (turn: PollingTurn) => Promise<void>): void;
  /** Stops checking, waits for a change in progress, and gives the lease up so a standby takes over at once. */
  stop(): Promise<void>;
}

export interface PollingLeaseOptions {
  leases: Leases;
  name: string;
  owner: string;
  clock: Clock;
  logger?: Pick<StatusLogger, "warn">;
  ttlMs?: number;
  checkEveryMs?: number;
}

export function createPollingLease(options: PollingLeaseOptions): PollingLease {
  const { leases, name, owner, clock } = options;
  const ttlMs = options.ttlMs ?? POLLING_LEASE_TTL_MS;
  const checkEveryMs = options.checkEveryMs ?? POLLING_LEASE_CHECK_MS;
  let holding = false;
  let renewedAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let changing: Promise<void> = Promise.resolve();

  async function check(): Promise<PollingTurn> {
    const now = clock.now();
    try {
      if (await leases.acquire(name, owner, ttlMs, now)) {
        holding = true;
        renewedAt = now.getTime();
        return { holds: true };
      }
      holding = false;
      return { holds: false, holder: await leases.holder(name, now).catch(() => undefined) };
    } catch (error) {
      options.logger?.warn({ lease: name, error: errorMessage(error) }, "could not check the polling lease");
      // Past the TTL another process may have taken it: stop rather than risk two pollers.
      if (holding && (renewedAt === undefined || now.getTime() - renewedAt >= ttlMs)) holding = false;
      return holding ? { holds: true } : { holds: false, holder: undefined };
    }
  }

  return {
    name,
    owner,
    holds: () => holding,
    check,
    keep(onChange) {
      // What the connection was last told; a change that failed is tried again on the next check.
      let applied = holding;
      const tick = () => {
        if (stopped) return;
        changing = check()
          .then(async (turn) => {
            if (stopped || turn.holds === applied) return;
            await onChange(turn);
            applied = turn.holds;
          })
          .catch((error: unknown) =>
            options.logger?.warn({ lease: name, error: errorMessage(error) }, "polling hand-over failed"),
          )
          .finally(() => {
            if (stopped) return;
            timer = setTimeout(tick, checkEveryMs);
            timer.unref();
          });
      };
      timer = setTimeout(tick, checkEveryMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await changing;
      if (holding) await leases.release(name, owner).catch(() => undefined);
      holding = false;
    },
  };
}
