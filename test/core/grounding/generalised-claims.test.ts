/**
 * The general rules issue 22's second part added, each tried both ways over the corpus's planted days: a true
 * sentence of the kind is backed and a false one is not, with the reason the gate gives.
 */
import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/check.ts";
import { gateOptions } from "../../../src/core/grounding/options.ts";
import { DAYS, type PlantedDay, USER } from "./corpus/days.ts";

function dayOf(name: string): PlantedDay {
  const day = DAYS[name];
  if (!day) throw new Error(`no planted day ${name}`);
  return day;
}

/** The unbacked claims of one sentence over a planted day, as "kind:text". */
function unbacked(dayName: string, sentence: string): string[] {
  const day = dayOf(dayName);
  const options = gateOptions(USER, new Date(`${day.localDate}T${day.localTime}:00Z`), day.localDate);
  const report = checkGrounding(sentence, day.receipts, options);
  return report.unbacked.map((claim) => `${claim.kind}:${claim.text}`);
}

function reasons(dayName: string, sentence: string): string[] {
  const day = dayOf(dayName);
  const options = gateOptions(USER, new Date(`${day.localDate}T${day.localTime}:00Z`), day.localDate);
  const report = checkGrounding(sentence, day.receipts, options);
  return report.unbacked.map((claim) => report.reasons?.get(claim) ?? "");
}

describe("times with minutes in words", () => {
  it.each([
    ["busy", "The 1:1 with Priya is at half past three."],
    ["rainy", "The Acme call ends at quarter to eleven."],
    ["long-list", "The bank task was done at ten past nine."],
  ])("backs %s: %j", (day, sentence) => {
    expect(unbacked(day, sentence)).toEqual([]);
  });

  it.each([
    ["busy", "The standup is at ten past nine.", "time:ten past nine"],
    ["busy", "The design review starts at twenty to eleven.", "time:twenty to eleven"],
    ["all-day", "Team dinner starts at twenty-five past seven.", "time:twenty-five past seven"],
  ])("stops %s: %j", (day, sentence, claim) => {
    expect(unbacked(day, sentence)).toContain(claim);
  });

  it("reads 'from ten to twelve' as a range of hours, not 11:50", () => {
    expect(unbacked("busy", "The design review runs from eleven to twelve.")).toEqual([]);
  });

  it("takes 'X is at 3' as X's start, not its end", () => {
    expect(unbacked("long-list", "The design review is at three.")).toEqual(["time:three"]);
    expect(unbacked("long-list", "The design review ends at three.")).toEqual([]);
  });
});

describe("free time over the window a clause's anchors set", () => {
  it.each([
    ["busy", "Once the gym is done at 7pm, nothing else is planned."],
    ["busy", "Between the standup and the design review, there's nothing."],
    ["busy", "From four until the gym you've nothing on."],
    ["weekend", "There's nothing booked between the market and dinner."],
    ["busy", "Before the standup, your morning is free."],
  ])("backs %s: %j", (day, sentence) => {
    expect(unbacked(day, sentence)).toEqual([]);
  });

  it.each([
    ["busy", "Between the standup and the gym, you have nothing else."],
    ["busy", "You have nothing before the 1:1 this afternoon."],
    ["weekend", "There's nothing booked between the market and the long run."],
    ["all-day", "Besides the offsite, you have nothing tonight."],
    ["long-list", "The afternoon has nothing in it."],
  ])("stops %s: %j", (day, sentence) => {
    expect(unbacked(day, sentence).some((claim) => claim.startsWith("quantity:"))).toBe(true);
  });

  it("says which events fall inside the window", () => {
    expect(reasons("busy", "Between the standup and the gym, you have nothing else.")).toEqual([
      '"Design review" at 11:00, "Lunch with Sam" at 12:30, "1:1 with Priya" at 15:30 falls between 10:00 and 18:00',
    ]);
  });
});

describe("quantifiers over the part of the day and the days spoken of", () => {
  it("counts 'your only event this evening' over the evening", () => {
    expect(unbacked("busy", "The gym is your only event this evening.")).toEqual([]);
    expect(unbacked("busy", "Lunch with Sam is your only meeting this afternoon")).toContain(
      "quantity:your only meeting",
    );
  });

  it("counts 'this weekend' over both its days", () => {
    expect(unbacked("weekend", "The market is your only event this weekend.")).toContain(
      "quantity:your only event",
    );
  });

  it("reads busy words against the events of their part of the day", () => {
    expect(unbacked("busy", "Your morning is packed.")).toEqual([]);
    expect(unbacked("empty", "Your morning is back-to-back.")).toEqual([
      "quantity:Your morning is back-to-back",
    ]);
    expect(unbacked("busy", "Your evening is completely booked.")).toEqual([
      "quantity:Your evening is completely booked",
    ]);
  });

  it("takes 'not a single meeting' as a claim that there are none", () => {
    expect(unbacked("empty", "Not a single meeting today.")).toEqual([]);
    expect(unbacked("busy", "Not a single meeting today.")).toEqual(["absence:Not a single meeting"]);
  });
});

describe("counts", () => {
  it("reads counts in words up to 99, a dozen and a pair", () => {
    expect(unbacked("long-list", "Sixty-one tasks are due today.")).toEqual([]);
    expect(unbacked("busy", "A pair of tasks are due today.")).toEqual([]);
    expect(unbacked("busy", "You have a dozen events today.")).toEqual(["number:a dozen events"]);
  });

  it("backs the shown part of a shortened list only where the sentence speaks of what is shown", () => {
    expect(unbacked("long-list", "61 tasks are due today, 15 of them listed here.")).toEqual([]);
    expect(unbacked("long-list", "Only 15 tasks are due today.")).toEqual(["number:15 tasks"]);
  });
});

describe("names, days, states, happenings and weather", () => {
  it("judges a sentence's first word as a name where a person's words follow", () => {
    expect(unbacked("empty", "Jamie from accounts wants a word today.")).toEqual(["name:Jamie"]);
    expect(unbacked("busy", "Sam is meeting you at Dishoom.")).toEqual([]);
    expect(unbacked("busy", "Rain from the west arrives tomorrow.")).toEqual([]);
  });

  it("backs a name by the word itself, not by its plural", () => {
    expect(unbacked("busy", "The design review is on Teams.")).toEqual(["name:Teams"]);
  });

  it("still judges a name inside a loosely named item", () => {
    expect(unbacked("rainy", "The project sync is at Acme's Leeds office.")).toContain("name:Leeds");
  });

  it("binds 'the 1:1' to its event", () => {
    expect(unbacked("busy", "The 1:1 is this afternoon.")).toEqual([]);
    expect(unbacked("busy", "The 1:1 is this morning.")).toEqual(["day:this morning"]);
  });

  it("reads next week, last week and last night as days", () => {
    expect(unbacked("busy", "Pay council tax falls due next week.")).toEqual(["day:next week"]);
    expect(unbacked("busy", "The gym is this week.")).toEqual([]);
    expect(unbacked("all-day", "The team dinner was last night.")).toEqual(["day:last night"]);
  });

  it.each([
    ["busy", "Lunch with Sam is off.", "state:is off"],
    ["busy", "The design review won't happen today.", "state:won't happen"],
    ["busy", "Pay council tax has been settled.", "state:has been settled"],
    ["busy", "The plumber dropped in while you were out.", "happening:dropped in"],
    ["busy", "The Q4 report got a reply from finance.", "happening:got a reply"],
  ])("stops %s: %j", (day, sentence, claim) => {
    expect(unbacked(day, sentence)).toContain(claim);
  });

  it("reads a temperature feel beside a day as weather, and 'clear' beside it as the sky", () => {
    expect(unbacked("empty", "Looks like a chilly, clear morning.")).toContain("weather:chilly");
    expect(unbacked("all-day", "Looks like a chilly, clear morning.")).toEqual(["weather:clear"]);
    expect(unbacked("busy", "Your morning is clear of meetings after the design review.")).not.toContain(
      "weather:clear",
    );
  });
});

describe("the sixth batch's rules", () => {
  it("holds a state of every item listed with the one it binds to", () => {
    expect(
      reasons("long-list", "Since this morning you completed Call the bank and Kitchen: order tiles."),
    ).toEqual(['the receipts show "Kitchen: order tiles" open, due 2026-12-14']);
    expect(unbacked("busy", "Renew passport and Pay council tax are both overdue.")).toEqual([]);
  });

  it("reads a task's own verb done to it as done", () => {
    expect(unbacked("rainy", "Return library books has been returned.")).toEqual(["state:has been returned"]);
    expect(unbacked("busy", "Nothing is booked after the gym.")).toEqual([]);
  });

  it("needs a receipt or the profile for a person named by their role", () => {
    expect(unbacked("busy", "Lunch with Sam and his sister at Dishoom is at 12:30.")).toEqual([
      "name:his sister",
    ]);
    expect(unbacked("busy", "Your plumber still needs an email today.")).toEqual([]);
  });

  it("checks each weather word against the day of its own part of the sentence", () => {
    expect(unbacked("all-day", "Bundle up: light snow and a high of just 1°C, clearing tomorrow.")).toEqual(
      [],
    );
    expect(unbacked("busy", "Tomorrow brings light rain, so keep an umbrella handy.")).toEqual([]);
    expect(unbacked("busy", "Light rain today, clearing tomorrow.")).toEqual(["weather:rain"]);
  });

  it("reads a small chance of rain as a low chance", () => {
    expect(unbacked("busy", "There's only a small chance of rain today.")).toEqual([]);
    expect(unbacked("rainy", "There's only a small chance of rain today.")).toEqual(["weather:rain"]);
  });

  it("compares forecast highs for 'warmer than today'", () => {
    expect(unbacked("busy", "Tomorrow will be cooler than today.")).toEqual([]);
    expect(unbacked("busy", "Tomorrow will be warmer than today.")).toEqual(["weather:warmer than today"]);
  });

  it("takes the new time of 'moved from 11:00 to 14:00' as its start", () => {
    expect(unbacked("long-list", "The design review moved from 11:00 to 14:00.")).toEqual([]);
    expect(unbacked("long-list", "The design review moved from 11:00 to 15:00.")).toEqual(["time:15:00"]);
  });

  it("scopes a count by the state said after it", () => {
    expect(unbacked("busy", "Two tasks are overdue and two are due today.")).toEqual([]);
    expect(unbacked("busy", "Two tasks are overdue and three are due today.")).toEqual([
      "number:three are due",
    ]);
  });
});
