/**
 * What a briefing must have looked at before it may speak. A model that skips the calendar and then says
 * "a quiet day" has asserted something no receipt backs; the runner makes the missing calls itself.
 */
import type { Receipt, SlotName } from "../domain.ts";

export interface RequiredCall {
  name: string;
  arguments: Record<string, unknown>;
}

const TODAY_TASKS: RequiredCall = { name: "list_tasks", arguments: { filter: "due_today" } };
const OVERDUE_TASKS: RequiredCall = { name: "list_tasks", arguments: { filter: "overdue" } };
const TODAY_EVENTS: RequiredCall = { name: "list_events", arguments: { range: "today" } };
const WEATHER: RequiredCall = { name: "get_weather", arguments: {} };

export const COVERAGE: Record<SlotName, readonly RequiredCall[]> = {
  morning: [TODAY_TASKS, OVERDUE_TASKS, TODAY_EVENTS, WEATHER],
  midday: [TODAY_TASKS, TODAY_EVENTS],
  afternoon: [TODAY_TASKS, TODAY_EVENTS],
  evening: [TODAY_TASKS, { name: "list_events", arguments: { range: "tomorrow" } }],
};

/** Headlines are not required, but a digest without them when feeds exist would be poorer. */
export const DIGEST_EXTRAS: readonly RequiredCall[] = [{ name: "get_rss_items", arguments: { max: 5 } }];

/**
 * Required calls no receipt answers yet, in the order listed. A call that ran and failed counts as looked
 * at: the failure is itself the receipt ("✗ pulled weather"), and repeating it would fail the same way.
 */
export function missingCoverage(
  required: readonly RequiredCall[],
  receipts: readonly Receipt[],
): RequiredCall[] {
  return required.filter((call) => !receipts.some((receipt) => answers(call, receipt)));
}

function answers(call: RequiredCall, receipt: Receipt): boolean {
  if (receipt.toolName !== call.name) return false;
  return Object.entries(call.arguments).every(([key, value]) => receipt.arguments[key] === value);
}
