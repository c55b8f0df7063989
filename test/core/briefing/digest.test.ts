import { describe, expect, it } from "vitest";
import type { Receipt } from "../../../src/core/assistant.ts";
import { buildDigest } from "../../../src/core/briefing/digest.ts";
import { legacyDataPrompt } from "../../../src/core/briefing/legacy.ts";

let nextId = 1;
function receipt(toolName: string, args: Record<string, unknown>, result: unknown): Receipt {
  nextId += 1;
  return {
    id: nextId,
    runId: 1,
    toolName,
    arguments: args,
    result,
    error: false,
    at: new Date("2025-06-02T20:00:00Z"),
  };
}

describe("digest and legacy data from receipts", () => {
  it("states tomorrow's calendar in an evening digest instead of claiming it could not be checked", () => {
    const receipts = [
      receipt(
        "list_events",
        { range: "tomorrow" },
        { events: [{ title: "Dentist", start: "09:30", end: "10:00" }] },
      ),
      receipt("list_tasks", { filter: "due_today" }, { tasks: [] }),
    ];
    const digest = buildDigest(receipts, { heading: "Evening wrap-up" });
    expect(digest).toContain("Calendar tomorrow: 09:30–10:00 Dentist.");
    expect(digest).not.toContain("could not be checked");
    expect(legacyDataPrompt(receipts, "2025-06-02")).toContain("TOMORROW'S EVENTS: \n- 09:30–10:00 Dentist");
  });

  it("says the calendar could not be checked only when no calendar receipt exists", () => {
    expect(buildDigest([], { heading: "Morning" })).toContain("Your calendar could not be checked.");
    const empty = buildDigest([receipt("list_events", { range: "today" }, { events: [] })], {
      heading: "Morning",
    });
    expect(empty).toContain("Nothing on your calendar today.");
    expect(empty).not.toContain("tomorrow");
  });

  it("gives an old forecast with its age, says plainly when none was ever fetched, and names stale calendars", () => {
    const stale = receipt(
      "get_weather",
      {},
      {
        location: "Lisbon, Portugal",
        as_of: "06:12",
        stale: true,
        note: "This is the last forecast fetched, as of 06:12; it could not be refreshed since.",
        today: { summary: "partly cloudy", low: 12, high: 21 },
      },
    );
    const events = receipt(
      "list_events",
      { range: "today" },
      {
        events: [{ title: "Standup", start: "10:00", end: "10:15" }],
        freshness: 'Calendar "Work" could not be refreshed; what it shows is as of 07:00.',
      },
    );
    const digest = buildDigest([stale, events], { heading: "Morning" });
    expect(digest).toContain(
      "Weather: Lisbon, Portugal: partly cloudy, 12°C to 21°C (forecast as of 06:12, not refreshed since).",
    );
    expect(digest).toContain('Calendar "Work" could not be refreshed; what it shows is as of 07:00.');
    expect(legacyDataPrompt([stale, events], "2025-06-02")).toContain(
      "(forecast as of 06:12, not refreshed since)",
    );

    const never = {
      ...receipt(
        "get_weather",
        {},
        { error: "weather unavailable: no forecast has been fetched yet for Lisbon, Portugal" },
      ),
      error: true,
    };
    expect(buildDigest([never], { heading: "Morning" })).toContain(
      "No weather forecast: no forecast has been fetched yet for Lisbon, Portugal.",
    );
    expect(legacyDataPrompt([never], "2025-06-02")).toContain(
      "WEATHER: unavailable (no forecast has been fetched yet for Lisbon, Portugal)",
    );
  });
});
