import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import { events, LONDON, receipt, STANDUP, tasks, verdicts } from "./receipts.ts";

const REVIEW = {
  title: "Budget review",
  start: "2026-12-01T14:30:00+00:00",
  end: "2026-12-01T15:00:00+00:00",
};
const day = [events([STANDUP, REVIEW])];

function timeClaims(prose: string, receipts = day, options = LONDON): [string, string, boolean][] {
  const report = checkGrounding(prose, receipts, options);
  return report.claims
    .filter((claim) => claim.kind === "time")
    .map((claim) => [claim.text, claim.normalized, !report.unbacked.includes(claim)]);
}

describe("clock times", () => {
  it.each([
    ["Standup at 09:30.", "09:30", "09:30"],
    ["Standup at 9:30 AM.", "9:30 AM", "09:30"],
    ["Standup at 9.30am.", "9.30am", "09:30"],
    ["Standup at 9:30am.", "9:30am", "09:30"],
    ["Standup at 9:30 a.m. sharp.", "9:30 a.m.", "09:30"],
    ["The review is at 14:30.", "14:30", "14:30"],
    ["The review is at 2:30 pm.", "2:30 pm", "14:30"],
    ["The review is at 2.30PM.", "2.30PM", "14:30"],
    ["The review is at 2:30.", "2:30", "02:30"],
    ["The review runs until 3pm.", "3pm", "15:00"],
    ["Standup ends at 10 am.", "10 am", "10:00"],
    ["The review is at half past two.", "half past two", "02:30"],
    ["Standup ends at ten o'clock.", "ten o'clock", "10:00"],
  ])("backs %j from the day's events", (prose, text, normalized) => {
    expect(timeClaims(prose)).toEqual([[text, normalized, true]]);
  });

  it.each([
    ["A quick meeting at 10:30.", "10:30", "10:30"],
    ["A quick meeting at 10:30 AM.", "10:30 AM", "10:30"],
    ["A quick meeting at 10.30am.", "10.30am", "10:30"],
    ["A quick meeting at 10:30 PM.", "10:30 PM", "22:30"],
    ["A call at 16:45.", "16:45", "16:45"],
    ["A call at 2:30 PM.", "2:30 PM", "14:30"],
    ["Lunch at noon.", "noon", "12:00"],
    ["A sync at 11.", "11", "11:00"],
  ])("flags %j, which no event backs", (prose, text, normalized) => {
    const receipts = [events([STANDUP])];
    expect(timeClaims(prose, receipts)).toEqual([[text, normalized, false]]);
  });

  it("reads ISO datetimes in the user's zone, not UTC", () => {
    const newYork = { timeZone: "America/New_York", localDate: "2026-12-01" };
    const receipts = [
      receipt(
        "list_events",
        { range: "today" },
        { events: [{ title: "Dentist", start: "2026-12-01T15:00:00Z" }] },
      ),
    ];
    expect(timeClaims("The dentist is at 10am.", receipts, newYork)).toEqual([["10am", "10:00", true]]);
    expect(timeClaims("The dentist is at 3pm.", receipts, newYork)).toEqual([["3pm", "15:00", false]]);
  });

  it("finds times in task fields and inside free text", () => {
    const receipts = [
      tasks("due_today", [{ title: "Send invoice", dueTime: "17:00" }]),
      receipt(
        "list_notes",
        {},
        { notes: [{ id: 1, title: "Gym", body: "Class moved to 6.30pm", createdAt: "x" }] },
      ),
    ];
    expect(timeClaims("Send the invoice by 5pm, then the gym class at 18:30.", receipts)).toEqual([
      ["5pm", "17:00", true],
      ["18:30", "18:30", true],
    ]);
  });

  it("does not read the midday check-in, decimals or temperatures as times", () => {
    const report = checkGrounding(
      "This is your midday check-in. It peaks at 16 degrees, about 16.1 in fact. Before the midday update, rest.",
      [events([])],
      LONDON,
    );
    expect(report.claims.filter((claim) => claim.kind === "time")).toEqual([]);
  });

  it("reads noon and midday as 12:00 when they are used as a time", () => {
    const receipts = [
      events([{ title: "Lunch with Priya", start: "2026-12-01T12:00:00Z", end: "2026-12-01T13:00:00Z" }]),
    ];
    expect(
      verdicts(
        checkGrounding(
          "Lunch with Priya at noon, then a break from midday check-in duties.",
          receipts,
          LONDON,
        ),
      ),
    ).toEqual([
      ["item", "Priya", "backed"],
      ["time", "noon", "backed"],
    ]);
    expect(timeClaims("Lunch is at midday.", receipts)).toEqual([["midday", "12:00", true]]);
  });

  it("checks both ends of a range", () => {
    expect(timeClaims("Standup runs 9:30–10:00, then a call from 11:00 to 11:30.", day)).toEqual([
      ["9:30", "09:30", true],
      ["10:00", "10:00", true],
      ["11:00", "11:00", false],
      ["11:30", "11:30", false],
    ]);
  });

  it("reads a bare hour after a time word as a time beside an event, and ignores it elsewhere", () => {
    expect(timeClaims("Team standup wraps up by 10.", day)).toEqual([["10", "10:00", true]]);
    expect(timeClaims("A sync at 11 with the team.", day)).toEqual([["11", "11:00", false]]);
    const report = checkGrounding("Finish by 5 and rest. Expect 16 degrees at 3.", day, LONDON);
    expect(report.claims.map((claim) => claim.text)).toEqual(["16 degrees"]);
  });

  it("does not mistake 24-hour tool fields for 12-hour readings", () => {
    // "09:30" in a receipt is morning: it must not back "9:30 pm".
    expect(timeClaims("Standup at 9:30 pm.", day)).toEqual([["9:30 pm", "21:30", false]]);
  });
});
