/**
 * A faithful, scriptable Ollama server for tests and benches: real HTTP on 127.0.0.1, spoken to by the
 * official `ollama` client. Behaviour follows `shared/notes/ollama.md` (Ollama ≥ 0.12.10).
 *
 * ```ts
 * const server = await startOllamaServer({
 *   models: { "qwen2.5:7b": {}, "llama3.2:1b": { parameterSize: "1.2B" } },
 *   latency: { timeToFirstTokenMs: 50, perTokenMs: 5 },
 * });
 * server.script("qwen2.5:7b", [
 *   { toolCalls: [{ name: "list_events", arguments: { day: "2025-06-01" } }] },
 *   { content: "You have no events today." },
 * ]);
 * // ... point the code under test at server.url ...
 * expect(server.chatRequests()[0]?.options?.num_ctx).toBe(8192);
 * await server.close();
 * ```
 *
 * Replies ({@link ScriptedReply}); every field is optional and they combine:
 * - `{ content: "..." }`: streamed one whitespace-delimited token per chunk.
 * - `{ toolCalls: [{ name, arguments, id? }], toolCallsIn: "chunk" | "final" }`: complete calls, either in a
 *   `done:false` chunk with `content:""`, `id` and `function.index` (Go-template path, the default) or only
 *   on the final `done:true` chunk (llama-server path). Content, if any, streams first.
 * - `{ error: { status: 500, message: "..." } }`: a `{"error"}` JSON body with that status, before streaming.
 * - `{ midStreamError: "..." }`: HTTP 200, the content tokens, then an `{"error"}` NDJSON line and no `done`.
 * - `{ stallMs: 5000, stallAfterTokens?: 2 }`: go silent for `stallMs` (before the headers when
 *   `stallAfterTokens` is 0/absent, otherwise after that many chunks). A client disconnect ends the stall.
 * - `{ dropConnection: true }`: destroy the socket without answering (a crashed server).
 * - `{ waitFor: promise }`: hold the request (after it took a model slot, before any byte) until it settles;
 *   tests use it to keep a request "running" while they observe other traffic.
 * - `{ promptEvalCount: 120 }`: override the reported prompt tokens (simulate silent truncation).
 * - `{ doneReason: "length" }`, `{ thinking: "..." }`, `{ latency: { perTokenMs } }` per reply.
 * - `{ endless: { token: "la ", everyMs: 0 } }`: HTTP 200, then that token forever (a runaway model on a
 *   server that ignores `num_predict`), until the client goes away.
 *
 * Like Ollama, a request's `options.num_predict` cuts the reply after that many tokens with
 * `done_reason: "length"` (tool calls count as their JSON's length / 4).
 *
 * Per model, replies come from the `script()` queue first, then the model's `reply` function, then a default
 * `{ content: "Hello from <model>." }`. Like `OLLAMA_NUM_PARALLEL=1`, each model serves `parallel` requests at
 * a time and queues the rest in arrival order. `prompt_eval_count` is about chars/4 of the rendered messages
 * and tools; a prompt larger than `options.num_ctx` (default 4096) is silently cut to `num_ctx/2 + 2` as
 * Ollama HEAD does (#17427), or refused with 400 when the request says `truncate: false`.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isRecord, listen, readBody, sendJson } from "./http.ts";

export interface LatencyModel {
  /** Delay before the first chunk (prompt evaluation / model load). */
  timeToFirstTokenMs: number;
  /** Delay before each further chunk; a tool call costs one token per 4 characters of its JSON. */
  perTokenMs: number;
}

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
  id?: string;
}

export interface ScriptedReply {
  content?: string;
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  /** Where tool calls appear when streaming. Default `"chunk"`. */
  toolCallsIn?: "chunk" | "final";
  error?: { status: number; message: string };
  midStreamError?: string;
  stallMs?: number;
  stallAfterTokens?: number;
  dropConnection?: boolean;
  waitFor?: Promise<unknown>;
  promptEvalCount?: number;
  evalCount?: number;
  doneReason?: "stop" | "length";
  latency?: Partial<LatencyModel>;
  endless?: { token?: string; everyMs?: number };
}

export interface RecordedChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_name?: string;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A `/api/chat` body as the server received it. */
export interface RecordedChatRequest {
  model: string;
  messages: RecordedChatMessage[];
  tools?: unknown[];
  stream?: boolean;
  options?: Record<string, unknown>;
  keep_alive?: string | number;
  truncate?: boolean;
  [key: string]: unknown;
}

export interface RecordedRequest {
  /** Arrival order across all paths, from 0. */
  index: number;
  method: string;
  path: string;
  /** Parsed JSON body, or `undefined` for bodiless requests and bad JSON. */
  body: unknown;
}

export interface ReplyContext {
  model: string;
  /** How many chat requests this model had before this one. */
  callIndex: number;
  request: RecordedChatRequest;
}

export type ReplyFunction = (context: ReplyContext) => ScriptedReply | Promise<ScriptedReply>;

export interface TestModelSpec {
  /** GGUF architecture, the prefix of `<arch>.context_length`. Default `"qwen2"`. */
  architecture?: string;
  /** As `details.parameter_size`. Default `"7.6B"`. */
  parameterSize?: string;
  /** Default `["completion", "tools"]`. */
  capabilities?: string[];
  /** Leave `capabilities` out of `/api/show`, like Ollama < 0.6.4 (tool support then follows the template). */
  omitCapabilities?: boolean;
  /** Trained context, reported in `model_info`. Default 32768. */
  contextLength?: number;
  quantization?: string;
  template?: string;
  reply?: ReplyFunction;
}

export type ServerEventType = "received" | "started" | "first-chunk" | "finished" | "failed" | "disconnected";

/** What happened to each chat request, in order; tests assert ordering and overlap from these. */
export interface ServerEvent {
  type: ServerEventType;
  /** The `RecordedRequest.index` of the chat request. */
  request: number;
  model: string;
  /** `performance.now()` at the event; for benches, never for test assertions. */
  at: number;
}

export interface OllamaServerOptions {
  models?: Record<string, TestModelSpec>;
  latency?: Partial<LatencyModel>;
  /** Requests one model serves at once (`OLLAMA_NUM_PARALLEL`). Default 1. */
  parallel?: number;
  /** `/api/version`. Default `"0.12.10"`. */
  version?: string;
}

export interface OllamaTestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  events: ServerEvent[];
  /** `/api/chat` bodies, optionally for one model. */
  chatRequests(model?: string): RecordedChatRequest[];
  /** Queue replies for a model; they are used before its reply function. */
  script(model: string, reply: ScriptedReply | ScriptedReply[]): void;
  /** Add or replace a model. */
  setModel(name: string, spec?: TestModelSpec): void;
  /** Models loaded by a chat (what `/api/ps` lists), with the `num_ctx` they were loaded with. */
  loadedModels(): Array<{ name: string; numCtx: number; expiresAt: Date }>;
  close(): Promise<void>;
}

const DEFAULT_NUM_CTX = 4096;

export async function startOllamaServer(options: OllamaServerOptions = {}): Promise<OllamaTestServer> {
  const models = new Map<string, TestModelSpec>(Object.entries(options.models ?? {}));
  const scripts = new Map<string, ScriptedReply[]>();
  const callCounts = new Map<string, number>();
  const slots = new Map<string, ModelSlots>();
  const loaded = new Map<string, { numCtx: number; expiresAt: Date }>();
  const requests: RecordedRequest[] = [];
  const events: ServerEvent[] = [];
  const defaultLatency: LatencyModel = { timeToFirstTokenMs: 0, perTokenMs: 0, ...options.latency };
  const version = options.version ?? "0.12.10";
  const closing = new AbortController();

  const slotsFor = (model: string): ModelSlots => {
    let found = slots.get(model);
    if (!found) {
      found = new ModelSlots(options.parallel ?? 1);
      slots.set(model, found);
    }
    return found;
  };

  const nextReply = async (context: ReplyContext): Promise<ScriptedReply> => {
    const queued = scripts.get(context.model)?.shift();
    if (queued) return queued;
    const replyFunction = models.get(context.model)?.reply;
    if (replyFunction) return replyFunction(context);
    return { content: `Hello from ${context.model}.` };
  };

  const handleChat = async (
    index: number,
    body: unknown,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const invalid = validateChatBody(body);
    if (invalid) return sendError(response, 400, invalid);
    const chat = body as RecordedChatRequest;
    const spec = models.get(chat.model);
    if (!spec) return sendError(response, 404, `model '${chat.model}' not found`);
    const capabilities = spec.omitCapabilities ? [] : (spec.capabilities ?? ["completion", "tools"]);
    if (chat.tools && chat.tools.length > 0 && !spec.omitCapabilities && !capabilities.includes("tools")) {
      return sendError(response, 400, `${fullModelName(chat.model)} does not support tools`);
    }

    const emit = (type: ServerEventType) =>
      events.push({ type, request: index, model: chat.model, at: performance.now() });
    emit("received");
    const disconnected = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) {
        disconnected.abort();
        emit("disconnected");
      }
    });
    const cancelled = AbortSignal.any([disconnected.signal, closing.signal]);

    const release = await slotsFor(chat.model).acquire(cancelled);
    if (!release) return;
    try {
      emit("started");
      const startedAt = performance.now();
      const numCtx = typeof chat.options?.num_ctx === "number" ? chat.options.num_ctx : DEFAULT_NUM_CTX;
      loaded.set(chat.model, { numCtx, expiresAt: expiryFor(chat.keep_alive) });
      if (chat.messages.length === 0) {
        // A load (or, with keep_alive 0, an unload) request: no generation, no script consumed.
        const unload = chat.keep_alive === 0 || chat.keep_alive === "0";
        if (unload) loaded.delete(chat.model);
        const done = {
          model: chat.model,
          created_at: new Date().toISOString(),
          message: { role: "assistant", content: "" },
          done: true,
          done_reason: unload ? "unload" : "load",
        };
        if (chat.stream === false) sendJson(response, 200, done);
        else {
          response.writeHead(200, { "Content-Type": "application/x-ndjson" });
          response.end(`${JSON.stringify(done)}\n`);
        }
        emit("finished");
        return;
      }

      const callIndex = callCounts.get(chat.model) ?? 0;
      callCounts.set(chat.model, callIndex + 1);
      const reply = await nextReply({ model: chat.model, callIndex, request: chat });
      if (reply.waitFor) await Promise.race([reply.waitFor.catch(() => undefined), abortPromise(cancelled)]);
      if (cancelled.aborted) return;
      if (reply.dropConnection) {
        emit("failed");
        request.socket.destroy();
        return;
      }
      if (reply.error) {
        emit("failed");
        return sendError(response, reply.error.status, reply.error.message);
      }

      const promptTokens = estimateTokens(chat);
      if (chat.truncate === false && promptTokens > numCtx) {
        emit("failed");
        return sendError(response, 400, "the input length exceeds the context length");
      }
      const latency = { ...defaultLatency, ...reply.latency };
      if (reply.endless) {
        await streamForever(chat.model, reply.endless, response, cancelled);
        emit("disconnected");
        return;
      }
      const numPredict = typeof chat.options?.num_predict === "number" ? chat.options.num_predict : undefined;
      const planned = planChunks(reply);
      const plan = numPredict === undefined ? planned : capTokens(planned, numPredict);
      const cutShort = plan.length < planned.length;
      const metrics = {
        promptEvalCount:
          reply.promptEvalCount ?? (promptTokens > numCtx ? Math.floor(numCtx / 2) + 2 : promptTokens),
        evalCount: reply.evalCount ?? plan.reduce((sum, chunk) => sum + chunk.tokens, 0),
      };
      const stream = chat.stream !== false;
      const stallAt = reply.stallMs ? (reply.stallAfterTokens ?? 0) : -1;
      const wait = (ms: number) => sleepUnless(ms, cancelled);

      if (stallAt === 0) await wait(reply.stallMs ?? 0);
      if (cancelled.aborted) return;
      await wait(latency.timeToFirstTokenMs);
      if (cancelled.aborted) return;
      const promptDoneAt = performance.now();

      if (!stream) {
        for (const chunk of plan) await wait(latency.perTokenMs * chunk.tokens);
        if (cancelled.aborted) return;
        if (reply.midStreamError) {
          emit("failed");
          return sendError(response, 500, reply.midStreamError);
        }
        const toolCalls = plan.flatMap((chunk) => chunk.toolCalls ?? []);
        const message = {
          role: "assistant",
          content: plan.map((chunk) => chunk.content ?? "").join(""),
          ...(reply.thinking ? { thinking: reply.thinking } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        };
        emit("first-chunk");
        sendJson(response, 200, {
          ...finalChunk(
            chat.model,
            message,
            cutShort ? { ...reply, doneReason: "length" } : reply,
            metrics,
            startedAt,
            promptDoneAt,
          ),
        });
        emit("finished");
        return;
      }

      response.writeHead(200, { "Content-Type": "application/x-ndjson" });
      let sent = 0;
      for (const chunk of plan) {
        if (sent > 0) await wait(latency.perTokenMs * chunk.tokens);
        if (cancelled.aborted) return;
        response.write(`${JSON.stringify(streamChunk(chat.model, chunk))}\n`);
        if (sent === 0) emit("first-chunk");
        sent += 1;
        if (sent === stallAt) await wait(reply.stallMs ?? 0);
      }
      if (cancelled.aborted) return;
      if (reply.midStreamError) {
        emit("failed");
        response.end(`${JSON.stringify({ error: reply.midStreamError })}\n`);
        return;
      }
      const finalToolCalls = plan.find((chunk) => chunk.final)?.toolCalls;
      const message = {
        role: "assistant",
        content: "",
        ...(finalToolCalls ? { tool_calls: finalToolCalls } : {}),
      };
      if (sent === 0) emit("first-chunk");
      const ending = cutShort ? { ...reply, doneReason: "length" as const } : reply;
      response.end(
        `${JSON.stringify(finalChunk(chat.model, message, ending, metrics, startedAt, promptDoneAt))}\n`,
      );
      emit("finished");
    } finally {
      release();
    }
  };

  const handleShow = (body: unknown, response: ServerResponse) => {
    const name = readString(body, "model") ?? readString(body, "name");
    if (!name) return sendError(response, 400, "model is required");
    const spec = models.get(name);
    if (!spec) return sendError(response, 404, `model '${name}' not found`);
    const architecture = spec.architecture ?? "qwen2";
    sendJson(response, 200, {
      license: "",
      modelfile: `# Modelfile generated by "ollama show"\nFROM ${name}\n`,
      parameters: 'stop "<|im_end|>"',
      template: spec.template ?? "{{- if .Tools }}<tools>{{ .Tools }}</tools>{{ end }}{{ .Prompt }}",
      details: modelDetails(spec),
      model_info: {
        "general.architecture": architecture,
        "general.parameter_count": parameterCount(spec.parameterSize ?? "7.6B"),
        [`${architecture}.context_length`]: spec.contextLength ?? 32768,
      },
      ...(spec.omitCapabilities ? {} : { capabilities: spec.capabilities ?? ["completion", "tools"] }),
      modified_at: "2025-01-01T00:00:00.000000000Z",
    });
  };

  const handleTags = (response: ServerResponse) => {
    sendJson(response, 200, {
      models: [...models.entries()].map(([name, spec]) => ({
        name,
        model: name,
        modified_at: "2025-01-01T00:00:00.000000000Z",
        size: 4_683_087_332,
        digest: digestOf(name),
        details: modelDetails(spec),
      })),
    });
  };

  const handlePs = (response: ServerResponse) => {
    const now = Date.now();
    for (const [name, entry] of loaded) if (entry.expiresAt.getTime() <= now) loaded.delete(name);
    const running = [...loaded.entries()].sort((a, b) => b[1].expiresAt.getTime() - a[1].expiresAt.getTime());
    sendJson(response, 200, {
      models: running.map(([name, entry]) => ({
        name,
        model: name,
        size: 5_000_000_000,
        digest: digestOf(name),
        details: modelDetails(models.get(name) ?? {}),
        expires_at: entry.expiresAt.toISOString(),
        size_vram: 5_000_000_000,
        context_length: entry.numCtx,
      })),
    });
  };

  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const method = request.method ?? "GET";
    readBody(request).then(
      async (text) => {
        const body = parseJson(text);
        const index = requests.length;
        requests.push({ index, method, path, body });
        if (method === "POST" && path === "/api/chat") {
          if (text.trim() === "") return sendError(response, 400, "missing request body");
          if (body === undefined) return sendError(response, 400, "invalid character in request body");
          return handleChat(index, body, request, response);
        }
        if (method === "POST" && path === "/api/show") return handleShow(body, response);
        if ((method === "GET" || method === "HEAD") && path === "/api/tags") return handleTags(response);
        if (method === "GET" && path === "/api/ps") return handlePs(response);
        if ((method === "GET" || method === "HEAD") && path === "/api/version") {
          return sendJson(response, 200, { version });
        }
        if ((method === "GET" || method === "HEAD") && path === "/") {
          response.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
          return response.end("Ollama is running");
        }
        response.writeHead(404, { "Content-Type": "text/plain" });
        response.end("404 page not found");
      },
      () => request.socket.destroy(),
    );
  });

  const listening = await listen(server);

  return {
    url: listening.url,
    requests,
    events,
    chatRequests: (model) =>
      requests
        .filter((entry) => entry.method === "POST" && entry.path === "/api/chat" && isChatBody(entry.body))
        .map((entry) => entry.body as RecordedChatRequest)
        .filter((body) => model === undefined || body.model === model),
    script(model, reply) {
      const queue = scripts.get(model) ?? [];
      queue.push(...(Array.isArray(reply) ? reply : [reply]));
      scripts.set(model, queue);
    },
    setModel(name, spec = {}) {
      models.set(name, spec);
    },
    loadedModels: () => [...loaded.entries()].map(([name, entry]) => ({ name, ...entry })),
    close: () => {
      closing.abort();
      return listening.close();
    },
  };
}

/** A URL where nothing listens, for connection-refused tests. */
export async function refusedUrl(): Promise<string> {
  const probe = await listen(createServer());
  await probe.close();
  return probe.url;
}

/** A promise tests can settle by hand, for `waitFor`. */
export function createGate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

interface PlannedChunk {
  content?: string;
  toolCalls?: WireToolCall[];
  /** Tool calls kept for the final `done` chunk. */
  final?: boolean;
  tokens: number;
}

interface WireToolCall {
  id: string;
  function: { index: number; name: string; arguments: Record<string, unknown> };
}

function planChunks(reply: ScriptedReply): PlannedChunk[] {
  const chunks: PlannedChunk[] = splitTokens(reply.content ?? "").map((content) => ({ content, tokens: 1 }));
  const calls: WireToolCall[] = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${randomBytes(8).toString("hex").slice(0, 8)}`,
    function: { index, name: call.name, arguments: call.arguments },
  }));
  if (calls.length > 0) {
    const tokens = Math.max(1, Math.ceil(JSON.stringify(calls).length / 4));
    chunks.push({ toolCalls: calls, final: reply.toolCallsIn === "final", tokens });
  }
  return chunks;
}

/** The chunks Ollama would send before `num_predict` tokens are spent. */
function capTokens(plan: PlannedChunk[], numPredict: number): PlannedChunk[] {
  const kept: PlannedChunk[] = [];
  let tokens = 0;
  for (const chunk of plan) {
    if (tokens + chunk.tokens > numPredict) break;
    tokens += chunk.tokens;
    kept.push(chunk);
  }
  return kept;
}

/** A runaway model: one token after another, never `done`, until the client disconnects. */
async function streamForever(
  model: string,
  endless: { token?: string; everyMs?: number },
  response: ServerResponse,
  cancelled: AbortSignal,
): Promise<void> {
  response.writeHead(200, { "Content-Type": "application/x-ndjson" });
  const line = `${JSON.stringify(streamChunk(model, { content: endless.token ?? "la ", tokens: 1 }))}\n`;
  while (!cancelled.aborted && !response.destroyed) {
    if (!response.write(line)) {
      await new Promise<void>((resolve) => {
        response.once("drain", resolve);
        response.once("close", resolve);
      });
    }
    if ((endless.everyMs ?? 0) > 0) await sleepUnless(endless.everyMs ?? 0, cancelled);
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Whitespace-delimited tokens that keep their leading whitespace, so joining them restores the text. */
export function splitTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

function streamChunk(model: string, chunk: PlannedChunk): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: chunk.content ?? "" };
  if (chunk.toolCalls && !chunk.final) message.tool_calls = chunk.toolCalls;
  return { model, created_at: new Date().toISOString(), message, done: false };
}

function finalChunk(
  model: string,
  message: Record<string, unknown>,
  reply: ScriptedReply,
  metrics: { promptEvalCount: number; evalCount: number },
  startedAt: number,
  promptDoneAt: number,
): Record<string, unknown> {
  const endedAt = performance.now();
  const nanoseconds = (ms: number) => Math.max(1, Math.round(ms * 1_000_000));
  return {
    model,
    created_at: new Date().toISOString(),
    message,
    done: true,
    done_reason: reply.doneReason ?? "stop",
    total_duration: nanoseconds(endedAt - startedAt),
    load_duration: nanoseconds(0.05),
    prompt_eval_count: metrics.promptEvalCount,
    prompt_eval_duration: nanoseconds(promptDoneAt - startedAt),
    eval_count: metrics.evalCount,
    eval_duration: nanoseconds(endedAt - promptDoneAt),
  };
}

/** About chars/4 of what the template would render: roles, contents, tool calls and tool definitions. */
function estimateTokens(chat: RecordedChatRequest): number {
  let chars = 0;
  for (const message of chat.messages) {
    chars += message.role.length + (typeof message.content === "string" ? message.content.length : 0);
    if (message.tool_calls) chars += JSON.stringify(message.tool_calls).length;
  }
  if (chat.tools) chars += JSON.stringify(chat.tools).length;
  return Math.ceil(chars / 4);
}

function validateChatBody(body: unknown): string | undefined {
  if (!isRecord(body)) return "missing request body";
  if (typeof body.model !== "string" || body.model.trim() === "") return "model is required";
  const messages = body.messages ?? [];
  if (!Array.isArray(messages)) {
    return "json: cannot unmarshal object into Go struct field ChatRequest.messages of type []api.Message";
  }
  for (const message of messages) {
    if (!isRecord(message)) return "json: cannot unmarshal into Go struct field ChatRequest.messages";
    if (message.content !== undefined && typeof message.content !== "string") {
      return "json: cannot unmarshal array into Go struct field Message.messages.content of type string";
    }
    if (!["system", "user", "assistant", "tool"].includes(String(message.role).toLowerCase())) {
      return `invalid role: ${String(message.role)}`;
    }
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      const args = isRecord(call) && isRecord(call.function) ? call.function.arguments : undefined;
      if (!isRecord(args)) {
        return "json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments";
      }
    }
  }
  body.messages = messages;
  return undefined;
}

function isChatBody(body: unknown): boolean {
  return isRecord(body) && typeof body.model === "string" && Array.isArray(body.messages);
}

function modelDetails(spec: TestModelSpec): Record<string, unknown> {
  const family = spec.architecture ?? "qwen2";
  return {
    parent_model: "",
    format: "gguf",
    family,
    families: [family],
    parameter_size: spec.parameterSize ?? "7.6B",
    quantization_level: spec.quantization ?? "Q4_K_M",
  };
}

function parameterCount(size: string): number {
  const match = /^([\d.]+)\s*([KMBT]?)/i.exec(size);
  if (!match) return 0;
  const scale: Record<string, number> = { K: 1e3, M: 1e6, B: 1e9, T: 1e12 };
  return Math.round(Number(match[1]) * (scale[(match[2] ?? "").toUpperCase()] ?? 1));
}

function fullModelName(model: string): string {
  const tagged = model.includes(":") ? model : `${model}:latest`;
  return tagged.includes("/") ? `registry.ollama.ai/${tagged}` : `registry.ollama.ai/library/${tagged}`;
}

function digestOf(name: string): string {
  return Buffer.from(name).toString("hex").padEnd(64, "0").slice(0, 64);
}

function expiryFor(keepAlive: string | number | undefined): Date {
  const seconds = parseKeepAlive(keepAlive);
  // Ollama reports "forever" as a far-future time.
  return seconds < 0 ? new Date("2318-01-01T00:00:00Z") : new Date(Date.now() + seconds * 1000);
}

function parseKeepAlive(keepAlive: string | number | undefined): number {
  if (keepAlive === undefined) return 300;
  if (typeof keepAlive === "number") return keepAlive;
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const [, value, unit] of keepAlive.matchAll(/(-?[\d.]+)(ms|s|m|h)?/g)) {
    total += Number(value) * (units[unit ?? "s"] ?? 1);
  }
  return total;
}

class ModelSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly parallel: number) {}

  /** Resolves with a release function, or `undefined` when the client went away while queued. */
  async acquire(cancelled: AbortSignal): Promise<(() => void) | undefined> {
    if (this.running >= this.parallel) {
      let wake = () => {};
      const turn = new Promise<void>((resolve) => {
        wake = resolve;
      });
      this.waiting.push(wake);
      await Promise.race([turn, abortPromise(cancelled)]);
      if (cancelled.aborted) {
        const position = this.waiting.indexOf(wake);
        if (position >= 0) this.waiting.splice(position, 1);
        else this.handOver();
        return undefined;
      }
    } else {
      this.running += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handOver();
    };
  }

  /** Pass our slot to the next waiter, or free it. */
  private handOver(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

function abortPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: message });
}

function readString(body: unknown, key: string): string | undefined {
  return isRecord(body) && typeof body[key] === "string" ? body[key] : undefined;
}
