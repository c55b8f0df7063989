/**
 * What each receipt says about its kind of data — could it be looked at, and how much was there — for the
 * absence and coverage claims ("no events today", "weather unavailable").
 */
import type { Receipt } from "../domain.ts";

/** The kinds of data a briefing covers, as receipts and absence claims name them. */
export type Family = "events" | "tasks" | "weather" | "news" | "projects" | "notes";

/** What one receipt says about a kind of data: whether it could be looked at, and how much there was. */
export interface Coverage {
  family: Family;
  /** `list_events` range, `list_tasks` filter. */
  scope: string | undefined;
  /** A search's query or a topic: such a receipt covers that topic only. */
  query: string | undefined;
  /** False when the call failed or was refused. */
  ok: boolean;
  /** How many items it listed (its `count`, else its list's length); undefined for weather. */
  count: number | undefined;
}

const FAMILY_OF_TOOL: Record<string, Family> = {
  list_events: "events",
  list_tasks: "tasks",
  get_weather: "weather",
  get_rss_items: "news",
  list_projects: "projects",
  search_projects: "projects",
  list_notes: "notes",
  search_notes: "notes",
};

export function coverageOf(receipt: Receipt): Coverage | undefined {
  const family = FAMILY_OF_TOOL[receipt.toolName];
  if (family === undefined) return undefined;
  const args = receipt.arguments;
  const scope =
    family === "events"
      ? typeof args.range === "string"
        ? args.range
        : "today"
      : family === "tasks"
        ? typeof args.filter === "string"
          ? args.filter
          : "open"
        : undefined;
  const query = [args.query, args.topic].find((value): value is string => typeof value === "string");
  return {
    family,
    scope,
    query,
    ok: !receipt.error,
    count: receipt.error ? undefined : countOf(receipt.result),
  };
}

/** A list result's `count`, else the length of its first list. */
function countOf(result: unknown): number | undefined {
  if (result === null || typeof result !== "object" || Array.isArray(result)) {
    return Array.isArray(result) ? result.length : undefined;
  }
  const record = result as Record<string, unknown>;
  if (typeof record.count === "number") return record.count;
  const list = Object.values(record).find(Array.isArray);
  return list ? list.length : undefined;
}
