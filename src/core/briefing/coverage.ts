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
const HIGH_PRIORITY_TASKS: RequiredCall = { name: "list_tasks", arguments: { filter: "high_priority" } };
const DONE_TASKS: RequiredCall = { name: "list_tasks", arguments: { filter: "completed_recently" } };
const TODAY_EVENTS: RequiredCall = { name: "list_events", arguments: { range: "today" } };
const TOMORROW_EVENTS: RequiredCall = { name: "list_events", arguments: { range: "tomorrow" } };
const WEATHER: RequiredCall = { name: "get_weather", arguments: {} };
const HEADLINES: RequiredCall = { name: "get_rss_items", arguments: { max: 8 } };
const ACTIVE_PROJECTS: RequiredCall = { name: "list_projects", arguments: { status: "active" } };

/**
 * The slot's coverage calls, which are also what its prompt tells the model it has (so a model that looks
 * at what it is asked to needs no second request): the design's morning compilation (tasks due, overdue
 * and high priority, the calendar, the weather, news themes, project state); check-ins look at today's
 * tasks (due, overdue, high priority), calendar and weather; the evening at what got done, what is still
 * open, tomorrow's calendar and the weather ahead.
 */
export const COVERAGE: Record<SlotName, readonly RequiredCall[]> = {
  morning: [
    TODAY_TASKS,
    OVERDUE_TASKS,
    HIGH_PRIORITY_TASKS,
    TODAY_EVENTS,
    WEATHER,
    HEADLINES,
    ACTIVE_PROJECTS,
  ],
  midday: [TODAY_TASKS, OVERDUE_TASKS, HIGH_PRIORITY_TASKS, TODAY_EVENTS, WEATHER],
  afternoon: [TODAY_TASKS, OVERDUE_TASKS, HIGH_PRIORITY_TASKS, TODAY_EVENTS, WEATHER],
  evening: [DONE_TASKS, TODAY_TASKS, OVERDUE_TASKS, TOMORROW_EVENTS, WEATHER],
};

/** A plain chat question about today starts from these when its thread holds no receipts yet. */
export const CHAT_COVERAGE: readonly RequiredCall[] = [
  TODAY_TASKS,
  OVERDUE_TASKS,
  HIGH_PRIORITY_TASKS,
  TODAY_EVENTS,
  WEATHER,
];

const DESCRIPTIONS: Array<[RequiredCall, string]> = [
  [DONE_TASKS, "tasks completed since yesterday"],
  [TODAY_TASKS, "tasks due today"],
  [OVERDUE_TASKS, "overdue tasks"],
  [HIGH_PRIORITY_TASKS, "high-priority tasks"],
  [TODAY_EVENTS, "today's calendar"],
  [TOMORROW_EVENTS, "tomorrow's calendar"],
  [WEATHER, "the weather (today and the next days)"],
  [HEADLINES, "news headlines"],
  [ACTIVE_PROJECTS, "active projects"],
];

/** The slot's coverage in words, for its prompt: "tasks due today, overdue tasks, …". */
export function describeCoverage(calls: readonly RequiredCall[]): string {
  return calls.map((call) => DESCRIPTIONS.find(([known]) => known === call)?.[1] ?? call.name).join(", ");
}

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
