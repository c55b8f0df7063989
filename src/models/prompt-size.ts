import type { ChatMessage, ToolSchema } from "../core/model.ts";

/**
 * A tokenizer-free estimate of the prompt Ollama will render: about four characters per token over roles,
 * contents, tool calls and tool definitions. Good enough to notice a prompt cut in half.
 */
export function estimatePromptTokens(
  messages: readonly ChatMessage[],
  tools: readonly ToolSchema[] | undefined,
): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.role.length + message.content.length;
    if (message.role === "assistant" && message.tool_calls)
      chars += JSON.stringify(message.tool_calls).length;
  }
  if (tools && tools.length > 0) chars += JSON.stringify(tools).length;
  return Math.ceil(chars / 4);
}

/** Below this many estimated tokens, template overhead and tokenizer variance swamp the signal. */
export const TRUNCATION_MIN_ESTIMATE = 512;
/** Ollama cuts an overlong prompt to about half of `num_ctx` (#17427), far below this ratio. */
export const TRUNCATION_RATIO = 0.5;

/** True when Ollama evaluated far fewer prompt tokens than were sent: it silently dropped history. */
export function looksTruncated(estimatedTokens: number, promptEvalCount: number | null): boolean {
  if (promptEvalCount === null || estimatedTokens < TRUNCATION_MIN_ESTIMATE) return false;
  return promptEvalCount < estimatedTokens * TRUNCATION_RATIO;
}
