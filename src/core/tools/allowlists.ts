/**
 * Allowlists are data: a tool reaches a run only when its name is written here. A new tool is therefore
 * invisible to briefings until someone adds it on purpose, and the check below refuses to build a briefing
 * set holding anything that is not read-only.
 */
import { createToolSet, type ToolRegistry, type ToolSet } from "./registry.ts";

/** The design's curated briefing tools. Read-only, by construction and by test. */
export const BRIEFING_TOOLS = [
  "list_tasks",
  "list_events",
  "get_weather",
  "get_rss_items",
  "list_projects",
  "search_projects",
  "list_notes",
] as const;

/** What a follow-up may call to refresh stale receipts. */
export const READ_ONLY_CHAT_TOOLS = [...BRIEFING_TOOLS, "search_notes"] as const;

/** Chat in a DM or thread: everything, mutations included (destructive ones wait for confirmation). */
export const CHAT_TOOLS = [
  ...READ_ONLY_CHAT_TOOLS,
  "create_task",
  "update_task",
  "complete_task",
  "delete_task",
  "create_event",
  "update_event",
  "delete_event",
  "create_note",
  "create_project",
  "update_project",
] as const;

export function briefingToolSet(registry: ToolRegistry): ToolSet {
  return readOnlySet(registry, "briefing", BRIEFING_TOOLS);
}

export function readOnlyChatToolSet(registry: ToolRegistry): ToolSet {
  return readOnlySet(registry, "read-only chat", READ_ONLY_CHAT_TOOLS);
}

export function chatToolSet(registry: ToolRegistry): ToolSet {
  return createToolSet(registry, "chat", CHAT_TOOLS);
}

function readOnlySet(registry: ToolRegistry, label: string, names: readonly string[]): ToolSet {
  for (const name of names) {
    const tool = registry.get(name);
    if (tool && !tool.readOnly)
      throw new Error(`allowlist "${label}" must be read-only, but "${name}" changes data`);
  }
  return createToolSet(registry, label, names);
}
