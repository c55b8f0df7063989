import type { ResolvedModelRoutes } from "../../config/model-routes.ts";
import type { ModelsInspection, RouteInspection } from "../../models/inspect.ts";
import { createModelClient } from "../../models/router.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";

export interface ModelsReportDeps {
  routes: ResolvedModelRoutes;
  fetch?: typeof fetch;
  /** Per probe. Default 5 s, so a dead endpoint does not hang the command. */
  probeTimeoutMs?: number;
}

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
  const inspection = await inspectModelRoutes(deps);
  return deps.json ? JSON.stringify(inspection, null, 2) : formatModelsReport(inspection);
}

export function formatModelsReport(inspection: ModelsInspection): string {
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
  return lines.join("\n");
}

function formatRoute(route: RouteInspection, inspection: ModelsInspection): string[] {
  const where = route.fallback ? `${route.endpoint} (fallback ${route.fallback})` : route.endpoint;
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
    .action((flags: { json?: boolean }) =>
      withContext(
        context,
        async (ctx) => {
          const inspection = await inspectModelRoutes({ routes: ctx.config.models, fetch: ctx.fetch });
          if (flags.json) ctx.out.json(inspection);
          else ctx.out.line(formatModelsReport(inspection));
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
