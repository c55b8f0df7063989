import type { ResolvedModelRoutes } from "../../config/model-routes.ts";
import type { ModelsInspection, RouteInspection } from "../../models/inspect.ts";
import { createModelClient } from "../../models/router.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";

export interface ModelsReportDeps {
  routes: ResolvedModelRoutes;
  fetch?: typeof fetch;
  /** Per probe. Default 5 s, so a dead endpoint does not hang the command. */
  probeTimeoutMs?: number;
  /** The running bot's `/metrics`, where per-endpoint utilisation lives; omitted: not shown. */
  metricsUrl?: string;
}

/** One endpoint's utilisation as the running bot reports it on `/metrics`. */
export interface EndpointUtilisation {
  endpoint: string;
  /** Busy share of the endpoint's slots (0–1). */
  lastMinute: number | null;
  last15Minutes: number | null;
  sinceStart: number | null;
  /** Slot time since the bot started, by role. */
  busySecondsByRole: Record<string, number>;
  /** Requests served here although their route's own endpoint is another (work-conserving routing). */
  spilledIn: Record<string, number>;
}

export type UtilisationReport =
  | { source: string; endpoints: EndpointUtilisation[] }
  | { source: string; error: string };

/** Probes every endpoint and route: `/api/version`, `/api/ps`, `/api/show`. */
export function inspectModelRoutes(deps: ModelsReportDeps): Promise<ModelsInspection> {
  const client = createModelClient({
    routes: deps.routes,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    probeTimeoutMs: deps.probeTimeoutMs ?? 5000,
  });
  return client.inspect();
}

/** `briefbot models` output: the human report, or JSON with `json: true`. */
export async function modelsReport(deps: ModelsReportDeps & { json?: boolean }): Promise<string> {
  const [inspection, utilisation] = await Promise.all([
    inspectModelRoutes(deps),
    deps.metricsUrl === undefined ? undefined : readUtilisation(deps.metricsUrl, deps.fetch),
  ]);
  return deps.json
    ? JSON.stringify({ ...inspection, ...(utilisation ? { utilisation } : {}) }, null, 2)
    : formatModelsReport(inspection, utilisation);
}

/**
 * Utilisation is measured by the process that routes the requests, so this asks the running bot's
 * `/metrics` rather than this short-lived command's own (idle) router.
 */
export async function readUtilisation(
  metricsUrl: string,
  fetcher: typeof fetch = globalThis.fetch,
  timeoutMs = 3000,
): Promise<UtilisationReport> {
  try {
    const response = await fetcher(metricsUrl, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return { source: metricsUrl, error: `HTTP ${response.status}` };
    return { source: metricsUrl, endpoints: parseUtilisation(await response.text()) };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return { source: metricsUrl, error: `${error instanceof Error ? error.message : String(error)}${cause}` };
  }
}

const SAMPLE = /^(briefbot_model_[a-z_]+)\{([^}]*)\} (\S+)$/;
const WINDOW_FIELDS = { "1m": "lastMinute", "15m": "last15Minutes", start: "sinceStart" } as const;

/** The per-endpoint model samples of a Prometheus text exposition from `src/server/metrics.ts`. */
export function parseUtilisation(exposition: string): EndpointUtilisation[] {
  const endpoints = new Map<string, EndpointUtilisation>();
  const entry = (endpoint: string): EndpointUtilisation => {
    let found = endpoints.get(endpoint);
    if (!found) {
      found = {
        endpoint,
        lastMinute: null,
        last15Minutes: null,
        sinceStart: null,
        busySecondsByRole: {},
        spilledIn: {},
      };
      endpoints.set(endpoint, found);
    }
    return found;
  };
  for (const line of exposition.split("\n")) {
    const match = SAMPLE.exec(line.trim());
    if (!match) continue;
    const [, name, labelText = "", valueText = ""] = match;
    const labels = Object.fromEntries(
      [...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key = "", value = ""]) => [key, value]),
    );
    const value = Number(valueText);
    if (labels.endpoint === undefined || !Number.isFinite(value)) continue;
    const target = entry(labels.endpoint);
    if (name === "briefbot_model_utilisation_ratio") {
      const field = WINDOW_FIELDS[labels.window as keyof typeof WINDOW_FIELDS];
      if (field) target[field] = value;
    } else if (name === "briefbot_model_busy_seconds_total" && labels.role) {
      target.busySecondsByRole[labels.role] = value;
    } else if (name === "briefbot_model_spilled_total" && labels.role && value > 0) {
      target.spilledIn[labels.role] = value;
    }
  }
  return [...endpoints.values()];
}

export function formatModelsReport(inspection: ModelsInspection, utilisation?: UtilisationReport): string {
  const lines: string[] = ["Endpoints"];
  const width = Math.max(...inspection.endpoints.map((endpoint) => endpoint.name.length), 4);
  for (const endpoint of inspection.endpoints) {
    const status = endpoint.reachable
      ? `reachable, Ollama ${endpoint.version ?? "?"}`
      : `UNREACHABLE: ${endpoint.error ?? "no answer"}`;
    lines.push(
      `  ${endpoint.name.padEnd(width)}  ${endpoint.url}  ${status}  (concurrency ${endpoint.concurrency})`,
    );
    if (endpoint.reachable) {
      const loaded = endpoint.loaded.map(
        (model) => `${model.name}${model.contextLength === null ? "" : ` (num_ctx ${model.contextLength})`}`,
      );
      lines.push(`  ${"".padEnd(width)}  loaded: ${loaded.length > 0 ? loaded.join(", ") : "none"}`);
    }
  }
  lines.push("", "Routes");
  for (const route of inspection.routes) lines.push(...formatRoute(route, inspection));
  if (utilisation) lines.push("", ...formatUtilisation(utilisation, width));
  return lines.join("\n");
}

function formatUtilisation(report: UtilisationReport, width: number): string[] {
  if ("error" in report) {
    return [`Utilisation: no running briefbot answered at ${report.source} (${report.error})`];
  }
  if (report.endpoints.length === 0) return [`Utilisation: ${report.source} reports no endpoints`];
  const percent = (share: number | null) => (share === null ? "?" : `${Math.round(share * 100)}%`);
  const lines = [`Utilisation (the running bot, ${report.source})`];
  for (const endpoint of report.endpoints) {
    const busy = Object.entries(endpoint.busySecondsByRole).filter(([, seconds]) => seconds > 0);
    const total = busy.reduce((sum, [, seconds]) => sum + seconds, 0);
    const byRole =
      total > 0
        ? `; busy time since start: ${busy.map(([role, seconds]) => `${role} ${Math.round((seconds / total) * 100)}%`).join(", ")}`
        : "";
    const spilled = Object.entries(endpoint.spilledIn);
    const spilledText =
      spilled.length > 0
        ? `; took ${spilled.map(([role, count]) => `${count} ${role}`).join(", ")} request(s) from other endpoints' routes`
        : "";
    lines.push(
      `  ${endpoint.endpoint.padEnd(width)}  ${percent(endpoint.lastMinute)} last minute, ${percent(endpoint.last15Minutes)} last 15 min, ${percent(endpoint.sinceStart)} since start${byRole}${spilledText}`,
    );
  }
  return lines;
}

function formatRoute(route: RouteInspection, inspection: ModelsInspection): string[] {
  const spread = route.endpoints.length > 1 ? ` (also ${route.endpoints.slice(1).join(", ")} when free)` : "";
  const where = `${route.endpoint}${spread}${route.fallback ? ` (fallback ${route.fallback})` : ""}`;
  const keepAlive = route.keepAlive === null ? "" : `, keep_alive ${route.keepAlive}`;
  const lines = [
    `  ${route.role.padEnd(11)}  ${route.model} on ${where}, num_ctx ${route.numCtx}${keepAlive}`,
  ];
  const indent = `  ${"".padEnd(11)}  `;
  const capabilities = route.capabilities;
  if (capabilities) {
    const facts = [
      capabilities.parameterSize ?? "size unknown",
      capabilities.quantization,
      capabilities.contextLength === null ? null : `trained context ${capabilities.contextLength}`,
    ].filter((fact) => fact !== null);
    lines.push(
      `${indent}${facts.join(", ")}; capabilities: ${capabilities.capabilities.join(", ") || "none"}`,
    );
  } else {
    lines.push(`${indent}capabilities unknown: ${route.capabilityError ?? "no answer"}`);
  }
  const loaded = inspection.endpoints
    .find((endpoint) => endpoint.name === route.endpoint)
    ?.loaded.find((model) => model.name === route.model);
  if (loaded?.contextLength != null && loaded.contextLength !== route.numCtx) {
    lines.push(
      `${indent}loaded with num_ctx ${loaded.contextLength}: the next request reloads it at ${route.numCtx}`,
    );
  }
  const verdict = route.agentic;
  const checkedElsewhere = verdict.endpoint !== route.endpoint ? ` (checked on ${verdict.endpoint})` : "";
  lines.push(
    `${indent}agentic briefings: ${verdict.ok ? "yes" : `no, ${verdict.reason ?? "unknown reason"}`}${checkedElsewhere}`,
  );
  return lines;
}

/** A route whose model its endpoint does not have (`/api/show` answered 404). */
export function missingModels(
  inspection: ModelsInspection,
): Array<{ model: string; endpoint: string; url: string }> {
  const urls = new Map(inspection.endpoints.map((endpoint) => [endpoint.name, endpoint]));
  const missing = new Map<string, { model: string; endpoint: string; url: string }>();
  for (const route of inspection.routes) {
    const endpoint = urls.get(route.endpoint);
    if (!endpoint?.reachable || !route.capabilityError?.startsWith("404")) continue;
    missing.set(`${route.endpoint} ${route.model}`, {
      model: route.model,
      endpoint: route.endpoint,
      url: endpoint.url,
    });
  }
  return [...missing.values()];
}

/** `briefbot models [--json]`: exit code 1 when an endpoint is unreachable or a route's model is not pulled. */
export const registerModelsCommand: RegisterCommands = (program, context) => {
  program
    .command("models")
    .description(
      "list Ollama endpoints, loaded models, and whether each route's model can run agentic briefings",
    )
    .option("--json", "print JSON instead of the report")
    .option(
      "--metrics-url <url>",
      "the running bot's /metrics, for per-endpoint utilisation (default: http://127.0.0.1:<PORT>/metrics)",
    )
    .action((flags: { json?: boolean; metricsUrl?: string }) =>
      withContext(
        context,
        async (ctx) => {
          const metricsUrl = flags.metricsUrl ?? `http://127.0.0.1:${ctx.config.port}/metrics`;
          const [inspection, utilisation] = await Promise.all([
            inspectModelRoutes({ routes: ctx.config.models, fetch: ctx.fetch }),
            readUtilisation(metricsUrl, ctx.fetch),
          ]);
          if (flags.json) ctx.out.json({ ...inspection, utilisation });
          else ctx.out.line(formatModelsReport(inspection, utilisation));
          const missing = missingModels(inspection);
          if (missing.length > 0 && !flags.json) {
            ctx.out.line("");
            ctx.out.line("Not pulled yet (briefings fall back to a plain digest until they are):");
            for (const entry of missing)
              ctx.out.line(`  OLLAMA_HOST=${entry.url} ollama pull ${entry.model}`);
          }
          const down = inspection.endpoints.filter((endpoint) => !endpoint.reachable);
          const problems = [
            ...(down.length > 0 ? [`unreachable: ${down.map((endpoint) => endpoint.name).join(", ")}`] : []),
            ...(missing.length > 0
              ? [
                  `not pulled: ${missing.map((entry) => `${entry.model} on ${entry.endpoint}`).join(", ")} (ollama pull)`,
                ]
              : []),
          ];
          if (problems.length > 0) throw new CliError(problems.join("; "), 1);
        },
        { database: false },
      ),
    );
};
