import { describe, expect, it } from "vitest";
import { checkGrounding, describeUnbacked } from "../../../src/core/grounding/index.ts";
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

const absences = (prose: string, receipts: Parameters<typeof checkGrounding>[1]) =>
  verdicts(checkGrounding(prose, receipts, LONDON)).filter(([kind]) => kind === "absence");

describe("claims of absence and coverage are claims", () => {
  it("contradicts 'none' with a receipt that lists something, of the same kind and day", () => {
    const receipts = [
      events([STANDUP]),
      tasks("overdue", [{ title: "Renew passport" }]),
      tasks("due_today", []),
    ];
    expect(absences("Nothing on your calendar today.", receipts)).toEqual([
      ["absence", "Nothing on your calendar", "unbacked"],
    ]);
    expect(absences("You have no overdue tasks.", receipts)).toEqual([
      ["absence", "no overdue tasks", "unbacked"],
    ]);
    expect(absences("No tasks due today.", receipts)).toEqual([["absence", "No tasks", "backed"]]);
    // "You have no tasks" is false while any open list has one.
    expect(absences("You have no tasks at all.", receipts)).toEqual([["absence", "no tasks", "unbacked"]]);
  });

  it("backs 'none' only with a receipt that looked and found none, for the day it names", () => {
    const today = events([]);
    const tomorrow = events([STANDUP], "tomorrow", "2026-12-02");
    expect(absences("No meetings today.", [today, tomorrow])).toEqual([["absence", "No meetings", "backed"]]);
    expect(absences("No meetings tomorrow.", [today, tomorrow])).toEqual([
      ["absence", "No meetings", "unbacked"],
    ]);
    // Nobody looked at Friday's calendar: "nothing" would be a guess.
    expect(absences("Your calendar is clear tomorrow.", [today])).toEqual([
      ["absence", "calendar is clear", "unbacked"],
    ]);
    expect(absences("No news this morning.", [headlines([])])).toEqual([["absence", "No news", "backed"]]);
    expect(absences("No news this morning.", [headlines(["EU agrees new AI rules"])])).toEqual([
      ["absence", "No news", "unbacked"],
    ]);
  });

  it("backs 'unavailable' with an errored receipt, and contradicts it with a successful one", () => {
    const failed = receipt("get_weather", {}, { error: "weather unavailable: no forecast yet" }, true);
    expect(absences("The weather is unavailable this morning.", [failed])).toEqual([
      ["absence", "weather is unavailable", "backed"],
    ]);
    expect(absences("The weather is unavailable this morning.", [weather()])).toEqual([
      ["absence", "weather is unavailable", "unbacked"],
    ]);
    expect(absences("I couldn't check your calendar.", [events([])])).toEqual([
      ["absence", "couldn't check your calendar", "unbacked"],
    ]);
  });

  it("catches the evening rewrite that denies what its receipts hold, sentence by sentence", () => {
    const rewrite =
      "I don't have any calendar information for today. I don't have a list of tasks due today, and there is no weather report.";
    const report = checkGrounding(rewrite, designMorning(), LONDON);
    expect(verdicts(report)).toEqual([
      ["absence", "don't have any calendar information", "unbacked"],
      ["absence", "don't have a list of tasks", "unbacked"],
      ["absence", "no weather report", "unbacked"],
    ]);
    expect(describeUnbacked(report)).toContain(
      '"no weather report" (a tool result of this run does show weather)',
    );
  });

  it("leaves partial absences and advice alone", () => {
    const receipts = [events([STANDUP]), tasks("overdue", [{ title: "Renew passport" }])];
    expect(absences("No meetings until 09:30, then the Team standup.", receipts)).toEqual([]);
    expect(absences("No other tasks need you today.", receipts)).toEqual([]);
    expect(absences("There's no need to rush.", receipts)).toEqual([]);
  });
});
