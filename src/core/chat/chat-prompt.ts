/**
 * The chat system prompts. Both carry the briefing's grounding discipline (the design's "Secondary win"):
 * never assert a fact not learned from a tool, and say an empty result honestly.
 */
import { DateTime } from "luxon";
import { GROUNDING_RULES, localContext, type PromptUser, slotTitle } from "../briefing/slot-prompts.ts";
import type { BriefingRun } from "../domain.ts";

const CHANGE_RULES = [
  "When the user asks for a change (add a task, move an event, save a note), call the tool; say what changed only after the tool result confirms it.",
  "Deleting needs the user's confirmation: the tool answers `waiting_for_confirmation`. Tell the user it is waiting for their Confirm; never say it is done.",
  "Reply briefly, in plain text without markdown.",
];

export function chatSystemPrompt(user: PromptUser, now: Date): string {
  return `You are ${user.name}'s personal assistant. You can read and change their tasks, calendar, notes and projects with tools.

Rules:
${bullets([...GROUNDING_RULES, ...CHANGE_RULES])}

${localContext(user, now)}

User profile (for tone and preferences):
${user.profile.trim() || "(none)"}`;
}

export interface FollowUpFrame {
  run: Pick<BriefingRun, "id" | "slot" | "localDate">;
  /** When the receipts were fetched (the latest of them). */
  asOf: Date | undefined;
  /** Read-only tools are offered again (receipts stale or the question is about now). */
  refreshAllowed: boolean;
  archived: boolean;
  retentionDays: number;
}

export function followUpSystemPrompt(user: PromptUser, now: Date, frame: FollowUpFrame): string {
  const title = slotTitle(frame.run.slot);
  const lines: string[] = [];
  if (frame.archived) {
    lines.push(
      `This thread follows up on your ${title} of ${frame.run.localDate}. That briefing is older than ${frame.retentionDays} days; its tool results are archived and no longer available to you. Use tools to look at current data, and say that the old briefing's details are archived.`,
    );
  } else {
    const asOf = frame.asOf
      ? DateTime.fromJSDate(frame.asOf, { zone: user.timeZone }).toFormat("HH:mm")
      : "unknown";
    const minutes = frame.asOf
      ? Math.max(0, Math.round((now.getTime() - frame.asOf.getTime()) / 60_000))
      : undefined;
    lines.push(
      `This thread follows up on your ${title} of ${frame.run.localDate}. The tool calls and results below are that briefing's receipts, fetched at ${asOf}${minutes !== undefined ? ` (${minutes} minutes ago)` : ""}, followed by the briefing you wrote from them.`,
      "Answer from those receipts. If they do not show something, say the briefing did not see it; never fill the gap from memory or from the briefing's wording alone.",
      frame.refreshAllowed
        ? "The receipts may be out of date or the user asks about now: you may call the read-only tools again for current data, and say the time it is as of."
        : "The receipts are recent: answer from them rather than fetching again.",
    );
  }
  return `${chatSystemPrompt(user, now)}\n\n${lines.join("\n")}`;
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line}`).join("\n");
}
