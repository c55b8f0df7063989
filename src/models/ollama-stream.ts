import { type Message, Ollama, type Tool } from "ollama";
import { BriefbotError, errorMessage } from "../core/errors.ts";
import type { ChatMessage, ToolCall, ToolSchema } from "../core/model.ts";

/** One streamed `/api/chat` call against one endpoint, through the official client. No retries here. */
export interface StreamChatParams {
  url: string;
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  numCtx: number;
  keepAlive?: string | number;
  fetch: typeof fetch;
  /** Longest silence allowed before the first chunk and between chunks. */
  stallTimeoutMs: number;
  /** The output cap, sent as `options.num_predict` and enforced here too: a stream past it is cut. */
  numPredict: number;
  /** How long the request may take from its first byte sent to `done`, however steadily it streams. */
  turnTimeoutMs: number;
  signal?: AbortSignal;
  onToken?: (fragment: string) => void;
}

export interface StreamChatOutcome {
  content: string;
  toolCalls: ToolCall[];
  promptEvalCount: number | null;
  evalCount: number | null;
  doneReason: string | null;
}

export type AttemptFailure =
  /** Non-2xx before streaming: Ollama's real status code and `{"error"}` message. */
  | { kind: "http"; status: number; message: string }
  /** Refused, reset, or the stream ended without a `done` line. */
  | { kind: "connection"; message: string }
  /** An `{"error"}` NDJSON line on a 200 stream. */
  | { kind: "stream-error"; message: string }
  | { kind: "stall"; message: string }
  /** The turn's deadline passed while the model was still answering. */
  | { kind: "deadline"; message: string }
  /** The reply went on past the output cap (a server that ignores `num_predict`, or a stream that never ends). */
  | { kind: "runaway"; message: string }
  /** The caller's signal fired. */
  | { kind: "aborted"; message: string };

export class AttemptError extends BriefbotError {
  constructor(
    readonly failure: AttemptFailure,
    /** Whether content already reached `onToken`: repeating the request would show it twice. */
    readonly emitted: boolean,
    options?: { cause?: unknown },
  ) {
    super("model_attempt_failed", failure.message, options);
  }
}

const NO_DONE_MESSAGE = "Did not receive done or success response in stream.";

/**
 * A token is a few characters of text or tool-call JSON; a reply longer than this many characters per
 * token of `num_predict` cannot have come from a server honouring the cap.
 */
const MAX_CHARS_PER_TOKEN = 16;
/** Chunks beyond `num_predict` tolerated for the final `done` line and a tool-call chunk or two. */
const CHUNK_SLACK = 32;

export async function streamChat(params: StreamChatParams): Promise<StreamChatOutcome> {
  const controller = new AbortController();
  let stalled = false;
  let cut: AttemptFailure | undefined;
  const stop = (failure: AttemptFailure) => {
    cut ??= failure;
    controller.abort(new Error(failure.message));
  };
  const deadline = setTimeout(
    () =>
      stop({ kind: "deadline", message: `no answer within the ${params.turnTimeoutMs} ms turn deadline` }),
    params.turnTimeoutMs,
  );
  const maxChars = params.numPredict * MAX_CHARS_PER_TOKEN;
  const maxChunks = params.numPredict + CHUNK_SLACK;
  let watchdog: NodeJS.Timeout | undefined;
  const armWatchdog = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      stalled = true;
      controller.abort(new Error(`no data from Ollama for ${params.stallTimeoutMs} ms`));
    }, params.stallTimeoutMs);
  };
  const onCallerAbort = () => controller.abort(params.signal?.reason);
  params.signal?.addEventListener("abort", onCallerAbort, { once: true });
  // ollama-js only aborts streams it has already opened; this signal also covers the wait for headers,
  // which is where a cold model load or a hung server sits.
  const fetchWithDeadline: typeof fetch = (input, init) =>
    params.fetch(input, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal,
    });
  // One client per request: `Ollama.abort()` would cancel every stream of a shared instance.
  const client = new Ollama({ host: params.url, fetch: fetchWithDeadline });

  let emitted = false;
  const outcome: StreamChatOutcome = {
    content: "",
    toolCalls: [],
    promptEvalCount: null,
    evalCount: null,
    doneReason: null,
  };
  try {
    params.signal?.throwIfAborted();
    armWatchdog();
    const stream = await client.chat({
      model: params.model,
      messages: params.messages.map(toOllamaMessage),
      ...(params.tools && params.tools.length > 0 ? { tools: params.tools as unknown as Tool[] } : {}),
      options: { num_ctx: params.numCtx, num_predict: params.numPredict },
      ...(params.keepAlive === undefined ? {} : { keep_alive: params.keepAlive }),
      stream: true,
    });
    let chunks = 0;
    let chars = 0;
    for await (const chunk of stream) {
      armWatchdog();
      chunks += 1;
      const fragment = chunk.message?.content ?? "";
      const calls = chunk.message?.tool_calls ?? [];
      chars += fragment.length + (calls.length > 0 ? JSON.stringify(calls).length : 0);
      if (chunks > maxChunks || chars > maxChars) {
        stop({
          kind: "runaway",
          message: `the reply went past the output cap of ${params.numPredict} tokens (${chunks} chunks, ${chars} characters)`,
        });
        stream.abort();
        break;
      }
      if (fragment !== "") {
        outcome.content += fragment;
        emitted = params.onToken !== undefined;
        params.onToken?.(fragment);
      }
      // Tool calls arrive in a done:false chunk on the template path and on the done chunk on the
      // llama-server path (notes §2): read every chunk.
      for (const call of calls) outcome.toolCalls.push(fromOllamaToolCall(call));
      if (chunk.done) {
        outcome.promptEvalCount = numberOrNull(chunk.prompt_eval_count);
        outcome.evalCount = numberOrNull(chunk.eval_count);
        outcome.doneReason = chunk.done_reason ?? null;
      }
    }
    if (cut) throw new AttemptError(cut, emitted);
    return outcome;
  } catch (error) {
    if (error instanceof AttemptError) throw error;
    if (cut && !(params.signal?.aborted ?? false)) throw new AttemptError(cut, emitted, { cause: error });
    throw new AttemptError(
      classify(error, { stalled, callerAborted: params.signal?.aborted ?? false }),
      emitted,
      {
        cause: error,
      },
    );
  } finally {
    clearTimeout(watchdog);
    clearTimeout(deadline);
    params.signal?.removeEventListener("abort", onCallerAbort);
  }
}

function classify(error: unknown, state: { stalled: boolean; callerAborted: boolean }): AttemptFailure {
  if (state.callerAborted) return { kind: "aborted", message: "request aborted by caller" };
  if (state.stalled) return { kind: "stall", message: errorMessage(error, { cause: true }) };
  if (error instanceof Error && error.name === "ResponseError") {
    const status = (error as Error & { status_code?: unknown }).status_code;
    if (typeof status === "number") return { kind: "http", status, message: error.message };
  }
  // ollama-js throws a plain `Error(line.error)` for a mid-stream error line; undici throws TypeErrors.
  if (error instanceof Error && error.constructor === Error && error.message !== NO_DONE_MESSAGE) {
    return { kind: "stream-error", message: error.message };
  }
  return { kind: "connection", message: errorMessage(error, { cause: true }) };
}

function toOllamaMessage(message: ChatMessage): Message {
  switch (message.role) {
    case "tool":
      // ollama-js's Message type lacks `tool_call_id`; Ollama ≥ 0.12.10 reads it and older servers ignore it.
      return {
        role: "tool",
        content: message.content,
        tool_name: message.tool_name,
        ...(message.tool_call_id === undefined ? {} : { tool_call_id: message.tool_call_id }),
      } as Message;
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls && message.tool_calls.length > 0
          ? { tool_calls: message.tool_calls as Message["tool_calls"] }
          : {}),
      };
    default:
      return { role: message.role, content: message.content };
  }
}

function fromOllamaToolCall(call: unknown): ToolCall {
  const record = isRecord(call) ? call : {};
  const fn = isRecord(record.function) ? record.function : {};
  return {
    ...(typeof record.id === "string" ? { id: record.id } : {}),
    function: {
      ...(typeof fn.index === "number" ? { index: fn.index } : {}),
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: isRecord(fn.arguments) ? fn.arguments : {},
    },
  };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
