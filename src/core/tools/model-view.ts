/**
 * What the model is handed of a receipt: the receipt itself, except that a long list is shortened to fit the
 * prompt and marked as shortened ("shown": how many, and a note saying how many more exist). The stored
 * receipt — what the user pages through with /receipts and what the grounding gate checks — keeps every item.
 */
import type { Receipt } from "../domain.ts";

/** How many items of each kind of list the model is handed: the prompt budget lowers these, never raises them. */
export type ListCaps = Readonly<Record<string, number>>;

/**
 * The longest list the model is handed, per kind of item, on a day the prompt has room. Projects, headlines
 * and notes are already bounded by their tools (15, `max` ≤ 30, 20); listing them here lets the budget
 * shorten them too.
 */
export const MODEL_LIST_LIMITS: ListCaps = {
  tasks: 15,
  events: 32,
  projects: 15,
  items: 30,
  notes: 20,
};

/** The lists whose remainder the model is told to state ("and 30 more"): the grounding gate checks those. */
const COUNTED = new Set(["tasks", "events"]);

export function modelView(result: unknown, caps: ListCaps = MODEL_LIST_LIMITS): unknown {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return result;
  const record = result as Record<string, unknown>;
  for (const [key, limit] of Object.entries(caps)) {
    const list = record[key];
    if (!Array.isArray(list) || list.length <= limit) continue;
    const count = typeof record.count === "number" ? Math.max(record.count, list.length) : list.length;
    const more = count - limit;
    return {
      ...record,
      [key]: list.slice(0, limit),
      shown: limit,
      // Short on purpose: every cut list pays for its note, and `count` and `shown` say the rest.
      note: COUNTED.has(key)
        ? `${more} more ${key} not shown: say "and ${more} more"; /receipts lists them all.`
        : `${more} more ${key} not shown; /receipts lists them all.`,
    };
  }
  return result;
}

/** How many items of a list of this kind and length the model was shown. */
export function shownToModel(key: string, length: number, caps: ListCaps = MODEL_LIST_LIMITS): number {
  const limit = caps[key];
  return limit === undefined ? length : Math.min(limit, length);
}

/** The list a receipt returned, by its kind ("tasks", "events"), when it is one the model may see cut. */
export function receiptList(receipt: Receipt): { key: string; list: unknown[]; count: number } | undefined {
  if (receipt.error || typeof receipt.result !== "object" || receipt.result === null) return undefined;
  const result = receipt.result as Record<string, unknown>;
  for (const key of Object.keys(MODEL_LIST_LIMITS)) {
    const list = result[key];
    if (!Array.isArray(list)) continue;
    const count = typeof result.count === "number" ? result.count : list.length;
    return { key, list, count };
  }
  return undefined;
}

/**
 * The receipts as the grounding gate should read them after the prompt budget cut lists below their usual
 * limit: each such list says how many the model was shown (`shown`, as its tool message did), so "and 37
 * more" is checked against what the model saw. Every item stays; receipts the budget did not touch are
 * handed on as they are.
 */
export function withShown(receipts: readonly Receipt[], caps: ListCaps): Receipt[] {
  return receipts.map((receipt) => {
    const found = receiptList(receipt);
    if (!found) return receipt;
    const shown = shownToModel(found.key, found.list.length, caps);
    if (shown === shownToModel(found.key, found.list.length)) return receipt;
    return { ...receipt, result: { ...(receipt.result as Record<string, unknown>), shown } };
  });
}
