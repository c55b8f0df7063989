import { Ollama } from "ollama";
import type { ResolvedEndpoint, ResolvedModelRoutes, ResolvedRoute } from "../config/model-routes.ts";
import type { Logger } from "../core/logger.ts";
import {
  type AgenticVerdict,
  type ChatRequest,
  type ChatResult,
  type ModelClient,
  ModelError,
  type ModelRole,
} from "../core/model.ts";
import { AffinityMemory, affinityKey } from "./affinity.ts";
import { abortableSleep, backoffDelay, DEFAULT_RETRY, type RetryPolicy, type Sleep } from "./backoff.ts";
import { agenticProblem, capabilitiesFromShow, type ModelCapabilities } from "./capabilities.ts";
import { EndpointPool, type EndpointStats } from "./endpoint-pool.ts";
import { inspectModels, type ModelsInspection, ollamaErrorText } from "./inspect.ts";
import { AttemptError, type AttemptFailure, type StreamChatOutcome, streamChat } from "./ollama-stream.ts";
import { estimatePromptTokens, looksTruncated } from "./prompt-size.ts";
import { recoverToolCalls } from "./tool-call-recovery.ts";

/** The part of the logger the router uses. */
export type ModelLogger = Pick<Logger, "warn"> & Partial<Pick<Logger, "info">>;

/** What the router did, for tests, logs and metrics. */
export type ModelEvent =
  | { type: "queued"; role: ModelRole; endpoint: string; model: string }
  | { type: "started"; role: ModelRole; endpoint: string; model: string; queueWaitMs: number }
  | {
      type: "retry";
      role: ModelRole;
      endpoint: string;
      model: string;
      attempt: number;
      delayMs: number;
      error: string;
    }
  /** The work moved on after `from` failed: to a fallback, or to another endpoint the route lists. */
  | { type: "fallback"; role: ModelRole; from: string; to: string; model: string }
  | { type: "finished"; role: ModelRole; endpoint: string; model: string }
  | { type: "failed"; role: ModelRole; endpoint: string; model: string; error: string };

export interface ModelClientOptions {
  routes: ResolvedModelRoutes;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  logger?: ModelLogger;
  retry?: Partial<RetryPolicy>;
  /** Longest silence (before the first chunk or between chunks) before a request is aborted. Default 120 s. */
  stallTimeoutMs?: number;
  /**
   * How long one request may take once it runs, however steadily it streams, unless its route says
   * otherwise (`turn_timeout_seconds`). Default 180 s.
   */
  turnTimeoutMs?: number;
  /** The output cap (`num_predict`) unless a route says otherwise. Default 2048 tokens. */
  numPredict?: number;
  /** For `/api/show`, `/api/version`, `/api/ps`. Default 10 s. */
  probeTimeoutMs?: number;
  sleep?: Sleep;
  /** Monotonic milliseconds, for durations and queue waits. */
  now?: () => number;
  onEvent?: (event: ModelEvent) => void;
  /** Let interactive work jump queued briefing/background work. Default true; off only for the bench. */
  prioritizeInteractive?: boolean;
  /** How long spread work avoids an endpoint that just failed. Default 30 s. */
  downCooldownMs?: number;
}

export interface ModelRouter extends ModelClient {
  /** Slots, queues, waits and utilisation per endpoint, for `/metrics` and `briefbot models`. */
  stats(): EndpointStats[];
  /** `/api/show` for a model on a named endpoint, cached per (endpoint, model) once it succeeds. */
  capabilities(endpoint: string, model: string): Promise<ModelCapabilities>;
  /** Reachability, loaded models and each route's verdict, for `briefbot models`. */
  inspect(): Promise<ModelsInspection>;
}

const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

/** Room for the longest briefing and a few tool calls; a reply that needs more is a model running away. */
export const DEFAULT_NUM_PREDICT = 2048;
export const DEFAULT_TURN_TIMEOUT_MS = 180_000;

export function createModelClient(options: ModelClientOptions): ModelRouter {
  const { routes } = options;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const stallTimeoutMs = options.stallTimeoutMs ?? 120_000;
  const limitsOf = (route: ResolvedRoute) => ({
    numPredict: route.numPredict ?? options.numPredict ?? DEFAULT_NUM_PREDICT,
    turnTimeoutMs:
      route.turnTimeoutSeconds !== undefined
        ? route.turnTimeoutSeconds * 1000
        : (options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS),
  });
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? (() => performance.now());
  const emit = (event: ModelEvent) => options.onEvent?.(event);

  const endpoints = new Map<string, ResolvedEndpoint>(
    routes.endpoints.map((endpoint) => [endpoint.name, endpoint]),
  );
  for (const route of Object.values(routes.routes)) {
    for (const name of [route.endpoint, ...route.endpoints, route.fallback]) {
      if (name !== undefined && !endpoints.has(name)) {
        throw new Error(`routes.${route.role} names endpoint "${name}", which is not defined`);
      }
    }
  }
  const pool = new EndpointPool(routes.endpoints, {
    interactiveEndpoints: [routes.routes.interactive.endpoint],
    now,
    prioritizeInteractive: options.prioritizeInteractive ?? true,
  });
  const downCooldownMs = options.downCooldownMs ?? 30_000;
  const affinity = new AffinityMemory();
  const endpointNamed = (name: string): ResolvedEndpoint => endpoints.get(name)!;

  const probeClient = (endpoint: ResolvedEndpoint) =>
    new Ollama({
      host: endpoint.url,
      fetch: (input, init) => {
        const deadline = AbortSignal.timeout(probeTimeoutMs);
        return baseFetch(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
        });
      },
    });

  const capabilityCache = new Map<string, Promise<ModelCapabilities>>();
  const capabilities = (endpointName: string, model: string): Promise<ModelCapabilities> => {
    const endpoint = endpoints.get(endpointName);
    if (!endpoint) return Promise.reject(new Error(`endpoint "${endpointName}" is not defined`));
    const key = `${endpoint.url}\u0000${model}`;
    let cached = capabilityCache.get(key);
    if (!cached) {
      cached = probeClient(endpoint)
        .show({ model })
        .then((show) => capabilitiesFromShow(model, show));
      // A failure (endpoint down, model not pulled yet) must not stick.
      cached.catch(() => capabilityCache.delete(key));
      capabilityCache.set(key, cached);
    }
    return cached;
  };

  /**
   * Runs one piece of work on a free endpoint of the route (work-conserving), moving on to the route's
   * other endpoints and then its fallback when one fails: retries with backoff on 5xx and connection
   * failures, typed errors for everything the caller can act on.
   */
  async function runOnRoute<T>(
    route: ResolvedRoute,
    model: string,
    signal: AbortSignal | undefined,
    work: (endpoint: ResolvedEndpoint) => Promise<T>,
    preferred?: string,
  ): Promise<{ value: T; endpoint: string; queueWaitMs: number }> {
    // A model other than the route's (a user's preference) stays on the route's own endpoint: elsewhere
    // it would make Ollama swap models under other work.
    const spread = model === route.model ? route.endpoints : [route.endpoint];
    const failed = new Set<string>();
    const failures: string[] = [];
    let lastError: unknown;
    let queueWaitMs = 0;
    let movedFrom: string | undefined;
    for (;;) {
      const remaining = spread.filter((name) => !failed.has(name));
      const candidates =
        remaining.length > 0
          ? remaining
          : route.fallback !== undefined && !failed.has(route.fallback)
            ? [route.fallback]
            : [];
      if (candidates.length === 0) break;
      emit({ type: "queued", role: route.role, endpoint: candidates[0] ?? route.endpoint, model });
      // The slot is held through retries: the endpoint is loading or failing, and work let in meanwhile
      // would only fail the same way.
      const lease = await pool.acquire({ role: route.role, candidates, preferred, signal });
      const endpointName = lease.endpoint;
      const base = { role: route.role, endpoint: endpointName, model };
      queueWaitMs += lease.waitedMs;
      if (movedFrom !== undefined) {
        options.logger?.warn(
          { ...base, from: movedFrom, failures },
          "Ollama endpoint unavailable; using another endpoint of the route",
        );
        emit({ type: "fallback", role: route.role, from: movedFrom, to: endpointName, model });
      }
      emit({ type: "started", ...base, queueWaitMs: lease.waitedMs });
      try {
        for (let attempt = 1; ; attempt += 1) {
          try {
            const value = await work(endpointNamed(endpointName));
            pool.markUp(endpointName);
            emit({ type: "finished", ...base });
            return { value, endpoint: endpointName, queueWaitMs };
          } catch (error) {
            if (!(error instanceof AttemptError)) throw error;
            lastError = error;
            const description = describeFailure(error.failure);
            emit({ type: "failed", ...base, error: description });
            throwIfFinal(error, model, endpointName, signal);
            if (error.failure.kind === "stall" || attempt >= retry.attempts) {
              failures.push(`${endpointName}: ${description}`);
              break;
            }
            const delayMs = backoffDelay(retry, attempt);
            options.logger?.warn(
              { ...base, attempt, delayMs, error: description },
              "Ollama request failed; retrying after backoff",
            );
            emit({ type: "retry", ...base, attempt, delayMs, error: description });
            await sleep(delayMs, signal);
          }
        }
      } finally {
        lease.release();
      }
      failed.add(endpointName);
      pool.markDown(endpointName, now() + downCooldownMs);
      movedFrom = endpointName;
    }
    throw new ModelError(
      `No endpoint could serve the ${route.role} route (${model}): ${failures.join("; ")}`,
      "MODEL_UNAVAILABLE",
      { cause: lastError },
    );
  }

  const client: ModelRouter = {
    async chat(request: ChatRequest): Promise<ChatResult> {
      const startedAt = now();
      const route = routes.routes[request.role];
      const model = request.model?.trim() || route.model;
      const estimatedTokens = estimatePromptTokens(request.messages, request.tools);
      // Later turns of a conversation go back to the endpoint that has its prompt cached, when it is free.
      const conversation = affinityKey(model, request.messages);
      // The run's budget covers the queue wait too; the route's turn deadline only the request itself.
      const budget =
        request.timeoutMs === undefined
          ? undefined
          : AbortSignal.timeout(Math.max(1, Math.ceil(request.timeoutMs)));
      const signal =
        budget && request.signal ? AbortSignal.any([budget, request.signal]) : (budget ?? request.signal);
      let served: Awaited<ReturnType<typeof runOnRoute<StreamChatOutcome>>>;
      try {
        served = await runOnRoute(
          route,
          model,
          signal,
          (target) =>
            streamChat({
              url: target.url,
              model,
              messages: request.messages,
              ...(request.tools ? { tools: request.tools } : {}),
              numCtx: route.numCtx,
              ...limitsOf(route),
              ...(route.keepAlive === undefined ? {} : { keepAlive: route.keepAlive }),
              fetch: baseFetch,
              stallTimeoutMs,
              ...(signal ? { signal } : {}),
              ...(request.onToken ? { onToken: request.onToken } : {}),
            }),
          conversation === undefined ? undefined : affinity.get(conversation),
        );
      } catch (error) {
        if (budget?.aborted && !request.signal?.aborted) {
          throw new ModelError(
            `the ${request.role} request ran out of the run's time (${request.timeoutMs} ms left when it was made)`,
            "DEADLINE_EXCEEDED",
            { cause: error },
          );
        }
        throw error;
      }
      const { value, endpoint, queueWaitMs } = served;
      if (conversation !== undefined) affinity.set(conversation, endpoint);
      if (looksTruncated(estimatedTokens, value.promptEvalCount)) {
        throw new ModelError(
          `Ollama ${endpoint} evaluated ${value.promptEvalCount} prompt tokens of about ${estimatedTokens} sent ` +
            `(num_ctx ${route.numCtx}): the prompt was silently truncated`,
          "CONTEXT_TRUNCATED",
        );
      }
      return toChatResult(value, request, {
        endpoint,
        model,
        queueWaitMs,
        durationMs: now() - startedAt,
      });
    },

    async canRunAgentic(role: ModelRole, requested?: string): Promise<AgenticVerdict> {
      const route = routes.routes[role];
      const model = requested?.trim() || route.model;
      const chain = [
        ...new Set([...route.endpoints, ...(route.fallback === undefined ? [] : [route.fallback])]),
      ];
      const reasons: string[] = [];
      for (const endpoint of chain) {
        try {
          const problem = agenticProblem(await capabilities(endpoint, model));
          return problem === undefined
            ? { ok: true, model, endpoint }
            : { ok: false, reason: problem, model, endpoint };
        } catch (error) {
          const status = statusOf(error);
          if (status === 404) {
            return {
              ok: false,
              reason: `${model} is not available on ${endpoint} (${ollamaErrorText(error)})`,
              model,
              endpoint,
            };
          }
          reasons.push(`${endpoint} unreachable (${ollamaErrorText(error)})`);
        }
      }
      return { ok: false, reason: reasons.join("; "), model, endpoint: route.endpoint };
    },

    async warm(role: ModelRole): Promise<void> {
      const route = routes.routes[role];
      // An empty `messages` loads the model; the same num_ctx as real requests avoids a reload later.
      await runOnRoute(route, route.model, undefined, (target) =>
        streamChat({
          url: target.url,
          model: route.model,
          messages: [],
          numCtx: route.numCtx,
          ...limitsOf(route),
          ...(route.keepAlive === undefined ? {} : { keepAlive: route.keepAlive }),
          fetch: baseFetch,
          stallTimeoutMs,
        }),
      );
    },

    stats: () => pool.stats(),
    capabilities,
    inspect: () =>
      inspectModels({
        routes,
        client: (endpoint) => probeClient(endpoint),
        capabilities,
        canRunAgentic: (role) => client.canRunAgentic(role),
        stats: (endpoint) => pool.statsOf(endpoint),
      }),
  };
  return client;
}

/** Errors that end the whole request: no retry, no fallback. */
function throwIfFinal(
  error: AttemptError,
  model: string,
  endpoint: string,
  signal: AbortSignal | undefined,
): void {
  const failure = error.failure;
  const where = `Ollama ${endpoint} (${model})`;
  if (failure.kind === "aborted") throw signal?.reason ?? error;
  if (failure.kind === "deadline") {
    throw new ModelError(
      `${where} was still answering at the turn deadline: ${failure.message}`,
      "DEADLINE_EXCEEDED",
      {
        cause: error,
      },
    );
  }
  if (failure.kind === "runaway") {
    throw new ModelError(`${where} was cut off: ${failure.message}`, "OUTPUT_CAPPED", { cause: error });
  }
  if (failure.kind === "http" && !RETRYABLE_STATUSES.has(failure.status)) {
    // Ollama ≥ 0.12.6 refuses an overlong prompt instead of truncating when asked to (`truncate: false`).
    const code = /context length/i.test(failure.message) ? "CONTEXT_TRUNCATED" : "MODEL_REJECTED";
    throw new ModelError(`${where} refused the request: ${failure.status} ${failure.message}`, code, {
      cause: error,
    });
  }
  if (failure.kind === "stream-error") {
    throw new ModelError(`${where} failed mid-stream: ${failure.message}`, "MODEL_UNAVAILABLE", {
      cause: error,
    });
  }
  if (error.emitted) {
    // Part of the answer is already on screen; a second run would repeat it.
    throw new ModelError(`${where} broke off mid-answer: ${failure.message}`, "MODEL_UNAVAILABLE", {
      cause: error,
    });
  }
}

function describeFailure(failure: AttemptFailure): string {
  switch (failure.kind) {
    case "http":
      return `HTTP ${failure.status} ${failure.message}`;
    case "stall":
      return `stalled: ${failure.message}`;
    default:
      return failure.message;
  }
}

function toChatResult(
  outcome: StreamChatOutcome,
  request: ChatRequest,
  meta: { endpoint: string; model: string; queueWaitMs: number; durationMs: number },
): ChatResult {
  let content = outcome.content;
  let toolCalls = outcome.toolCalls;
  let recoveredToolCalls = false;
  if (toolCalls.length === 0 && request.tools && request.tools.length > 0) {
    const recovered = recoverToolCalls(content, new Set(request.tools.map((tool) => tool.function.name)));
    if (recovered) {
      content = recovered.content;
      toolCalls = recovered.toolCalls;
      recoveredToolCalls = true;
    }
  }
  return {
    content,
    toolCalls,
    recoveredToolCalls,
    endpoint: meta.endpoint,
    model: meta.model,
    promptEvalCount: outcome.promptEvalCount,
    evalCount: outcome.evalCount,
    durationMs: meta.durationMs,
    queueWaitMs: meta.queueWaitMs,
  };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status_code?: unknown } | null)?.status_code;
  return typeof status === "number" ? status : undefined;
}
