/**
 * The never-silent fallback: a briefing written by code from the run's receipts when the model is down,
 * failing, or produced nothing usable. Plain, complete, and backed line by line.
 */
import type { Receipt } from "../domain.ts";
import type { ModelErrorCode } from "../model.ts";
import { readSections } from "./receipt-text.ts";

export const MODEL_UNAVAILABLE_NOTE =
  "(The assistant model was unavailable, so this is a plain digest of your data.)";

/** The digest's closing note when the model failed, saying how. */
export function modelFailureNote(code: ModelErrorCode): string {
  switch (code) {
    case "DEADLINE_EXCEEDED":
      return "(The assistant model took too long, so this is a plain digest of your data.)";
    case "OUTPUT_CAPPED":
      return "(The assistant model's reply ran on past its limit, so this is a plain digest of your data.)";
    default:
      return MODEL_UNAVAILABLE_NOTE;
  }
}

export function buildDigest(
  receipts: readonly Receipt[],
  options: { heading: string; note?: string; changes?: string | undefined },
): string {
  const sections = readSections(receipts);
  const lines: string[] = [options.heading];
  if (options.changes) lines.push(options.changes);
  if (sections.events !== undefined) {
    lines.push(
      sections.events.length === 0
        ? "Nothing on your calendar today."
        : `Calendar today: ${sections.events.join("; ")}.`,
    );
  }
  if (sections.tomorrowEvents !== undefined) {
    lines.push(
      sections.tomorrowEvents.length === 0
        ? "Nothing on your calendar tomorrow."
        : `Calendar tomorrow: ${sections.tomorrowEvents.join("; ")}.`,
    );
  }
  if (sections.events === undefined && sections.tomorrowEvents === undefined) {
    lines.push("Your calendar could not be checked.");
  }
  lines.push(...sections.freshness);
  if (sections.dueToday !== undefined) {
    lines.push(
      sections.dueToday.length === 0 ? "No tasks due today." : `Due today: ${sections.dueToday.join("; ")}.`,
    );
  }
  if (sections.overdue !== undefined) {
    lines.push(
      sections.overdue.length === 0 ? "Nothing overdue." : `Overdue: ${sections.overdue.join("; ")}.`,
    );
  }
  if (sections.dueToday === undefined && sections.overdue === undefined)
    lines.push("Your tasks could not be checked.");
  lines.push(
    sections.weather
      ? `Weather: ${sections.weather}.`
      : sections.weatherProblem
        ? `No weather forecast: ${sections.weatherProblem}.`
        : "No weather forecast available.",
  );
  if (sections.headlines !== undefined && sections.headlines.length > 0) {
    lines.push(`Headlines: ${sections.headlines.slice(0, 5).join("; ")}.`);
  }
  if (options.note) lines.push(options.note);
  return lines.join("\n");
}
