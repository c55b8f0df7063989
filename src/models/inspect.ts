import type { Ollama } from "ollama";
import type { ResolvedEndpoint, ResolvedModelRoutes } from "../config/model-routes.ts";
import { errorMessage } from "../core/errors.ts";
import type { AgenticVerdict, ModelRole } from "../core/model.ts";
import type { ModelCapabilities } from "./capabilities.ts";
import type { EndpointStats } from "./endpoint-pool.ts";

export interface LoadedModel {
  name: string;
  /** The `num_ctx` it was loaded with (Ollama ≥ 0.10). */
  contextLength: number | null;
  expiresAt: string | null;
  sizeVram: number | null;
}

export interface EndpointInspection {
  name: string;
  url: string;
  concurrency: number;
  reachable: boolean;
  version: string | null;
  error: string | null;
  /** From `/api/ps`. */
  loaded: LoadedModel[];
  queue: EndpointStats;
}

export interface RouteInspection {
  role: ModelRole;
  endpoint: string;
  /** Every endpoint the route's work may run on, its own first. */
  endpoints: string[];
  fallback: string | null;
  model: string;
  numCtx: number;
  keepAlive: string | number | null;
  /** From `/api/show` on the route's endpoint; `null` when it could not be read. */
  capabilities: ModelCapabilities | null;
  capabilityError: string | null;
  agentic: AgenticVerdict;
}

export interface ModelsInspection {
  endpoints: EndpointInspection[];
  routes: RouteInspection[];
}

export interface InspectDeps {
  routes: ResolvedModelRoutes;
  client(endpoint: ResolvedEndpoint): Ollama;
  capabilities(endpoint: string, model: string): Promise<ModelCapabilities>;
  canRunAgentic(role: ModelRole): Promise<AgenticVerdict>;
  stats(endpoint: string): EndpointStats;
}

export async function inspectModels(deps: InspectDeps): Promise<ModelsInspection> {
  const endpoints = await Promise.all(
    deps.routes.endpoints.map((endpoint) => inspectEndpoint(deps, endpoint)),
  );
  const routes = await Promise.all(
    Object.values(deps.routes.routes).map(async (route): Promise<RouteInspection> => {
      const [capabilities, agentic] = await Promise.all([
        deps.capabilities(route.endpoint, route.model).then(
          (value) => ({ value, error: null }),
          (error: unknown) => ({ value: null, error: ollamaErrorText(error) }),
        ),
        deps.canRunAgentic(route.role),
      ]);
      return {
        role: route.role,
        endpoint: route.endpoint,
        endpoints: route.endpoints,
        fallback: route.fallback ?? null,
        model: route.model,
        numCtx: route.numCtx,
        keepAlive: route.keepAlive ?? null,
        capabilities: capabilities.value,
        capabilityError: capabilities.error,
        agentic,
      };
    }),
  );
  return { endpoints, routes };
}

async function inspectEndpoint(deps: InspectDeps, endpoint: ResolvedEndpoint): Promise<EndpointInspection> {
  const base = {
    name: endpoint.name,
    url: endpoint.url,
    concurrency: endpoint.concurrency,
    queue: deps.stats(endpoint.name),
  };
  const client = deps.client(endpoint);
  try {
    const { version } = await client.version();
    const running = await client.ps().catch(() => ({ models: [] }));
    return {
      ...base,
      reachable: true,
      version: typeof version === "string" ? version : null,
      error: null,
      loaded: running.models.map((entry) => {
        // ollama-js types these loosely (`expires_at` as Date; `context_length` missing); read them defensively.
        const raw = entry as unknown as Record<string, unknown>;
        return {
          name: String(raw.name ?? raw.model ?? "?"),
          contextLength: typeof raw.context_length === "number" ? raw.context_length : null,
          expiresAt: typeof raw.expires_at === "string" ? raw.expires_at : null,
          sizeVram: typeof raw.size_vram === "number" ? raw.size_vram : null,
        };
      }),
    };
  } catch (error) {
    return { ...base, reachable: false, version: null, error: ollamaErrorText(error), loaded: [] };
  }
}

/** An Ollama client error as one line: HTTP status when the server answered, else the network cause. */
export function ollamaErrorText(error: unknown): string {
  const status =
    error instanceof Error ? (error as Error & { status_code?: unknown }).status_code : undefined;
  if (typeof status === "number") return `${status} ${errorMessage(error)}`;
  return errorMessage(error, { cause: true });
}
