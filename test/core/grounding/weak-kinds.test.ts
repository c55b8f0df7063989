/**
 * The rules issue 22's fourth part added for the kinds the unseen sets found weakest — quantifiers and free
 * time, item states, weather words — each tried both ways over the planted days: the lie is stopped, the
 * honest paraphrase kept, and the verdict says which claim failed and why.
 */
import { describe, expect, it } from "vitest";
import { checkGrounding } from "../../../src/core/grounding/check.ts";
import { groundAnswer } from "../../../src/core/grounding/gate.ts";
import { gateOptions } from "../../../src/core/grounding/options.ts";
import { WEATHER_THRESHOLDS } from "../../../src/core/grounding/weather-lexicon.ts";
import { DAYS, type PlantedDay, USER } from "./corpus/days.ts";

function dayOf(name: string): PlantedDay {
  const day = DAYS[name];
  if (!day) throw new Error(`no planted day ${name}`);
  return day;
}

function optionsOf(day: PlantedDay) {
  return gateOptions(USER, new Date(`${day.localDate}T${day.localTime}:00Z`), day.localDate);
}

/** The unbacked claims of one sentence over a planted day, each as "kind:text — reason". */
function unbacked(dayName: string, sentence: string): string[] {
  const day = dayOf(dayName);
  const report = checkGrounding(sentence, day.receipts, optionsOf(day));
  return report.unbacked.map((claim) => `${claim.kind}:${claim.text} — ${report.reasons?.get(claim) ?? ""}`);
}

describe("counts of events in a part of a day or on another day", () => {
  it("backs the morning's true count and stops a wrong one, naming the part's events", () => {
    expect(
      unbacked("busy", "There are two meetings this morning: the standup and the design review."),
    ).toEqual([]);
    expect(unbacked("busy", "You have three meetings this afternoon.")).toEqual([
      "quantity:three meetings — 2026-12-01 (afternoon) has 2 events: Lunch with Sam, 1:1 with Priya",
    ]);
  });
});

describe("all, both, first and last", () => {
  it("backs 'both … before 3pm' and stops 'all … in the morning' with the event outside it", () => {
    expect(unbacked("rainy", "Both of your meetings are before 3pm.")).toEqual([]);
    expect(unbacked("weekend", "All your plans today are in the morning.")).toEqual([
      `quantity:All your plans today are in the morning — "Dinner at Mum's" at 19:00 is outside 06:00–12:00`,
    ]);
  });

  it("backs the true first and last event and names the real one for a false claim", () => {
    expect(unbacked("busy", "The gym is the last thing on your calendar today.")).toEqual([]);
    expect(unbacked("busy", "The standup is your first meeting of the day.")).toEqual([]);
    expect(unbacked("rainy", "The project sync is your first call today.")).toEqual([
      'quantity:your first call — the first event on 2026-12-07 is "Client call with Acme" at 10:00',
    ]);
  });
});

describe("free time over days, windows and what a clause sets aside", () => {
  it("reads 'tomorrow is completely free' and 'this afternoon is wide open' against those windows", () => {
    expect(unbacked("busy", "Tomorrow is completely free.")).toEqual([
      'quantity:Tomorrow is completely free — "Dentist appointment" at 10:00 falls between 06:00 and 23:00',
    ]);
    expect(unbacked("weekend", "This afternoon is wide open.")).toEqual([]);
    expect(unbacked("busy", "This afternoon is wide open.")).toHaveLength(1);
  });

  it("judges 'your diary is empty' over the window its clause sets, not the whole day", () => {
    expect(unbacked("rainy", "Between the Acme call and the project sync, your diary is empty.")).toEqual([]);
    expect(unbacked("rainy", "Apart from the Acme call, your calendar is empty.")).toEqual([
      'quantity:your calendar is empty — "Project sync" at 14:00 falls between 06:00 and 23:00',
    ]);
  });

  it("reads 'nothing's on between', 'free from noon until five' and 'nothing else on today'", () => {
    expect(unbacked("busy", "Nothing's on between lunch and the gym.")).toHaveLength(1);
    expect(unbacked("busy", "You're free from noon until five.")).toHaveLength(1);
    expect(unbacked("busy", "You're clear from four until six.")).toEqual([]);
    expect(unbacked("rainy", "Apart from the Acme call, there's nothing else on today.")).toHaveLength(1);
    expect(unbacked("long-list", "Once the design review ends at 3, you have nothing else on.")).toEqual([]);
  });

  it("takes 'the only other thing' as nothing beyond what the sentence names", () => {
    expect(
      unbacked("all-day", "Apart from the offsite, the team dinner is the only other thing today."),
    ).toEqual([]);
    expect(
      unbacked("busy", "Apart from the standup, lunch with Sam is the only other thing today."),
    ).toHaveLength(1);
  });
});

describe("item states", () => {
  it("reads 'you've watered the plants' as the task done, and keeps a true one", () => {
    expect(unbacked("weekend", "You've watered the plants already.")).toEqual([
      `state:You've watered — the receipts show "Water the plants" open, due 2026-12-05`,
    ]);
    expect(unbacked("long-list", "You've called the bank already.")).toEqual([]);
  });

  it("reads 'is off today' as cancelled", () => {
    expect(unbacked("rainy", "The project sync is off today.")).toEqual([
      'state:is off — the receipts show "Project sync" on 2026-12-07 at 14:00, as planned',
    ]);
    expect(unbacked("rainy", "The project sync is off to a late start at two.")).not.toContainEqual(
      expect.stringMatching(/^state:/u),
    );
  });

  it("binds 'in the morning' to the day the sentence names", () => {
    expect(unbacked("busy", "All of tomorrow's appointments are in the morning.")).toEqual([]);
    expect(unbacked("busy", "The dentist is tomorrow in the afternoon.")).toHaveLength(1);
  });
});

describe("weather words", () => {
  it("reads 'no need for a brolly' as dry and 'leave the umbrella at home' likewise", () => {
    expect(unbacked("busy", "No need for a brolly today.")).toEqual([]);
    expect(unbacked("rainy", "Leave the umbrella at home today.")).toHaveLength(1);
  });

  it("reads dressing advice as a cold day, not a warm one", () => {
    expect(unbacked("all-day", "Light snow today, so wrap up warm.")).toEqual([]);
    expect(unbacked("busy", "Gloves and a scarf today, it's going to be bitter.")).toHaveLength(3);
  });

  it("checks muggy against the high in one place", () => {
    const [claim] = unbacked("busy", "It'll be a muggy day.");
    expect(claim).toBe(
      "weather:muggy — the forecast for 2026-12-01 says sunny_spells/partly_cloudy/cloudy, 8–16°C, 10% chance of rain",
    );
    expect(WEATHER_THRESHOLDS.muggyHigh).toBeGreaterThan(16);
  });

  it("reads bright, downpour and jacket as claims on the day's sky and rain", () => {
    expect(unbacked("busy", "A bright start today, with some cloud later.")).toEqual([]);
    expect(unbacked("weekend", "Tomorrow will be bright and clear for the run.")).not.toEqual([]);
    expect(unbacked("busy", "A downpour is on the way this afternoon.")).toHaveLength(1);
    expect(unbacked("rainy", "It's pouring today, so take your wellies.")).toEqual([]);
    expect(unbacked("busy", "Tomorrow looks wet, so bring a jacket.")).toEqual([]);
  });

  it("holds each day named to the word: a washout tomorrow and Thursday needs both", () => {
    expect(unbacked("busy", "Expect a washout tomorrow and Thursday.")).toEqual([
      "weather:washout — the forecast for 2026-12-03 says cloudy/overcast, 6–10°C, 20% chance of rain",
    ]);
    expect(unbacked("busy", "Expect rain tomorrow and grey skies on Thursday.")).toEqual([]);
  });
});

describe("the verdict a user can read", () => {
  it("keeps the honest sentence, removes the lie and says which claim failed and why", async () => {
    const day = dayOf("busy");
    const gate = await groundAnswer({
      draft: "The dentist is the only thing on tomorrow. The afternoon is wide open.",
      receipts: day.receipts,
      options: optionsOf(day),
      rewrite: async () => ({ text: undefined, receipts: [] }),
    });
    expect(gate.kind).toBe("backed");
    if (gate.kind !== "backed") return;
    expect(gate.text).toBe("The dentist is the only thing on tomorrow.");
    const removed = gate.verdict.sentences?.find((sentence) => !sentence.kept);
    expect(removed?.claims.filter((claim) => !claim.backed)).toEqual([
      {
        kind: "quantity",
        text: "The afternoon is wide open",
        backed: false,
        reason: '"Lunch with Sam" at 12:30, "1:1 with Priya" at 15:30 falls between 12:00 and 17:30',
      },
    ]);
  });
});
