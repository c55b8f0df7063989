import { describe, expect, it } from "vitest";
import { progressLine } from "../../../src/core/events.ts";

describe("progress lines", () => {
  it("says what is being refreshed and what came of it, and skips what needs no line", () => {
    expect(progressLine({ type: "refresh-start", sources: ["weather"] })).toBe("refreshing weather…");
    expect(progressLine({ type: "refresh-start", sources: ["weather", "calendar", "feeds"] })).toBe(
      "refreshing weather, calendars and feeds…",
    );
    expect(progressLine({ type: "refresh-end", source: "weather", status: "refreshed" })).toBe(
      "✓ weather refreshed",
    );
    expect(
      progressLine({
        type: "refresh-end",
        source: "calendar",
        status: "failed",
        detail: 'could not refresh "Work"; using what it showed as of 06:12',
      }),
    ).toBe('✗ calendars: could not refresh "Work"; using what it showed as of 06:12');
    expect(progressLine({ type: "refresh-end", source: "feeds", status: "fresh" })).toBeUndefined();
    expect(progressLine({ type: "refresh-end", source: "feeds", status: "skipped" })).toBeUndefined();
    expect(progressLine({ type: "tool-result", tool: "get_weather", ok: false, by: "runner" })).toBe(
      "✗ get_weather",
    );
    expect(
      progressLine({ type: "model-turn", turn: 1, toolCalls: 0, model: "m", endpoint: "e" }),
    ).toBeUndefined();
  });
});
