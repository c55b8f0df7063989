/** Stored messages back into model messages, keeping tool calls paired with their results. */
import type { LoggedMessage } from "../domain.ts";
import type { ChatMessage } from "../model.ts";

export function toChatMessages(stored: readonly LoggedMessage[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  let callIds = new Set<string>();
  for (const message of stored) {
    if (message.role === "user") {
      result.push({ role: "user", content: message.content });
    } else if (message.role === "assistant") {
      if (message.toolCalls && message.toolCalls.length > 0) {
        callIds = new Set(message.toolCalls.flatMap((call) => (call.id ? [call.id] : [])));
        result.push({ role: "assistant", content: message.content, tool_calls: message.toolCalls });
      } else if (message.content.trim()) {
        result.push({ role: "assistant", content: message.content });
      }
    } else if (message.role === "tool") {
      // A result whose call fell outside the history window would dangle and confuse the model.
      const previous = result.at(-1);
      const inToolBlock =
        previous?.role === "tool" || (previous?.role === "assistant" && previous.tool_calls !== undefined);
      if (!inToolBlock || (message.toolCallId && callIds.size > 0 && !callIds.has(message.toolCallId)))
        continue;
      result.push({
        role: "tool",
        // Whole, as stored: each request shows a long list only as far as its prompt budget allows.
        content: message.content,
        tool_name: message.toolName ?? "unknown",
        ...(message.toolCallId ? { tool_call_id: message.toolCallId } : {}),
      });
    }
  }
  return result;
}
/**
 * The history without an unanswered attempt at `question` at its end — the question and the tool steps
 * after it, with no reply — which is what a process stopped mid-answer leaves when the one taking the
 * message over asks again. Kept, the question would be stored twice and shown to the model twice.
 */
export function withoutUnansweredAttempt(
  history: readonly LoggedMessage[],
  question: string,
): { history: readonly LoggedMessage[]; repeated: boolean } {
  const asked = history.findLastIndex((message) => message.role === "user");
  const unanswered = history.slice(asked + 1).every(isToolStep);
  if (asked < 0 || history[asked]?.content !== question || !unanswered) return { history, repeated: false };
  return { history: history.slice(0, asked), repeated: true };
}

/** A tool call the model made, or its result: a step of an attempt, not a reply. */
function isToolStep(message: LoggedMessage): boolean {
  return message.role === "tool" || (message.role === "assistant" && (message.toolCalls?.length ?? 0) > 0);
}
