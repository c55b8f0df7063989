/**
 * The model part of `BRIEFBOT_CONFIG`: Ollama endpoints (one `ollama serve` per GPU) and which endpoint and
 * model serve each role. Without a file, `OLLAMA_HOST` + `BRIEFBOT_MODEL` serve every role.
 *
 * ```yaml
 * endpoints:
 *   - { name: gpu0, url: "http://10.0.0.5:11434" }
 *   - { name: gpu1, url: "http://10.0.0.5:11435" }
 * routes:
 *   interactive: { endpoint: gpu0, model: "qwen2.5:7b", keep_alive: -1 }
 *   briefing:    { endpoints: [gpu1, gpu0], model: "qwen2.5:7b" }   # or { endpoint: gpu1, spill: true, … }
 *   background:  { endpoint: gpu1, model: "qwen2.5:3b", fallback: gpu0 }
 * ```
 *
 * `endpoints` (or `spill: true`, meaning every endpoint, the route's own first) lets briefing and background
 * work take whichever listed endpoint is free; `fallback` is used only when the route's endpoints fail.
 * Work spread onto another endpoint must use the model and `num_ctx` of whatever else runs there, or
 * Ollama would reload a model at every switch; the schema refuses a config that breaks this.
 */
import { z } from "zod";
import type { ModelRole } from "../core/model.ts";

export const MODEL_ROLES = ["interactive", "briefing", "background"] as const satisfies readonly ModelRole[];

/** Sent on every request: a changing value makes Ollama reload the model. */
export const DEFAULT_NUM_CTX = 8192;

// Go's time.ParseDuration units, which is what Ollama accepts for a string keep_alive.
const DURATION = /^-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
const KEEP_ALIVE_MESSAGE = 'must be seconds or a duration like "30m" (negative keeps the model loaded)';

const EndpointSchema = z.object({
  name: z
    .string({ error: "must be a string" })
    .regex(/^[A-Za-z0-9_.-]+$/, { error: "must be letters, digits, '.', '_' or '-'" }),
  url: z.string({ error: "must be a string" }).refine((value) => normalizeOllamaUrl(value) !== undefined, {
    error: 'is not a valid Ollama URL (e.g. "http://10.0.0.5:11434" or ":11435")',
  }),
  concurrency: z
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .max(64, { error: "must be at most 64" })
    .default(1),
});

const RouteSchema = z.object(
  {
    endpoint: z
      .string({ error: "must name an endpoint" })
      .min(1, { error: "must name an endpoint" })
      .optional(),
    endpoints: z
      .array(z.string({ error: "must name an endpoint" }).min(1, { error: "must name an endpoint" }), {
        error: "must be a list of endpoint names",
      })
      .min(1, { error: "must name at least one endpoint" })
      .optional(),
    spill: z.boolean({ error: "must be true or false" }).optional(),
    model: z.string({ error: "must be a model name" }).min(1, { error: "must be a model name" }),
    fallback: z
      .string({ error: "must name an endpoint" })
      .min(1, { error: "must name an endpoint" })
      .optional(),
    num_ctx: z
      .number({ error: "must be a number" })
      .int({ error: "must be a whole number" })
      .min(256, { error: "must be at least 256" })
      .optional(),
    keep_alive: z
      .union([z.number(), z.string().regex(DURATION, { error: KEEP_ALIVE_MESSAGE })], {
        error: KEEP_ALIVE_MESSAGE,
      })
      .optional(),
    num_predict: z
      .number({ error: "must be a number" })
      .int({ error: "must be a whole number" })
      .min(16, { error: "must be at least 16" })
      .max(65_536, { error: "must be at most 65536" })
      .optional(),
    turn_timeout_seconds: z
      .number({ error: "must be a number" })
      .positive({ error: "must be positive" })
      .max(3600, { error: "must be at most 3600" })
      .optional(),
  },
  { error: (issue) => (issue.input === undefined ? "is required" : "must be an object") },
);

const RoutesSchema = z.object(
  { interactive: RouteSchema, briefing: RouteSchema, background: RouteSchema },
  { error: (issue) => (issue.input === undefined ? "is required" : "must be an object") },
);

/** The `endpoints`/`routes` fields, for a config schema that wants to spread them into its own object. */
export const modelRoutesFields = {
  endpoints: z.array(EndpointSchema, { error: "must be a list of endpoints" }).optional(),
  routes: RoutesSchema.optional(),
};

type ModelRoutesFileShape = {
  endpoints?: Array<{ name: string; url: string; concurrency: number }>;
  routes?: z.infer<typeof RoutesSchema>;
};

/**
 * Cross-checks zod cannot express field by field. Exported so a config schema that spreads
 * {@link modelRoutesFields} can `.superRefine(refineModelRoutes)` too.
 */
export function refineModelRoutes(file: ModelRoutesFileShape, context: z.RefinementCtx): void {
  const endpoints = file.endpoints ?? [];
  const seen = new Set<string>();
  endpoints.forEach((endpoint, index) => {
    if (seen.has(endpoint.name)) {
      context.addIssue({
        code: "custom",
        path: ["endpoints", index, "name"],
        message: `"${endpoint.name}" is defined twice`,
      });
    }
    seen.add(endpoint.name);
  });
  if (endpoints.length > 0 && !file.routes) {
    context.addIssue({ code: "custom", path: ["routes"], message: "is required when endpoints are defined" });
  }
  if (!file.routes) return;
  const routes = file.routes;
  for (const role of MODEL_ROLES) {
    const route = routes[role];
    const issue = (field: string, message: string, index?: number) =>
      context.addIssue({
        code: "custom",
        path: ["routes", role, field, ...(index === undefined ? [] : [index])],
        message,
      });
    if (route.endpoint === undefined && route.endpoints === undefined) {
      issue("endpoint", "is required (or list the route's endpoints under `endpoints`)");
      continue;
    }
    if (route.endpoints !== undefined && route.spill !== undefined) {
      issue("spill", "cannot be combined with `endpoints`; the list already says where the work may run");
    }
    if (
      route.endpoint !== undefined &&
      route.endpoints !== undefined &&
      route.endpoints[0] !== route.endpoint
    ) {
      issue("endpoints", `must start with the route's endpoint "${route.endpoint}"`);
    }
    if (role === "interactive" && ((route.endpoints?.length ?? 0) > 1 || route.spill === true)) {
      issue(
        route.spill === true ? "spill" : "endpoints",
        "interactive work keeps one endpoint, so a question never queues behind briefings; use `fallback` for failover",
      );
    }
    if (route.endpoint !== undefined && !seen.has(route.endpoint)) {
      issue("endpoint", `"${route.endpoint}" is not a defined endpoint`);
    }
    const listed = new Set<string>();
    route.endpoints?.forEach((name, index) => {
      if (!seen.has(name)) issue("endpoints", `"${name}" is not a defined endpoint`, index);
      else if (listed.has(name)) issue("endpoints", `"${name}" is listed twice`, index);
      listed.add(name);
    });
    if (route.fallback === undefined) continue;
    const placement = placementOf(route, endpoints);
    if (!seen.has(route.fallback)) {
      issue("fallback", `"${route.fallback}" is not a defined endpoint`);
    } else if (placement[0] === route.fallback) {
      issue("fallback", `"${route.fallback}" is the route's own endpoint; name a different one`);
    } else if (placement.includes(route.fallback)) {
      issue("fallback", `"${route.fallback}" is already one of the route's endpoints; name a different one`);
    }
  }
  refineSharedEndpoints(endpoints, routes, context);
}

/**
 * Work spread onto an endpoint must run the model, with the num_ctx, of everything else that runs there:
 * Ollama reloads (or loads a second copy of) a model whenever either changes, which would cost the chat
 * endpoint seconds at every switch.
 */
function refineSharedEndpoints(
  endpoints: Array<{ name: string }>,
  routes: NonNullable<ModelRoutesFileShape["routes"]>,
  context: z.RefinementCtx,
): void {
  const placements = MODEL_ROLES.map((role) => {
    const route = routes[role];
    return {
      role,
      model: route.model,
      numCtx: route.num_ctx ?? DEFAULT_NUM_CTX,
      primary: route.endpoints?.[0] ?? route.endpoint,
      // Interactive spreading is refused above; reporting its clashes too would only repeat that.
      spread: role === "interactive" ? [] : placementOf(route, endpoints).slice(1),
    };
  });
  for (const spreading of placements) {
    for (const endpoint of spreading.spread) {
      const clash = placements.find(
        (other) =>
          other.role !== spreading.role &&
          (other.primary === endpoint || other.spread.includes(endpoint)) &&
          (other.model !== spreading.model || other.numCtx !== spreading.numCtx),
      );
      if (!clash) continue;
      context.addIssue({
        code: "custom",
        path: ["routes", spreading.role, routes[spreading.role].spill ? "spill" : "endpoints"],
        message:
          `spreads ${spreading.model} (num_ctx ${spreading.numCtx}) onto "${endpoint}", where routes.${clash.role} ` +
          `runs ${clash.model} (num_ctx ${clash.numCtx}); use the same model and num_ctx, or Ollama reloads the model at every switch`,
      });
      break;
    }
  }
}

/** Where a route's work may run, its own endpoint first; `spill` adds every other endpoint in file order. */
function placementOf(
  route: { endpoint?: string | undefined; endpoints?: string[] | undefined; spill?: boolean | undefined },
  endpoints: Array<{ name: string }>,
): string[] {
  if (route.endpoints) return route.endpoints;
  if (route.endpoint === undefined) return [];
  if (!route.spill) return [route.endpoint];
  return [
    route.endpoint,
    ...endpoints.map((endpoint) => endpoint.name).filter((name) => name !== route.endpoint),
  ];
}

/** The `endpoints`/`routes` keys of `BRIEFBOT_CONFIG`, each optional at file level. */
export const ModelRoutesFileSchema = z.object(modelRoutesFields).superRefine(refineModelRoutes);

export type ModelRoutesFile = z.infer<typeof ModelRoutesFileSchema>;
/** What a config file may say before defaults apply (e.g. `concurrency` omitted). */
export type ModelRoutesFileInput = z.input<typeof ModelRoutesFileSchema>;

export interface ResolvedEndpoint {
  name: string;
  /** Normalised `http(s)://host:port`. */
  url: string;
  /** Requests sent at once; match the server's `OLLAMA_NUM_PARALLEL` (1 by default). */
  concurrency: number;
}

export interface ResolvedRoute {
  role: ModelRole;
  /** The route's own endpoint: `endpoints[0]`. */
  endpoint: string;
  /** Where the work may run, in order of preference (work-conserving: a free one is taken). */
  endpoints: string[];
  model: string;
  fallback?: string;
  numCtx: number;
  /** Omitted: the server's `OLLAMA_KEEP_ALIVE` applies. */
  keepAlive?: string | number;
  /** The output cap sent as `options.num_predict`; omitted: the model layer's default. */
  numPredict?: number;
  /** How long one model request may generate once it runs; omitted: the model layer's default. */
  turnTimeoutSeconds?: number;
}

export interface ResolvedModelRoutes {
  endpoints: ResolvedEndpoint[];
  routes: Record<ModelRole, ResolvedRoute>;
}

/**
 * Turns the validated file part (or its absence) into routes. Without `routes`, one endpoint named
 * `default` at `env.ollamaHost` serves every role with `env.model`.
 */
export function resolveModelRoutes(
  file: ModelRoutesFile | undefined,
  env: { ollamaHost: string; model: string },
): ResolvedModelRoutes {
  if (!file?.routes) {
    const url = normalizeOllamaUrl(env.ollamaHost);
    if (!url) throw new Error(`OLLAMA_HOST "${env.ollamaHost}" is not a valid Ollama URL`);
    const route = (role: ModelRole): ResolvedRoute => ({
      role,
      endpoint: "default",
      endpoints: ["default"],
      model: env.model,
      numCtx: DEFAULT_NUM_CTX,
    });
    return {
      endpoints: [{ name: "default", url, concurrency: 1 }],
      routes: {
        interactive: route("interactive"),
        briefing: route("briefing"),
        background: route("background"),
      },
    };
  }
  const routes = file.routes;
  const definedEndpoints = file.endpoints ?? [];
  const resolve = (role: ModelRole): ResolvedRoute => {
    const route = routes[role];
    const placement = placementOf(route, definedEndpoints);
    const [endpoint = ""] = placement;
    return {
      role,
      endpoint,
      endpoints: placement,
      model: route.model,
      ...(route.fallback === undefined ? {} : { fallback: route.fallback }),
      numCtx: route.num_ctx ?? DEFAULT_NUM_CTX,
      ...(route.keep_alive === undefined ? {} : { keepAlive: route.keep_alive }),
      ...(route.num_predict === undefined ? {} : { numPredict: route.num_predict }),
      ...(route.turn_timeout_seconds === undefined ? {} : { turnTimeoutSeconds: route.turn_timeout_seconds }),
    };
  };
  return {
    endpoints: (file.endpoints ?? []).map((endpoint) => ({
      name: endpoint.name,
      // Validated by the schema; the fallback only keeps the types honest.
      url: normalizeOllamaUrl(endpoint.url) ?? endpoint.url,
      concurrency: endpoint.concurrency,
    })),
    routes: {
      interactive: resolve("interactive"),
      briefing: resolve("briefing"),
      background: resolve("background"),
    },
  };
}

/**
 * Reads a host the way Ollama's `OLLAMA_HOST` and ollama-js do: `host:port`, `:port`, `host` (port 11434)
 * or a full `http(s)://` URL. Returns `undefined` when it is not a usable URL.
 */
export function normalizeOllamaUrl(host: string): string | undefined {
  let value = host.trim();
  if (value === "") return undefined;
  let explicitScheme = value.includes("://");
  if (value.startsWith(":")) {
    value = `http://127.0.0.1${value}`;
    explicitScheme = true;
  }
  if (!explicitScheme) value = `http://${value}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.hostname === "") return undefined;
  const port = url.port || (explicitScheme ? (url.protocol === "https:" ? "443" : "80") : "11434");
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.hostname}:${port}${path}`;
}
