import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import {
  designMorning,
  events,
  headlines,
  LONDON,
  receipt,
  STANDUP,
  tasks,
  verdicts,
  weather,
} from "./receipts.ts";

const projects = receipt(
  "list_projects",
  {},
  { projects: [{ id: 7, name: "Q3 budget review", status: "active", summary: "Numbers for the board" }] },
);
const receipts = [...designMorning(), events([STANDUP]), projects];

function items(prose: string, options = LONDON): [string, string, "backed" | "unbacked"][] {
  return verdicts(checkGrounding(prose, receipts, options))
    .filter(([kind]) => kind === "item")
    .map(([, text, verdict]) => [
      text,
      checkGrounding(prose, receipts, options).claims.find((c) => c.text === text)?.normalized ?? "",
      verdict,
    ]);
}

describe("named items", () => {
  it.each([
    ["Start with “Fix briefing hallucinations”.", "Fix briefing hallucinations"],
    ['Start with "Renew passport".', "Renew passport"],
    ["Start with 'Renew passport', it's overdue.", "Renew passport"],
    ["Start with ‘Team standup’.", "Team standup"],
  ])("backs the quoted name in %j", (prose, text) => {
    expect(items(prose).map(([name, , verdict]) => [name, verdict])).toEqual([[text, "backed"]]);
  });

  it.each([
    ["Don't forget “Q2 budget draft”.", "Q2 budget draft"],
    ['Then there\'s "Dentist follow-up".', "Dentist follow-up"],
    ["And 'Board deck' needs love.", "Board deck"],
  ])("flags the quoted name in %j", (prose, text) => {
    expect(items(prose).map(([name, , verdict]) => [name, verdict])).toEqual([[text, "unbacked"]]);
  });

  it("treats a quoted lower-case phrase as a possible scare quote", () => {
    expect(items('It\'s a "clean run" at the desk, then the "renew passport" task.')).toEqual([
      ["renew passport", "renew passport", "backed"],
    ]);
    expect(items("Then the 'board deck' task.")).toEqual([["board deck", "board deck", "unbacked"]]);
  });

  it("backs paraphrases and lower-case names", () => {
    expect(items("The passport renewal is overdue.")).toEqual([
      ["passport renewal", "passport renewal", "backed"],
    ]);
    expect(items("fix briefing hallucinations is due today.")).toEqual([
      ["fix briefing hallucinations", "fix hallucinations", "backed"],
    ]);
    expect(items("Your team standup meeting is in Room 4.")).toEqual([
      ["team standup", "team standup", "backed"],
    ]);
    expect(items("There's a headline about new AI rules in the EU.")).toEqual([
      ["new AI rules in the EU", "ai rules eu", "backed"],
    ]);
  });

  it("flags a name that shares too little with any receipt", () => {
    // "budget" alone is in the Q3 project; "Q2" and "draft" are not.
    expect(items("The Q2 budget draft is due.")).toEqual([
      ["Q2 budget draft", "q2 budget draft", "unbacked"],
    ]);
    expect(items("Your dentist appointment is at the clinic.")).toEqual([
      ["dentist appointment", "dentist", "unbacked"],
    ]);
    expect(items("Then a meeting with Sam Carter.")).toEqual([["Sam Carter", "sam carter", "unbacked"]]);
  });

  it("flags a run of Capitalised Words only when it shares no word with any receipt", () => {
    expect(items("Keep an eye on Storm Bert tonight.")).toEqual([["Storm Bert", "storm bert", "backed"]]);
    // A sentence's first word is capitalised by grammar, so it never starts a name.
    expect(items("Storm Bert is coming.")).toEqual([]);
    expect(items("The BBC says Lisbon Tech Week opens.")).toEqual([["Lisbon Tech", "lisbon tech", "backed"]]);
    expect(items("Remember Acme Corp invoicing.")).toEqual([["Acme Corp", "acme corp", "unbacked"]]);
  });

  it("does not flag greetings, sentence starts, weekdays, months or generic words", () => {
    const prose =
      "Good Morning Alex! Morning, Jamie Lee. Happy Tuesday. Today looks Quiet. On Friday, December 4, the " +
      "Calendar is Clear. Nothing On Your Calendar Today. Partly cloudy in Lisbon. The BBC News feed is calm.";
    const report = checkGrounding(prose, receipts, LONDON);
    expect(report.claims.filter((claim) => claim.kind === "item")).toEqual([]);
  });

  it("reads an indefinite event as a claim only where the prose says it exists", () => {
    const prose =
      "There's a team huddle this afternoon. You have a dentist appointment. Try a focus session, or a pottery class.";
    expect(verdicts(checkGrounding(prose, receipts, LONDON))).toEqual([
      ["item", "team huddle", "unbacked"],
      ["item", "dentist appointment", "unbacked"],
    ]);
  });

  it("does not flag advice built from generic words", () => {
    const prose =
      "Block out the deep work session before your next meeting. Your highest-priority task is the top headline's " +
      "follow-up. The right call is to start early. Save the weather story for later.";
    expect(checkGrounding(prose, receipts, LONDON).claims).toEqual([]);
  });

  it("ignores the user's own name when the runner passes it", () => {
    const prose = "Here's your day, Alex Morgan: Team standup at 9:30.";
    expect(checkGrounding(prose, receipts, LONDON).unbacked.map((claim) => claim.text)).toEqual([
      "Alex Morgan",
    ]);
    expect(checkGrounding(prose, receipts, { ...LONDON, knownNames: ["Alex Morgan"] }).unbacked).toEqual([]);
  });

  it("does not count what the model searched for as evidence that it exists", () => {
    const search = receipt("search_projects", { query: "Q2 budget draft" }, { projects: [] });
    const report = checkGrounding("The Q2 budget draft is due.", [search], LONDON);
    expect(report.unbacked.map((claim) => claim.text)).toEqual(["Q2 budget draft"]);
  });

  it("does not count a failed or refused call as evidence", () => {
    const refused = receipt(
      "search_images",
      { query: "Q2 budget draft" },
      { error: "Q2 budget draft: tool not allowed" },
      true,
    );
    const report = checkGrounding("The Q2 budget draft is due.", [refused, weather()], LONDON);
    expect(report.unbacked.map((claim) => claim.text)).toEqual(["Q2 budget draft"]);
  });

  it("matches names in notes and projects, not just tasks and events", () => {
    const notes = receipt(
      "list_notes",
      {},
      {
        notes: [
          {
            id: 1,
            title: "Ideas for the offsite",
            body: "Book the venue in Porto",
            createdAt: "2026-11-30T18:00:00Z",
          },
        ],
      },
    );
    const report = checkGrounding(
      "Your note about the Porto venue: the offsite task is still open. The Q3 budget review project is active.",
      [notes, projects],
      LONDON,
    );
    expect(verdicts(report)).toEqual([
      ["item", "offsite task", "backed"],
      ["item", "Q3 budget review", "backed"],
    ]);
  });

  it("reads a name before 'is due' or ', overdue' but not 'things coming due'", () => {
    const report = checkGrounding(
      "Rent is due today. Call the plumber, overdue since Monday. A few things coming due soon.",
      [tasks("overdue", [{ title: "Call the plumber", due: "2026-11-30" }])],
      LONDON,
    );
    expect(verdicts(report)).toEqual([
      ["item", "Rent", "unbacked"],
      ["item", "plumber", "backed"],
      ["date", "Monday", "backed"],
    ]);
  });

  it("keeps headline names apart from similar-looking ones", () => {
    const news = [headlines(["EU agrees new AI rules"])];
    expect(verdicts(checkGrounding("There's a story about new AI rules.", news, LONDON))).toEqual([
      ["item", "new AI rules", "backed"],
    ]);
    expect(verdicts(checkGrounding("There's a story about a rail strike in France.", news, LONDON))).toEqual([
      ["item", "rail strike in France", "unbacked"],
    ]);
  });
});
