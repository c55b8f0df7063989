import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import { events, LONDON, receipt, tasks } from "./receipts.ts";

// LONDON.localDate 2026-12-01 is a Tuesday.
const receipts = [
  tasks("overdue", [{ title: "Renew passport", due: "2026-11-28" }]),
  tasks("upcoming", [{ title: "Submit expenses", due: "2026-12-03" }]),
  events(
    [{ title: "Dentist", start: "2026-12-08T23:30:00Z", end: "2026-12-09T00:00:00Z" }],
    "upcoming",
    "2026-12-08",
  ),
];

function dateClaims(prose: string, options = LONDON): [string, string, boolean][] {
  const report = checkGrounding(prose, receipts, options);
  return report.claims
    .filter((claim) => claim.kind === "date")
    .map((claim) => [claim.text, claim.normalized, !report.unbacked.includes(claim)]);
}

describe("dates", () => {
  it.each([
    ["Expenses are due on 2026-12-03.", "2026-12-03", "2026-12-03"],
    ["Expenses are due December 3.", "December 3", "2026-12-03"],
    ["Expenses are due Dec 3rd.", "Dec 3rd", "2026-12-03"],
    ["Expenses are due 3 Dec.", "3 Dec", "2026-12-03"],
    ["Expenses are due on the 3rd of December, 2026.", "3rd of December, 2026", "2026-12-03"],
    ["Expenses are due on the 3rd.", "the 3rd", "2026-12-03"],
    ["Expenses are due Thursday.", "Thursday", "2026-12-03"],
    ["Expenses are due Thursday, December 3.", "Thursday, December 3", "2026-12-03"],
    ["The passport was due on Saturday.", "Saturday", "2026-12-05"],
    ["The passport was due last Saturday.", "last Saturday", "2026-11-28"],
    ["The passport was due on November 28.", "November 28", "2026-11-28"],
    ["The passport has been overdue since the 28th.", "the 28th", "2026-12-28"],
  ])("backs %j", (prose, text, normalized) => {
    expect(dateClaims(prose)).toEqual([[text, normalized, true]]);
  });

  it.each([
    ["The report is due Friday.", "Friday", "2026-12-04"],
    ["The report is due on the 4th.", "the 4th", "2026-12-04"],
    ["The report is due December 4.", "December 4", "2026-12-04"],
    ["The report is due 2026-12-04.", "2026-12-04", "2026-12-04"],
    ["Your trip starts next Monday.", "next Monday", "2026-12-07"],
  ])("flags %j, which no receipt backs", (prose, text, normalized) => {
    expect(dateClaims(prose)).toEqual([[text, normalized, false]]);
  });

  it("always allows today and tomorrow, by name or by weekday", () => {
    expect(dateClaims("Tomorrow is quiet. Wednesday too. And today, Tuesday, December 1, is busy.")).toEqual([
      ["Tomorrow", "2026-12-02", true],
      ["Wednesday", "2026-12-02", true],
      ["Tuesday, December 1", "2026-12-01", true],
    ]);
  });

  it("reads datetimes in the user's zone: 23:30 UTC on the 8th is the 9th in Tokyo", () => {
    const tokyo = { timeZone: "Asia/Tokyo", localDate: "2026-12-01" };
    expect(dateClaims("The dentist is on December 9.", tokyo)).toEqual([["December 9", "2026-12-09", true]]);
    expect(dateClaims("The dentist is on December 10.", tokyo)).toEqual([
      ["December 10", "2026-12-10", false],
    ]);
  });

  it("reads RFC 2822 dates, as RSS feeds publish them", () => {
    const rss = [
      receipt(
        "get_rss_items",
        {},
        { items: [{ title: "Budget day", published: "Fri, 04 Dec 2026 08:00:00 GMT" }] },
      ),
    ];
    const report = checkGrounding("The budget lands Friday.", rss, LONDON);
    expect(report.claims.map((claim) => claim.text)).toEqual(["Friday"]);
    expect(report.unbacked).toEqual([]);
  });

  it("accepts a weekday that is part of a receipt's own words", () => {
    const named = [tasks("due_today", [{ title: "Friday report" }])];
    const report = checkGrounding("Start on the Friday report.", named, LONDON);
    expect(report.claims.filter((claim) => claim.kind === "date").map((claim) => claim.text)).toEqual([
      "Friday",
    ]);
    expect(report.unbacked).toEqual([]);
  });

  it("does not read ordinals and verbs as dates", () => {
    expect(dateClaims("The 2nd item on your list is small. You may 3 times over.")).toEqual([]);
  });

  it("uses dates in the arguments of a call, like the day a list was asked for", () => {
    const asked = [
      events([], "date", "2026-12-10"),
      receipt("list_events", { date: "2026-12-11" }, { events: [] }),
    ];
    const report = checkGrounding("Nothing on December 10 or December 11 either.", asked, LONDON);
    expect(report.claims.map((claim) => claim.normalized)).toEqual(["2026-12-10", "2026-12-11"]);
    expect(report.unbacked).toEqual([]);
  });
});
