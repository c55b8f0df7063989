import type { StatusCheck } from "../assistant.ts";
import type { Receipt } from "../domain.ts";

/** Tool → what the person reads; several tools can share a check ("looked at tasks"). */
const CHECKS: ReadonlyArray<{ label: string; tools: readonly string[] }> = [
  { label: "checked calendar", tools: ["list_events"] },
  { label: "looked at tasks", tools: ["list_tasks"] },
  { label: "pulled weather", tools: ["get_weather"] },
  { label: "read the news", tools: ["get_rss_items"] },
  { label: "reviewed projects", tools: ["list_projects", "search_projects"] },
  { label: "read notes", tools: ["list_notes", "search_notes"] },
];

/** One check per kind of data the run touched; ✓ when at least one call of that kind succeeded. */
export function statusChecks(receipts: readonly Receipt[]): StatusCheck[] {
  const checks: StatusCheck[] = [];
  for (const check of CHECKS) {
    const calls = receipts.filter((receipt) => check.tools.includes(receipt.toolName));
    if (calls.length === 0) continue;
    checks.push({ label: check.label, ok: calls.some((receipt) => !receipt.error) });
  }
  return checks;
}

/** "✓ checked calendar · ✓ looked at tasks · ✗ pulled weather" */
export function statusRow(checks: readonly StatusCheck[]): string {
  return checks.map((check) => `${check.ok ? "✓" : "✗"} ${check.label}`).join(" · ");
}
