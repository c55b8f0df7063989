import { describe, expect, it } from "vitest";
import { splitSentences } from "../../../src/core/grounding/index.ts";

describe("splitSentences", () => {
  it("splits on sentence ends but not inside times, decimals or abbreviations", () => {
    expect(
      splitSentences(
        "Morning! Standup is at 9.30am. It reaches 16.1°C today, e.g. warm. Dr. Patel moved to 2 p.m. Is that fine? Yes.",
      ),
    ).toEqual([
      "Morning!",
      "Standup is at 9.30am.",
      "It reaches 16.1°C today, e.g. warm.",
      "Dr. Patel moved to 2 p.m.",
      "Is that fine?",
      "Yes.",
    ]);
  });

  it("ends a sentence at every line break and keeps closing quotes with their sentence", () => {
    expect(
      splitSentences('Tasks:\n- Renew passport\n- Call the plumber\n\nHe said "done." Then left…  Bye'),
    ).toEqual(["Tasks:", "- Renew passport", "- Call the plumber", 'He said "done."', "Then left…", "Bye"]);
  });

  it("returns nothing for empty or blank prose", () => {
    expect(splitSentences("")).toEqual([]);
    expect(splitSentences("  \n\n ")).toEqual([]);
  });

  it("does not split after an initial", () => {
    expect(splitSentences("Call J. Smith today. Then rest.")).toEqual(["Call J. Smith today.", "Then rest."]);
  });
});
