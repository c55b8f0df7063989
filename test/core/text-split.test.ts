/** The one splitter both platforms use, with the rules each passes (Telegram's and Slack's own tests cover theirs). */
import { describe, expect, it } from "vitest";
import { outsideSurrogatePair, splitText } from "../../src/core/text-split.ts";

describe("splitText", () => {
  it("keeps text within the limit whole and returns nothing for nothing", () => {
    expect(splitText("one two", { limit: 7 })).toEqual(["one two"]);
    expect(splitText("", { limit: 7 })).toEqual([]);
  });

  it("breaks at the most preferred separator that fits, dropping it, then cuts hard", () => {
    const text = `${"a".repeat(6)} ${"b".repeat(3)}\n${"c".repeat(4)}\n\n${"d".repeat(12)}`;
    expect(splitText(text, { limit: 12 })).toEqual([
      `${"a".repeat(6)} ${"b".repeat(3)}`,
      "c".repeat(4),
      "d".repeat(12),
    ]);
    expect(splitText("x".repeat(25), { limit: 10 })).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  });

  it("measures with the platform's measure", () => {
    // Bytes of UTF-8: "é" is two, so five of them already fill ten.
    const bytes = (value: string) => new TextEncoder().encode(value).length;
    const pieces = splitText("é".repeat(12), { limit: 10, measure: bytes, breaks: [] });
    expect(pieces).toEqual(["é".repeat(5), "é".repeat(5), "é".repeat(2)]);
  });

  it("takes a break only far enough into the piece when told to", () => {
    const text = `ab ${"c".repeat(20)}`;
    expect(splitText(text, { limit: 10 })[0]).toBe("ab");
    expect(splitText(text, { limit: 10, minBreakFraction: 0.5 })[0]).toBe(`ab ${"c".repeat(7)}`);
  });

  it("moves a hard cut back to where the platform says it is safe, and never splits a surrogate pair", () => {
    const noCutAfterX = (value: string, index: number) => value[index - 1] !== "x";
    expect(splitText("aaxaaaaa", { limit: 3, breaks: [], canCutAt: noCutAfterX })).toEqual([
      "aa",
      "xaa",
      "aaa",
    ]);
    const emoji = "😀".repeat(9);
    const pieces = splitText(emoji, { limit: 5 });
    expect(pieces.join("")).toBe(emoji);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(5);
      expect(outsideSurrogatePair(piece, piece.length)).toBe(true);
    }
  });

  it("refuses a limit too small to make progress", () => {
    expect(() => splitText("abc", { limit: 1 })).toThrow(/at least 2/);
  });
});
