/**
 * The last resort of the grounding gate in chat: when nothing backed is left of the model's answer, the
 * reply says what the receipts in its context hold, in plain lines written by code.
 */
import { readSections } from "../briefing/receipt-text.ts";
import type { Receipt } from "../domain.ts";

export function plainAnswer(receipts: readonly Receipt[]): string {
  const sections = readSections(receipts);
  const lines: string[] = [];
  const list = (label: string, items: string[] | undefined, none: string) => {
    if (items === undefined) return;
    lines.push(items.length === 0 ? none : `${label}: ${items.join("; ")}.`);
  };
  list("Calendar today", sections.events, "Nothing on your calendar today.");
  list("Calendar tomorrow", sections.tomorrowEvents, "Nothing on your calendar tomorrow.");
  list("Due today", sections.dueToday, "No tasks due today.");
  list("Overdue", sections.overdue, "Nothing overdue.");
  list("High priority", sections.highPriority, "No high-priority tasks.");
  if (sections.weather) lines.push(`Weather: ${sections.weather}.`);
  else if (sections.weatherProblem) lines.push(`No weather forecast: ${sections.weatherProblem}.`);
  if (sections.headlines && sections.headlines.length > 0)
    lines.push(`Headlines: ${sections.headlines.slice(0, 5).join("; ")}.`);
  list("Projects", sections.projects, "No projects.");
  list("Notes", sections.notes, "No notes.");
  if (lines.length === 0) {
    return "I could not find that in your data, so I won't guess. Ask me to look at your calendar, tasks, weather, news, projects or notes.";
  }
  return `I can only see this in your data:\n${lines.join("\n")}`;
}
