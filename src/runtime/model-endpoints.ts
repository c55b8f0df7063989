/**
 * Whether each Ollama endpoint answers, for `/healthz`: `GET /api/version` with a short timeout, cached
 * briefly so a health probe every few seconds costs Ollama nothing. Losing or regaining one is logged once.
 */
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import type { ComponentHealth } from "../server/health.ts";
import { type ComponentStatus, createComponentStatus, type StatusLogger } from "./component-status.ts";

export interface ModelEndpointsOptions {
  fetch: typeof fetch;
  clock: Clock;
  logger: StatusLogger;
  /** Per probe. Default 2 s. */
  timeoutMs?: number;
  /** A probe result is reused this long. Default 15 s. */
  cacheMs?: number;
}

export type EndpointsHealth = Record<string, ComponentHealth & { url: string }>;

export function watchModelEndpoints(
  endpoints: ReadonlyArray<{ name: string; url: string }>,
  options: ModelEndpointsOptions,
): { health(): Promise<EndpointsHealth> } {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const cacheMs = options.cacheMs ?? 15_000;
  const watched = endpoints.map((endpoint) => ({
    ...endpoint,
    status: createComponentStatus(`model endpoint ${endpoint.name}`, {
      clock: options.clock,
      logger: options.logger,
    }),
    checkedAt: Number.NEGATIVE_INFINITY,
    probing: undefined as Promise<void> | undefined,
  }));

  async function probe(endpoint: { url: string; status: ComponentStatus }): Promise<void> {
    try {
      const response = await options.fetch(new URL("/api/version", endpoint.url), {
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      if (response.ok) endpoint.status.up("reachable");
      else endpoint.status.down("failing", `/api/version answered ${response.status}`);
    } catch (error) {
      endpoint.status.down("unreachable", describe(error, timeoutMs));
    }
  }

  return {
    async health() {
      const now = options.clock.now().getTime();
      await Promise.all(
        watched.map((endpoint) => {
          if (now - endpoint.checkedAt < cacheMs) return endpoint.probing;
          endpoint.checkedAt = now;
          endpoint.probing = probe(endpoint);
          return endpoint.probing;
        }),
      );
      return Object.fromEntries(
        watched.map((endpoint) => [endpoint.name, { ...endpoint.status.health(), url: endpoint.url }]),
      );
    },
  };
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return cause?.code ?? errorMessage(error);
}
