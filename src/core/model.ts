/**
 * The model port: what the briefing runner and chat need from a language model.
 * The Ollama implementation lives in `src/models/`; the core only knows this shape.
 */

import type { ToolCall } from "./domain.ts";
import { BriefbotError } from "./errors.ts";

export type { ToolCall } from "./domain.ts";

/** Which GPU-pinned route a piece of work runs on. */
export type ModelRole = "interactive" | "briefing" | "background";

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; tool_calls?: ToolCall[] }
  | { role: "tool"; content: string; tool_name: string; tool_call_id?: string };

/** A tool as the model sees it (Ollama / OpenAI function shape). */
export interface ToolSchema {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  };
}

export interface ChatRequest {
  role: ModelRole;
  /** Overrides the route's model (a user's preferred model); endpoint, queue, fallback and num_ctx stay the route's. */
  model?: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  /** Called with each streamed content fragment, for visible progress on platforms. */
  onToken?: (fragment: string) => void;
  signal?: AbortSignal;
  /**
   * What is left of the run's time budget: the request (queue wait included) fails with
   * `DEADLINE_EXCEEDED` when it takes longer. The model layer's own per-turn deadline applies as well.
   */
  timeoutMs?: number;
}

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  /** True when at least one tool call was recovered from JSON written in `content`. */
  recoveredToolCalls: boolean;
  endpoint: string;
  model: string;
  promptEvalCount: number | null;
  evalCount: number | null;
  /** Wall time of the request including queue wait, in milliseconds. */
  durationMs: number;
  queueWaitMs: number;
}

export interface AgenticVerdict {
  ok: boolean;
  /** Why agentic mode is not possible (tool-less model, too small, unreachable). */
  reason?: string;
  model: string;
  endpoint: string;
}

export interface ModelClient {
  chat(request: ChatRequest): Promise<ChatResult>;
  /** `model` overrides the route's model, as in `ChatRequest`. */
  canRunAgentic(role: ModelRole, model?: string): Promise<AgenticVerdict>;
  warm(role: ModelRole): Promise<void>;
}

/**
 * The same client with every request and capability check made for `model` (a user's preferred model);
 * the client itself when no model is given, so callers can pass `user.preferredModel` as it is.
 */
export function withPreferredModel(client: ModelClient, model: string | null | undefined): ModelClient {
  const preferred = model?.trim();
  if (!preferred) return client;
  return {
    chat: (request) => client.chat({ ...request, model: request.model ?? preferred }),
    canRunAgentic: (role, override) => client.canRunAgentic(role, override ?? preferred),
    warm: (role) => client.warm(role),
  };
}

export type ModelErrorCode =
  /** Every endpoint of the route failed (connection refused, 5xx after retries, stalled). */
  | "MODEL_UNAVAILABLE"
  /** The server refused the request (400/404): retrying will not help. */
  | "MODEL_REJECTED"
  /** The prompt was cut by the server's context window; the answer would be blind. */
  | "CONTEXT_TRUNCATED"
  /** The turn's or the run's deadline passed before the model finished. */
  | "DEADLINE_EXCEEDED"
  /** The reply ran past the output cap (`num_predict`): a stream that does not end is cut. */
  | "OUTPUT_CAPPED";

export class ModelError extends BriefbotError<ModelErrorCode> {
  constructor(message: string, code: ModelErrorCode, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
