/**
 * What the model is handed of a receipt: the receipt itself, except that a long list is shortened to fit the
 * prompt and marked as shortened ("shown": how many, and a note saying how many more exist). The stored
 * receipt — what the user pages through with /receipts and what the grounding gate checks — keeps every item.
 */

/** The longest list the model is handed, per kind of item. */
export const MODEL_LIST_LIMITS: Readonly<Record<string, number>> = {
  tasks: 15,
  events: 32,
};

export function modelView(result: unknown): unknown {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return result;
  const record = result as Record<string, unknown>;
  for (const [key, limit] of Object.entries(MODEL_LIST_LIMITS)) {
    const list = record[key];
    if (!Array.isArray(list) || list.length <= limit) continue;
    const count = typeof record.count === "number" ? record.count : list.length;
    return {
      ...record,
      [key]: list.slice(0, limit),
      shown: limit,
      note: `Only the first ${limit} of ${count} ${key} are shown here: ${count - limit} more ${key} not shown. Say how many more there are (e.g. "and ${count - limit} more"); the user's receipts list them all.`,
    };
  }
  return result;
}

/** How many items of a list of this kind and length the model was shown. */
export function shownToModel(key: string, length: number): number {
  const limit = MODEL_LIST_LIMITS[key];
  return limit === undefined ? length : Math.min(limit, length);
}
