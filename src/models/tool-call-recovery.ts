import type { ToolCall } from "../core/model.ts";

/**
 * Small models often write a tool call as JSON text in `content` instead of `tool_calls` (Ollama #13519,
 * #12174): bare `{"name", "arguments"|"parameters"}`, an array of them, inside `<tool_call>` tags or a
 * ```json fence. Ollama itself drops calls to names it was not offered (#11381); so do we, so that prose
 * that merely looks like JSON is never executed.
 */
export function recoverToolCalls(
  content: string,
  offeredNames: ReadonlySet<string>,
): { toolCalls: ToolCall[]; content: string } | undefined {
  if (offeredNames.size === 0) return undefined;
  const { candidates, rest } = extractCandidates(content);
  const toolCalls: ToolCall[] = [];
  for (const candidate of candidates) {
    for (const item of Array.isArray(candidate) ? candidate : [candidate]) {
      const call = toToolCall(item);
      if (call && offeredNames.has(call.name)) {
        toolCalls.push({ function: { index: toolCalls.length, name: call.name, arguments: call.arguments } });
      }
    }
  }
  if (toolCalls.length === 0) return undefined;
  return { toolCalls, content: rest.trim() };
}

function extractCandidates(content: string): { candidates: unknown[]; rest: string } {
  const tagged = [...content.matchAll(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g)];
  if (tagged.length > 0) {
    return {
      candidates: tagged.map((match) => parseJson(stripFence(match[1] ?? ""))).filter(isDefined),
      rest: content.replace(/<tool_call>[\s\S]*?(?:<\/tool_call>|$)/g, ""),
    };
  }
  const fenced = [...content.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/g)];
  if (fenced.length > 0) {
    return {
      candidates: fenced.map((match) => parseJson(match[1] ?? "")).filter(isDefined),
      rest: content.replace(/```(?:json)?\s*\n?[\s\S]*?```/g, ""),
    };
  }
  // Like Ollama's `{`/`[` tag: only a reply that *is* JSON counts, not JSON quoted inside prose.
  const parsed = parseJson(content);
  return parsed === undefined ? { candidates: [], rest: content } : { candidates: [parsed], rest: "" };
}

function toToolCall(value: unknown): { name: string; arguments: Record<string, unknown> } | undefined {
  if (!isRecord(value)) return undefined;
  // Some models copy the OpenAI shape `{"type":"function","function":{...}}`.
  const inner = isRecord(value.function) ? value.function : value;
  if (typeof inner.name !== "string") return undefined;
  let args: unknown = inner.arguments ?? inner.parameters ?? {};
  if (typeof args === "string") args = parseJson(args) ?? undefined;
  if (!isRecord(args)) return undefined;
  return { name: inner.name, arguments: args };
}

function stripFence(text: string): string {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/.exec(text);
  return fenced ? (fenced[1] ?? "") : text;
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
