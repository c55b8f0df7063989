/**
 * Scripted tool-calling habits for the Ollama test server, as reply functions (`models: { m: { reply } }`):
 * - `oneCallPerTurn`: the common 7B habit, one tool call per turn until it has seen what it wants;
 * - `batching`: every call it still wants in one turn (Ollama's parallel calls).
 * Both read the conversation like a model does: a call counts as made when an assistant turn above (its
 * own or the runner's) called that tool with those arguments. With nothing left to look at, or no tools on
 * offer (a corrective turn), they write the prose.
 */
import type {
  RecordedChatMessage,
  RecordedChatRequest,
  ReplyFunction,
  ScriptedToolCall,
} from "./ollama-server.ts";

export type Prose = string | ((request: RecordedChatRequest) => string);

export function oneCallPerTurn(wanted: readonly ScriptedToolCall[], prose: Prose): ReplyFunction {
  return ({ request }) => {
    const next = request.tools?.length ? stillWanted(wanted, request)[0] : undefined;
    return next ? { toolCalls: [next] } : { content: write(prose, request) };
  };
}

export function batching(wanted: readonly ScriptedToolCall[], prose: Prose): ReplyFunction {
  return ({ request }) => {
    const missing = request.tools?.length ? stillWanted(wanted, request) : [];
    return missing.length > 0 ? { toolCalls: missing } : { content: write(prose, request) };
  };
}

/** The wanted calls no assistant turn of the conversation has made yet, in order. */
export function stillWanted(
  wanted: readonly ScriptedToolCall[],
  request: RecordedChatRequest,
): ScriptedToolCall[] {
  const made = request.messages.flatMap(callsOf);
  return wanted.filter(
    (call) =>
      !made.some(
        (done) =>
          done.name === call.name &&
          Object.entries(call.arguments).every(([key, value]) => done.arguments[key] === value),
      ),
  );
}

/** The JSON of the first tool result named `tool`, parsed, for prose written from what the model was shown. */
export function toolResult(request: RecordedChatRequest, tool: string): Record<string, unknown> | undefined {
  const message = request.messages.find((entry) => entry.role === "tool" && entry.tool_name === tool);
  if (typeof message?.content !== "string") return undefined;
  const parsed: unknown = JSON.parse(message.content);
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
}

function callsOf(message: RecordedChatMessage): Array<{ name: string; arguments: Record<string, unknown> }> {
  if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.flatMap((call: unknown) => {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } }).function;
    return typeof fn?.name === "string"
      ? [{ name: fn.name, arguments: (fn.arguments ?? {}) as Record<string, unknown> }]
      : [];
  });
}

function write(prose: Prose, request: RecordedChatRequest): string {
  return typeof prose === "string" ? prose : prose(request);
}
