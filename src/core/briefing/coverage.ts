/**
 * Receipts first: what a briefing looks at before the model speaks. The runner makes these calls itself,
 * through the same dispatch as the model's, and hands the results to the model as its first tool turn; a
 * model that then says "a quiet day" is reading a receipt, not guessing, and needs no round trip to look.
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
const HEADLINES: RequiredCall = { name: "get_rss_items", arguments: { max: 8 } };
const ACTIVE_PROJECTS: RequiredCall = { name: "list_projects", arguments: { status: "active" } };

/**
 * The slot's coverage calls: the design's morning compilation (tasks due and overdue, the calendar, the
 * weather, news themes, project state); check-ins look at today's tasks and calendar; the evening at today's
 * tasks and tomorrow.
 */
export const COVERAGE: Record<SlotName, readonly RequiredCall[]> = {
  morning: [TODAY_TASKS, OVERDUE_TASKS, TODAY_EVENTS, WEATHER, HEADLINES, ACTIVE_PROJECTS],
  midday: [TODAY_TASKS, TODAY_EVENTS],
  afternoon: [TODAY_TASKS, TODAY_EVENTS],
  evening: [TODAY_TASKS, { name: "list_events", arguments: { range: "tomorrow" } }],
};

/** Headlines are not a check-in's coverage, but a digest without them when feeds exist would be poorer. */
export const DIGEST_EXTRAS: readonly RequiredCall[] = [HEADLINES];

/**
 * Calls no receipt answers yet, in the order listed. A call that ran and failed counts as looked at: the
 * failure is itself the receipt ("✗ pulled weather"), and repeating it would fail the same way.
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
