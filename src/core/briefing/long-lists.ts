/**
 * A briefing whose model saw a shortened list must say how many more there are. When the delivered prose
 * states neither the list's true count nor the remainder, the runner adds one sentence that does; the gate
 * reads that sentence like any other ("and 46 more" is a count claim).
 */
import type { Receipt } from "../domain.ts";
import { type ListCaps, MODEL_LIST_LIMITS } from "../tools/model-view.ts";

const LABELS: Record<string, string> = {
  due_today: "tasks due today",
  overdue: "overdue tasks",
  high_priority: "high-priority tasks",
  open: "open tasks",
  completed_recently: "tasks completed recently",
  today: "events today",
  tomorrow: "events tomorrow",
  upcoming: "upcoming events",
};

/** `caps`: how far each kind of list was shown to the model (the prompt budget may have cut it short). */
export function remainderSentences(
  prose: string,
  receipts: readonly Receipt[],
  caps: ListCaps = MODEL_LIST_LIMITS,
): string[] {
  const sentences: string[] = [];
  for (const receipt of receipts) {
    if (receipt.error || typeof receipt.result !== "object" || receipt.result === null) continue;
    const result = receipt.result as Record<string, unknown>;
    const key =
      receipt.toolName === "list_tasks" ? "tasks" : receipt.toolName === "list_events" ? "events" : "";
    const limit = caps[key];
    const list = result[key];
    if (limit === undefined || !Array.isArray(list)) continue;
    const count = typeof result.count === "number" ? result.count : list.length;
    if (count <= limit) continue;
    const remainder = count - limit;
    if (new RegExp(String.raw`\b(?:${count}|${remainder})\b`).test(prose)) continue;
    const scope = String(receipt.arguments.filter ?? receipt.arguments.range ?? "");
    const label = LABELS[scope] ?? key;
    sentences.push(
      `That is ${limit} of ${count} ${label}, and ${remainder} more ${key}; /receipts lists every one.`,
    );
  }
  return sentences;
}
