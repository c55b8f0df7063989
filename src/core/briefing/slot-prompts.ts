/**
 * The design's slot prompts, with the user's profile and their local date, time and zone. The trigger is a
 * plain instruction sent to the model; it is never stored as if the user had said it.
 */
import { DateTime } from "luxon";
import type { SlotName } from "../domain.ts";
import { COVERAGE, describeCoverage } from "./coverage.ts";

export interface PromptUser {
  name: string;
  timeZone: string;
  profile: string;
}

/** The discipline every prompt that may state facts carries (the design's "Secondary win"). */
export const GROUNDING_RULES = [
  "Call tools to see the data. Never assert facts you didn't learn from a tool.",
  "If a tool returns nothing (no events today, no overdue tasks), say so honestly. Don't fabricate items to fill space.",
  "Write times, dates, temperatures and names exactly as the tool results give them.",
];

export function localContext(user: PromptUser, now: Date): string {
  const local = DateTime.fromJSDate(now, { zone: user.timeZone });
  return `Today is ${local.toFormat("cccc d LLLL yyyy")} (${local.toISODate()}); the local time is ${local.toFormat("HH:mm")} in ${user.timeZone}. All times in tool results are local to this zone.`;
}

function profileBlock(user: PromptUser): string {
  const profile = user.profile.trim();
  return `User profile (for tone and preferences):\n${profile || `(none; the user is called ${user.name})`}`;
}

export interface PromptOptions {
  /** The tool name of the "what changed since the morning" result seeded above the model's first turn. */
  changesTool?: string | undefined;
}

export function briefingSystemPrompt(
  slot: SlotName,
  user: PromptUser,
  now: Date,
  options: PromptOptions = {},
): string {
  const { changesTool } = options;
  const body =
    slot === "morning"
      ? compilationPrompt()
      : slot === "evening"
        ? eveningPrompt(changesTool)
        : checkInPrompt(slot, changesTool);
  return `${body}\n\n${localContext(user, now)}\n\n${profileBlock(user)}`;
}

/**
 * The briefing's rules: the shared discipline, except that the data is already above (receipts first), and
 * that old data is said to be old.
 */
const BRIEFING_RULES = [
  "Never assert facts you didn't learn from a tool result.",
  ...GROUNDING_RULES.slice(1),
  'When a result says its data could not be refreshed, say how old it is (e.g. "as of 06:12").',
  'When a list shows only some of its items ("46 more tasks not shown"), say how many more there are (e.g. "and 46 more").',
];

/** What the runner fetched before the model's first turn, and when the model should call more. */
function receiptsFirst(fetched: string, more: string): string {
  return `The tool results above were fetched for this briefing just now: ${fetched}.
Call a tool only for something they do not cover (${more}); otherwise write straight away.`;
}

function compilationPrompt(): string {
  return `You are the user's personal assistant giving their full morning briefing.
${receiptsFirst(describeCoverage(COVERAGE.morning), "notes, other days, a topic in the news")}
Weave what matters into a warm, natural-sounding summary.

Rules:
${bullets(BRIEFING_RULES)}
- Write flowing prose. No markdown, no headers, no bullet points.
- Aim for 6–10 sentences. Skip topics that have nothing interesting.
- Close on one or two concrete, actionable suggestions.`;
}

function checkInPrompt(slot: SlotName, changesTool: string | undefined): string {
  const changes = changesTool
    ? `- The ${changesTool} result above was computed from the user's data: rely on it for what changed since
  the morning (tasks completed, newly overdue, new or moved events). Say nothing changed only when it
  shows no change.`
    : "- If nothing meaningful has changed, say so briefly — don't invent progress.";
  return `You are the user's personal assistant giving a brief ${slot} check-in.
${receiptsFirst(`${changesTool ? "what changed since the morning, " : ""}${describeCoverage(COVERAGE[slot])}`, "projects, notes, news, other days")}
Focus on progress and what's still unaddressed.

Rules:
${bullets(BRIEFING_RULES)}
${changes}
- 3–5 sentences, natural prose, no markdown.`;
}

function eveningPrompt(changesTool: string | undefined): string {
  const changes = changesTool
    ? `\n- The ${changesTool} result above was computed from the user's data: rely on it for what got done
  and what changed since the morning.`
    : "";
  return `You are the user's personal assistant giving a short evening wrap-up.
${receiptsFirst(`${changesTool ? "what changed since the morning, " : ""}${describeCoverage(COVERAGE.evening)}`, "projects, notes, news, other days")}
Say what got done today, what is still open, and what tomorrow holds.

Rules:
${bullets(BRIEFING_RULES)}
- If the day was quiet, say so briefly — don't invent progress.${changes}
- 3–5 sentences, natural prose, no markdown.`;
}

const SLOT_TITLES: Record<SlotName, string> = {
  morning: "morning briefing",
  midday: "midday check-in",
  afternoon: "afternoon check-in",
  evening: "evening wrap-up",
};

export function slotTitle(slot: SlotName): string {
  return SLOT_TITLES[slot];
}

export function triggerInstruction(slot: SlotName): string {
  return `Generate the ${SLOT_TITLES[slot]}.`;
}

/** The one corrective turn: names each claim no receipt backs. */
export function correctionInstruction(unbackedDescription: string): string {
  return `Some statements in your draft are not backed by any tool result of this run:\n${unbackedDescription}\nRewrite the briefing without them. State only what the tool results above show; where a tool returned nothing, say so.`;
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line}`).join("\n");
}
