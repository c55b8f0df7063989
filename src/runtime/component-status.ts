/**
 * The live state of one part of the running bot (a platform, the database) as `/healthz` reports it, and
 * the one place that logs its changes: a line when it goes down, one when it comes back — not one per
 * failed retry.
 */
import type { Clock } from "../core/clock.ts";
import type { ComponentHealth } from "../server/health.ts";

export interface StatusLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface ComponentStatus {
  health(): ComponentHealth;
  up(state: string): void;
  down(state: string, error: string, level?: "warn" | "error"): void;
}

export function createComponentStatus(
  name: string,
  options: { clock: Clock; logger: StatusLogger; initial?: string },
): ComponentStatus {
  let current: ComponentHealth = {
    ok: false,
    state: options.initial ?? "starting",
    since: options.clock.now().toISOString(),
  };
  return {
    health: () => current,
    up(state) {
      if (current.ok && current.state === state) return;
      const wasDown = !current.ok && current.state !== "starting";
      current = { ok: true, state, since: options.clock.now().toISOString() };
      if (wasDown) options.logger.info({ component: name, state }, `${name} is back`);
    },
    down(state, error, level = "warn") {
      if (!current.ok && current.state === state && current.error === error) return;
      const changed = current.ok || current.state !== state;
      current = {
        ok: false,
        state,
        error,
        since: changed ? options.clock.now().toISOString() : current.since,
      };
      if (changed) options.logger[level]({ component: name, state, error }, `${name} is ${state}`);
    },
  };
}
