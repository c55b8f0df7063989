import { describe, expect, it } from "vitest";
import { matchesKeyword } from "../../../db/queries/keywords.ts";
import { interestsFromProfile } from "../../../src/core/feeds/interests.ts";

describe("interestsFromProfile", () => {
  it("reads an inline line", () => {
    expect(interestsFromProfile("Tone: brief\ninterests: Climate, local politics; Rust.\nname: Ann")).toEqual(
      ["climate", "local politics", "rust"],
    );
  });

  it("reads a heading followed by a list, stopping at a blank line or the next heading", () => {
    const profile = "## Interests\n- Cycling\n* urban planning\n1. AI, robotics\n\n## Tone\n- dry humour";
    expect(interestsFromProfile(profile)).toEqual(["cycling", "urban planning", "ai", "robotics"]);
    expect(interestsFromProfile("Topics:\n- space\nTone:\n- warm")).toEqual(["space"]);
  });

  it("returns nothing for a profile without interests, and de-duplicates", () => {
    expect(interestsFromProfile("I like short briefings.")).toEqual([]);
    expect(interestsFromProfile("interests: rust, Rust\ntopics: rust")).toEqual(["rust"]);
  });
});

describe("matchesKeyword", () => {
  it("matches word starts, whole words for short keywords, across case and accents", () => {
    expect(matchesKeyword("Elections in Lisbon", "election")).toBe(true);
    expect(matchesKeyword("Reselection drama", "election")).toBe(false);
    expect(matchesKeyword("New AI rules", "ai")).toBe(true);
    expect(matchesKeyword("She said no", "ai")).toBe(false);
    expect(matchesKeyword("Zażółć gęślą", "gęślą")).toBe(true);
    expect(matchesKeyword("c++ (release)", "c++")).toBe(true);
  });
});
