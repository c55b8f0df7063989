import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import { type EventInput, events, LONDON, tasks } from "./receipts.ts";

/**
 * The end-to-end busy morning as receipts: 55 back-to-back meetings every 10 minutes from 06:00 (London
 * is on UTC in December), and a task due today at 14:30, the minute "Back-to-back meeting 52" starts.
 */
function meetings(): EventInput[] {
  const at = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 6, minutes)).toISOString().slice(0, 19);
  return Array.from({ length: 55 }, (_, index) => ({
    title: `Back-to-back meeting ${index + 1}`,
    start: `${at(index * 10)}+00:00`,
    end: `${at(index * 10 + 30)}+00:00`,
  }));
}
const busyDay = [
  tasks("due_today", [{ title: "Renew passport", due: "2026-12-01", dueTime: "14:30", priority: "high" }]),
  events(meetings()),
];

/** Each time and day claim of the prose with whether the gate backs it. */
function checked(prose: string): [string, string, boolean][] {
  const report = checkGrounding(prose, busyDay, LONDON);
  return report.claims
    .filter((claim) => claim.kind === "time" || claim.kind === "day")
    .map((claim) => [claim.kind, claim.text, !report.unbacked.includes(claim)]);
}

describe("times on a day of numbered meetings", () => {
  it("checks a task's due time against the task, not a meeting whose number the time's digits spell", () => {
    // "14:30" once named "Back-to-back meeting 14" (and 30) and was checked against their times.
    expect(checked('"Renew passport" is due today at 14:30.')).toEqual([
      ["day", "today", true],
      ["time", "14:30", true],
    ]);
    expect(checked('"Renew passport" is due today at 2:30 pm.')).toEqual([
      ["day", "today", true],
      ["time", "2:30 pm", true],
    ]);
  });

  it("still stops a wrong due time for the task", () => {
    expect(checked('"Renew passport" is due today at 15:30.')).toEqual([
      ["day", "today", true],
      ["time", "15:30", false],
    ]);
  });

  it("checks a numbered meeting's time against that meeting", () => {
    expect(checked('"Back-to-back meeting 52" is at 14:30.')).toEqual([["time", "14:30", true]]);
    expect(checked('"Back-to-back meeting 3" is at 14:30.')).toEqual([["time", "14:30", false]]);
    expect(checked('"Back-to-back meeting 3" is at 06:20.')).toEqual([["time", "06:20", true]]);
  });

  it("does not lend a numbered meeting the times of its numbered neighbours", () => {
    // A lone digit names nothing alone: "meeting 3" bound "meeting 1" to "meeting 9", and 07:00 is meeting 7's.
    expect(checked('"Back-to-back meeting 3" is at 07:00.')).toEqual([["time", "07:00", false]]);
    expect(checked("Back-to-back meeting 3 runs until 06:50, and meeting 4 starts at 06:30.")).toEqual([
      ["time", "06:50", true],
      ["time", "06:30", true],
    ]);
  });
});
