/**
 * The receipts in a chat answer's context — the followed-up run's, the thread's earlier fresh calls — read
 * back from the stored messages, and whether any of them carries text written outside the user's own
 * records (which makes every change the model proposes wait for a Confirm).
 */
import type { LoggedMessage, Receipt } from "../domain.ts";
import type { ToolRegistry } from "../tools/registry.ts";

/** The tool results among stored messages, as receipts. */
export function receiptsOfMessages(messages: readonly LoggedMessage[]): Receipt[] {
  return messages
    .filter((message) => message.role === "tool")
    .map((message) => ({
      id: message.id,
      runId: message.runId,
      toolName: message.toolName ?? "unknown",
      arguments: isRecord(message.metadata.arguments) ? message.metadata.arguments : {},
      result: parseContent(message.content),
      error: message.metadata.error === true,
      at: message.createdAt,
    }));
}

/**
 * Whether a receipt may hold text a stranger wrote: its tool says so for its result (feed items, events of
 * subscribed calendars). A tool the registry does not know (a runner-made summary such as a check-in's
 * "what changed") is assumed to, since nothing vouches for it; a failed call shows only our own error.
 */
export function carriesOutsideText(tools: ToolRegistry, receipt: Receipt): boolean {
  if (receipt.error) return false;
  const tool = tools.get(receipt.toolName);
  if (!tool) return true;
  return tool.untrusted?.(receipt.result) ?? false;
}

function parseContent(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
