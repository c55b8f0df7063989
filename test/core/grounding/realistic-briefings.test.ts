import { describe, expect, it } from "vitest";
import { checkGrounding, removeUnbackedSentences } from "../../../src/core/grounding/index.ts";
import { designMorning, events, LONDON, receipt, STANDUP, verdicts } from "./receipts.ts";

// Long, true drafts in the style a model writes: a false alarm here would delete a true sentence.
const receipts = [
  ...designMorning(),
  events([STANDUP]),
  receipt(
    "list_projects",
    {},
    {
      projects: [
        { id: 8, name: "Kitchen renovation", status: "paused", summary: "Waiting on quotes" },
        { id: 7, name: "Briefbot", status: "active", summary: "Grounding work in progress" },
      ],
    },
  ),
  receipt(
    "changes_since_morning",
    {},
    {
      since: "2026-12-01T07:00:00Z",
      completed: [{ title: "Renew passport" }],
      added: [{ title: "Email Sarah about the quotes" }],
    },
  ),
];

describe("true briefings", () => {
  it("raise no false alarm in a full morning briefing", () => {
    const prose =
      "Good morning! It's a partly cloudy day in Lisbon, with temperatures between 8 and 16°C and just a 20% chance " +
      "of rain, so a light jacket should do. Your calendar is light: just the Team standup at 9:30 in Room 4, which " +
      "wraps up by 10. On the task front, Fix briefing hallucinations is due today, while Renew passport and Call " +
      "the plumber are both overdue — the passport has been waiting since Saturday. In the news, the BBC reports " +
      "that the EU has agreed new AI rules, and Storm Bert heads for Wales. I'd suggest knocking out the passport " +
      "renewal right after standup, then spending the afternoon on the hallucination fix. Have a great Tuesday!";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(report.unbacked).toEqual([]);
    expect(report.claims.length).toBeGreaterThanOrEqual(10);
    expect(removeUnbackedSentences(prose, report)).toBe(prose);
  });

  it("raise no false alarm in a midday check-in built on changes since the morning", () => {
    const prose =
      "Quick midday check-in: you've ticked off Renew passport since this morning — nice work. One new task " +
      "landed: email Sarah about the kitchen quotes. Fix briefing hallucinations is still due today, and Call the " +
      "plumber remains overdue. The Kitchen Renovation project is still paused while you wait on quotes. Nothing " +
      "new on the calendar after the standup. Good luck with the afternoon, Alex!";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(verdicts(report)).toEqual([
      ["item", "Fix briefing hallucinations", "backed"],
      ["item", "plumber", "backed"],
      ["item", "Kitchen Renovation project", "backed"],
    ]);
  });

  it("removes only the invented sentence from an otherwise true check-in", () => {
    const prose =
      "Renew passport is done. You also have a call with Priya at 3pm about the Kitchen renovation. " +
      "Fix briefing hallucinations is still due today.";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(report.unbacked.map((claim) => claim.text)).toEqual(["Priya", "3pm"]);
    expect(removeUnbackedSentences(prose, report)).toBe(
      "Renew passport is done. Fix briefing hallucinations is still due today.",
    );
  });
});
