import type { Receipt } from "../../src/core/domain.ts";

/** The result of the first receipt of `tool` (with `filter`, when given), as the flows read it. */
export function receiptOf(receipts: readonly Receipt[], tool: string, filter?: string) {
  return receipts.find(
    (entry) => entry.toolName === tool && (filter === undefined || entry.arguments.filter === filter),
  )?.result as Record<string, unknown> | undefined;
}
