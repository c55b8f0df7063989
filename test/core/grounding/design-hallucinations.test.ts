import { describe, expect, it } from "vitest";
import {
  checkGrounding,
  describeUnbacked,
  removeUnbackedSentences,
  splitSentences,
} from "../../../src/core/grounding/index.ts";
import {
  designMorning,
  events,
  firstKindClaims,
  LONDON,
  STANDUP,
  tasks,
  verdicts,
  weather,
} from "./receipts.ts";

// The production hallucinations from the design doc's "Problem" section, against receipts that don't back them.
describe("the design doc's hallucinations", () => {
  const receipts = designMorning();

  it("catches the dentist appointment that does not exist and keeps the true sentences", () => {
    const prose =
      "Good morning! Partly cloudy in Lisbon, 8 to 16 degrees. Your dentist appointment is still in progress. " +
      "Fix briefing hallucinations is due today.";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(firstKindClaims(report)).toEqual([
      { kind: "temperature", text: "8", sentenceIndex: 1, normalized: "8" },
      { kind: "temperature", text: "16 degrees", sentenceIndex: 1, normalized: "16" },
      { kind: "item", text: "dentist appointment", sentenceIndex: 2, normalized: "dentist" },
      {
        kind: "item",
        text: "Fix briefing hallucinations",
        sentenceIndex: 3,
        normalized: "fix hallucinations",
      },
    ]);
    expect(report.unbacked.map((claim) => claim.text)).toEqual(["dentist appointment"]);
    expect(removeUnbackedSentences(prose, report)).toBe(
      "Good morning! Partly cloudy in Lisbon, 8 to 16 degrees. Fix briefing hallucinations is due today.",
    );
  });

  it("catches the quick meeting at 10:30 AM on an empty calendar", () => {
    const prose = "Morning! You have a quick meeting at 10:30 AM. Renew passport is overdue.";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(firstKindClaims(report)).toEqual([
      { kind: "time", text: "10:30 AM", sentenceIndex: 1, normalized: "10:30" },
      { kind: "item", text: "Renew passport", sentenceIndex: 2, normalized: "renew passport" },
    ]);
    expect(report.unbacked).toEqual([report.claims[0]]);
    expect(removeUnbackedSentences(prose, report)).toBe("Morning! Renew passport is overdue.");
  });

  it("catches the team huddle at 2:30 PM and the Q2 budget draft due by Friday", () => {
    const prose =
      "Quick midday check-in: there's a team huddle at 2:30 PM, and the Q2 budget draft due by Friday. " +
      "The passport renewal is still overdue. Highs of 16 this afternoon.";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(verdicts(report)).toEqual([
      ["item", "team huddle", "unbacked"],
      ["time", "2:30 PM", "unbacked"],
      ["item", "Q2 budget draft", "unbacked"],
      ["date", "Friday", "unbacked"],
      ["item", "passport renewal", "backed"],
      ["temperature", "Highs of 16", "backed"],
    ]);
    expect(splitSentences(removeUnbackedSentences(prose, report))).toEqual([
      "The passport renewal is still overdue.",
      "Highs of 16 this afternoon.",
    ]);
  });

  it("tells the model exactly which claims lack a receipt", () => {
    const prose = "You have a meeting at 10:30 today. Don't forget the “Q2 budget draft”.";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(describeUnbacked(report)).toBe(
      'These claims have no receipt from this run: "10:30" (no event or task at 10:30); "Q2 budget draft" ' +
        "(no task, event, project or headline by that name). Rewrite the briefing without them; say plainly " +
        "when something is empty.",
    );
  });

  it("finds nothing to flag in the design doc's own grounded briefing", () => {
    const prose =
      "Morning! Partly cloudy today, 8 to 16 — nothing on the calendar so it's a clean run at the desk. " +
      "Two things to keep in mind: the passport renewal and calling the plumber are both overdue. " +
      "Fix briefing hallucinations is due today, so start there.";
    const report = checkGrounding(prose, receipts, LONDON);

    expect(verdicts(report)).toEqual([
      ["temperature", "8", "backed"],
      ["temperature", "16", "backed"],
      // The empty list_events(today) receipt is what backs "nothing on the calendar".
      ["absence", "nothing on the calendar", "backed"],
      ["item", "Fix briefing hallucinations", "backed"],
    ]);
    expect(report.unbacked).toEqual([]);
    expect(describeUnbacked(report)).toBe("");
  });

  it("backs an honest empty calendar by its empty receipts, each absence checked against its own list", () => {
    const prose =
      "Nothing on your calendar today. No overdue tasks either, and nothing is due. Enjoy the quiet morning!";
    const report = checkGrounding(
      prose,
      [events([]), tasks("overdue", []), tasks("due_today", []), weather()],
      LONDON,
    );

    expect(report.claims.map((claim) => [claim.kind, claim.normalized])).toEqual([
      ["absence", "empty:events:today"],
      ["absence", "empty:tasks:overdue"],
      ["absence", "empty:tasks:due_today"],
    ]);
    expect(report.unbacked).toEqual([]);
    expect(removeUnbackedSentences(prose, report)).toBe(prose);
  });

  it("leaves nothing unbacked once the flagged sentences are gone", () => {
    const prose =
      "Your dentist appointment is still in progress. Team standup is at 9:30 in Room 4. " +
      "There's a team huddle at 2:30 PM. The Q2 budget draft is due Friday. Lisbon stays partly cloudy, 8 to 16.";
    const withStandup = [...receipts, events([STANDUP])];
    const report = checkGrounding(prose, withStandup, LONDON);
    const trimmed = removeUnbackedSentences(prose, report);

    expect(trimmed).toBe("Team standup is at 9:30 in Room 4. Lisbon stays partly cloudy, 8 to 16.");
    expect(checkGrounding(trimmed, withStandup, LONDON).unbacked).toEqual([]);
  });
});
