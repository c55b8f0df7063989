/**
 * Legacy mode: gather first, synthesise once. The design's bug is fixed here: every section is written,
 * and an empty one says "none", so silence can never read as "make something up".
 */
import type { Receipt, SlotName } from "../domain.ts";
import { COVERAGE, type RequiredCall } from "./coverage.ts";
import { readSections } from "./receipt-text.ts";
import { GROUNDING_RULES, localContext, type PromptUser, slotTitle } from "./slot-prompts.ts";

/** What legacy mode reads before its single model call; the coverage calls (made first, as receipts) lead. */
export function legacyCalls(slot: SlotName): RequiredCall[] {
  const extras: RequiredCall[] = [
    { name: "list_tasks", arguments: { filter: "high_priority" } },
    { name: "get_rss_items", arguments: { max: 8 } },
    { name: "list_projects", arguments: { status: "active" } },
    { name: "list_notes", arguments: { recent_days: 1 } },
  ];
  const required = COVERAGE[slot];
  const all = [...required, ...(slot === "morning" ? [] : COVERAGE.morning), ...extras];
  return all.filter(
    (call, index) =>
      all.findIndex((other) => other.name === call.name && sameArguments(other.arguments, call.arguments)) ===
      index,
  );
}

export function legacySystemPrompt(slot: SlotName, user: PromptUser, now: Date): string {
  return `You are the user's personal assistant writing their ${slotTitle(slot)} from the data below.

Rules:
${GROUNDING_RULES.slice(1)
  .map((rule) => `- ${rule}`)
  .join("\n")}
- Mention only what the data shows. A section marked "none" has nothing in it: say so or skip it; never fill it.
- Write flowing prose. No markdown, no headers, no bullet points. ${slot === "morning" ? "6–10" : "3–5"} sentences.

${localContext(user, now)}

User profile (for tone and preferences):
${user.profile.trim() || "(none)"}`;
}

/** The data block: every section present, "none" when the tool found nothing, "unavailable" when it failed. */
export function legacyDataPrompt(
  receipts: readonly Receipt[],
  localDate: string,
  /** A check-in's "what changed since the morning", computed by code. */
  changes?: string,
): string {
  const sections = readSections(receipts);
  const section = (title: string, lines: string[] | undefined) =>
    `${title}: ${lines === undefined ? "unavailable" : lines.length === 0 ? "none" : `\n${lines.map((line) => `- ${line}`).join("\n")}`}`;
  return [
    `Date: ${localDate}`,
    ...(changes === undefined ? [] : [`CHANGES SINCE THE MORNING: ${changes}`]),
    `WEATHER: ${sections.weather ?? `unavailable${sections.weatherProblem ? ` (${sections.weatherProblem})` : ""}`}`,
    section("TODAY'S EVENTS", sections.events),
    ...(sections.tomorrowEvents === undefined ? [] : [section("TOMORROW'S EVENTS", sections.tomorrowEvents)]),
    section("DUE TODAY", sections.dueToday),
    section("OVERDUE", sections.overdue),
    section("HIGH PRIORITY", sections.highPriority),
    section("ACTIVE PROJECTS", sections.projects),
    section("RECENT NOTES", sections.notes),
    section("NEWS", sections.headlines),
    ...sections.freshness.map((line) => `NOTE: ${line}`),
  ].join("\n");
}

function sameArguments(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
