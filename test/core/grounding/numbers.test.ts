import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import { firstKindClaims, headlines, LONDON, receipt, tasks, verdicts, weather } from "./receipts.ts";

const overdueTwo = tasks("overdue", [{ title: "Renew passport" }, { title: "Call the plumber" }]);
const overdueThree = tasks("overdue", [
  { title: "Renew passport" },
  { title: "Call the plumber" },
  { title: "Pay rent" },
]);
const dueTodayTwo = tasks("due_today", [{ title: "Fix briefing hallucinations" }, { title: "Book flights" }]);

describe("temperatures", () => {
  it.each([
    [
      "Partly cloudy, 8 to 16 degrees.",
      [
        ["temperature", "8", "backed"],
        ["temperature", "16 degrees", "backed"],
      ],
    ],
    [
      "Expect 8–16°C.",
      [
        ["temperature", "8", "backed"],
        ["temperature", "16°C", "backed"],
      ],
    ],
    ["It will reach 16°C.", [["temperature", "reach 16°C", "backed"]]],
    [
      "A high of 16.1 and a low of 8.",
      [
        ["temperature", "high of 16.1", "backed"],
        ["temperature", "low of 8", "backed"],
      ],
    ],
    ["Right now it's 11 degrees.", [["temperature", "11 degrees", "backed"]]],
    [
      "Sunny spells, 8 to 16.",
      [
        ["temperature", "8", "backed"],
        ["temperature", "16", "backed"],
      ],
    ],
    [
      "A cold one: 2 to 5 degrees.",
      [
        ["temperature", "2", "unbacked"],
        ["temperature", "5 degrees", "unbacked"],
      ],
    ],
    ["Warm, with a high of 21.", [["temperature", "high of 21", "unbacked"]]],
    ["It's 18°C out.", [["temperature", "18°C", "unbacked"]]],
  ])("%j", (prose, expected) => {
    expect(verdicts(checkGrounding(prose, [weather()], LONDON))).toEqual(expected);
  });

  it("rounds within half a degree, no further", () => {
    const report = checkGrounding("Highs of 16.5°C. Highs of 16.7°C. Lows of 7.9°C.", [weather()], LONDON);
    expect(verdicts(report)).toEqual([
      ["temperature", "Highs of 16.5°C", "backed"],
      ["temperature", "Highs of 16.7°C", "unbacked"],
      ["temperature", "Lows of 7.9°C", "backed"],
    ]);
  });
});

describe("percentages and numbers", () => {
  it("backs a rain chance the forecast gives and flags one it does not", () => {
    const report = checkGrounding("A 20% chance of rain. Maybe 60 percent later.", [weather()], LONDON);
    // A rain chance is a weather claim, checked against the day's forecast; a bare percentage is a number.
    expect(report.claims).toEqual([
      {
        kind: "weather",
        text: "20% chance of rain",
        sentenceIndex: 0,
        normalized: "rain_chance:20@2026-12-01",
      },
      { kind: "number", text: "60 percent", sentenceIndex: 1, normalized: "60%" },
    ]);
    expect(report.unbacked.map((claim) => claim.text)).toEqual(["60 percent"]);
  });

  it("accepts a percentage written as a fraction in the receipt", () => {
    const receipts = [receipt("get_weather", {}, { today: { precipitationProbability: 0.4 } })];
    expect(checkGrounding("A 40% chance of rain.", receipts, LONDON).unbacked).toEqual([]);
  });

  it("ignores one, zero, years and durations", () => {
    const report = checkGrounding(
      "One task is due. You have 0 meetings in 2026 so far. Take 20 minutes for a walk, or 2 hours.",
      [tasks("due_today", [{ title: "Fix briefing hallucinations" }])],
      LONDON,
    );
    expect(firstKindClaims(report)).toEqual([]);
  });
});

describe("counts", () => {
  it("backs two overdue tasks when the overdue list has two", () => {
    const report = checkGrounding("You have two overdue tasks.", [overdueTwo], LONDON);
    expect(firstKindClaims(report)).toEqual([
      { kind: "number", text: "two overdue tasks", sentenceIndex: 0, normalized: "2" },
    ]);
    expect(report.unbacked).toEqual([]);
  });

  it("flags two overdue tasks when the overdue list has three, even if another task list has two", () => {
    const report = checkGrounding("You have two overdue tasks.", [overdueThree, dueTodayTwo], LONDON);
    expect(report.unbacked.map((claim) => claim.text)).toEqual(["two overdue tasks"]);
  });

  it("counts digits and other lists too", () => {
    const receipts = [overdueThree, headlines(["EU agrees new AI rules", "Storm Bert heads for Wales"])];
    expect(
      verdicts(checkGrounding("3 overdue tasks and two headlines. Also four projects.", receipts, LONDON)),
    ).toEqual([
      ["number", "3 overdue tasks", "backed"],
      ["number", "two headlines", "backed"],
      ["number", "four projects", "unbacked"],
    ]);
  });

  it("accepts any number of headlines up to the feed's size, since a briefing picks some", () => {
    const news = [headlines(["EU agrees new AI rules", "Storm Bert heads for Wales", "Markets rally"])];
    expect(
      verdicts(
        checkGrounding("Two headlines stand out. Three stories in all, not four stories.", news, LONDON),
      ),
    ).toEqual([
      ["number", "Two headlines", "backed"],
      ["number", "Three stories", "backed"],
      ["number", "four stories", "unbacked"],
    ]);
  });

  it("does not count vague nouns: two things to keep in mind is rhetoric", () => {
    expect(
      checkGrounding("Two things to keep in mind today.", [tasks("overdue", [])], LONDON).claims,
    ).toEqual([]);
  });

  it("does not let a task id stand in for a count", () => {
    // ids 40 and 41 are in the receipt; only the list length (2) can back a count of tasks.
    const report = checkGrounding("You have 41 overdue tasks.", [overdueTwo], LONDON);
    expect(report.unbacked.map((claim) => claim.text)).toEqual(["41 overdue tasks"]);
  });

  it("backs counts from count-like fields of a changes receipt", () => {
    const changes = receipt(
      "changes_since_morning",
      {},
      { since: "2026-12-01T07:00:00Z", completedCount: 3, added: [] },
    );
    expect(
      checkGrounding("Since this morning you finished three tasks.", [changes], LONDON).unbacked,
    ).toEqual([]);
  });

  it("backs a plain number found in a receipt string", () => {
    const report = checkGrounding(
      "Standup is in Room 4, not 5.",
      [receipt("list_events", {}, { events: [{ title: "Team standup", location: "Room 4" }] })],
      LONDON,
    );
    expect(verdicts(report)).toEqual([
      ["number", "4", "backed"],
      ["number", "5", "unbacked"],
    ]);
  });
});
