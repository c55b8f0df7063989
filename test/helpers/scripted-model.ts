/**
 * An in-process model for core unit tests (like vercel/ai's MockLanguageModel): it implements the core's
 * `ModelClient`, answers from a script (a queue of replies, then a reply function, then a greeting), and
 * records every request. The model layer and end-to-end tests use the HTTP Ollama test server instead.
 *
 *   const model = scriptedModel();
 *   model.script({ toolCalls: [call("list_events", { range: "today" })] }, { content: "Nothing today." });
 *   …
 *   expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", tool_name: "list_events" });
 */
import type {
  AgenticVerdict,
  ChatRequest,
  ChatResult,
  ModelClient,
  ModelRole,
} from "../../src/core/model.ts";

export interface ScriptedCall {
  name: string;
  arguments?: Record<string, unknown>;
  id?: string;
}

export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedCall[];
  /** Thrown by `chat` instead of answering (a `ModelError`, or anything the client could throw). */
  error?: Error;
  promptEvalCount?: number;
  evalCount?: number;
}

export type ReplyFunction = (request: ChatRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedModelOptions {
  /** Reported as the model that answered when a request names none. Default "scripted-model". */
  name?: string;
  /** Answers requests the queue has no reply for. Default: "Hello from <model>." */
  reply?: ReplyFunction;
  /** What `canRunAgentic` says, per model asked for. Default: yes. */
  agentic?: (role: ModelRole, model: string) => Pick<AgenticVerdict, "ok" | "reason">;
}

export interface ScriptedModel extends ModelClient {
  /** Every chat request, in order, as the core sent it. */
  readonly requests: ChatRequest[];
  /** Roles passed to `warm`. */
  readonly warmed: ModelRole[];
  /** Queues replies; they are used before the reply function. */
  script(...replies: ScriptedReply[]): void;
}

export const SCRIPTED_ENDPOINT = "scripted";

export function scriptedModel(options: ScriptedModelOptions = {}): ScriptedModel {
  const name = options.name ?? "scripted-model";
  const queue: ScriptedReply[] = [];
  const requests: ChatRequest[] = [];
  const warmed: ModelRole[] = [];
  let callIds = 0;

  const next = async (request: ChatRequest, index: number): Promise<ScriptedReply> =>
    queue.shift() ??
    (await options.reply?.(request, index)) ?? { content: `Hello from ${request.model ?? name}.` };

  return {
    requests,
    warmed,
    script: (...replies) => {
      queue.push(...replies);
    },
    async chat(request): Promise<ChatResult> {
      const recorded = structuredClone({ ...request, onToken: undefined, signal: undefined });
      requests.push(recorded);
      const reply = await next(recorded, requests.length - 1);
      if (reply.error) throw reply.error;
      const content = reply.content ?? "";
      // Streamed like Ollama: one whitespace-delimited token per fragment.
      for (const fragment of content.match(/\S+\s*/g) ?? []) request.onToken?.(fragment);
      return {
        content,
        // Ollama ≥ 0.12.10 gives every call an id and an index.
        toolCalls: (reply.toolCalls ?? []).map((call, index) => ({
          id: call.id ?? `call_${++callIds}`,
          function: { index, name: call.name, arguments: call.arguments ?? {} },
        })),
        recoveredToolCalls: false,
        endpoint: SCRIPTED_ENDPOINT,
        model: request.model ?? name,
        promptEvalCount: reply.promptEvalCount ?? Math.ceil(JSON.stringify(request.messages).length / 4),
        evalCount: reply.evalCount ?? Math.ceil(content.length / 4),
        durationMs: 0,
        queueWaitMs: 0,
      };
    },
    async canRunAgentic(role, model) {
      const asked = model ?? name;
      return {
        ...(options.agentic?.(role, asked) ?? { ok: true }),
        model: asked,
        endpoint: SCRIPTED_ENDPOINT,
      };
    },
    async warm(role) {
      warmed.push(role);
    },
  };
}

/** A scripted tool call, e.g. `call("list_tasks", { filter: "due_today" })`. */
export const call = (name: string, args: Record<string, unknown> = {}): ScriptedCall => ({
  name,
  arguments: args,
});

/** The text of every message of one request, for "did the model see X" checks. */
export function requestText(request: { messages: ReadonlyArray<{ content?: unknown }> } | undefined): string {
  return (request?.messages ?? [])
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
}

/** The tool names a request offered the model. */
export function offeredTools(request: ChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.function.name);
}
