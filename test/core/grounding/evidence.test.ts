import { describe, expect, it } from "vitest";
import { collectEvidence } from "../../../src/core/grounding/evidence.ts";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import { LONDON, receipt } from "./receipts.ts";

describe("evidence from receipts of any shape", () => {
  it("walks nested objects, top-level arrays and strings", () => {
    const evidence = collectEvidence(
      [
        receipt("list_tasks", { filter: "overdue" }, [
          { id: 81, title: "Fix it", meta: { due: "2026-11-30" } },
        ]),
        receipt(
          "changes_since_morning",
          {},
          { summary: "Moved standup to 11:15; rain 70%", deep: [[[{ at: "2026-12-01T16:00:00Z" }]]] },
        ),
      ],
      "Europe/London",
    );
    expect([...evidence.dates].sort()).toEqual(["2026-11-30", "2026-12-01"]);
    expect([...evidence.times].sort()).toEqual(["11:15", "16:00", "23:15"]);
    expect(evidence.numbers).toEqual(expect.arrayContaining([81, 70]));
    expect(evidence.lists.map((list) => [list.family, list.length])).toEqual([
      ["tasks", 1],
      [null, 1],
      [null, 1],
      [null, 1],
    ]);
  });

  it("survives nulls, booleans, empty and malformed results", () => {
    const shapes: unknown[] = [null, undefined, true, 42, "", [], {}, { events: null }, [[null]], Number.NaN];
    const receipts = shapes.map((result) => receipt("list_events", {}, result));
    const report = checkGrounding("Nothing on your calendar today. A call at 10:30.", receipts, LONDON);
    expect(report.unbacked.map((claim) => claim.normalized)).toEqual(["10:30"]);
  });

  it("does not recurse forever into very deep results", () => {
    let deep: unknown = { title: "Bottom" };
    for (let level = 0; level < 5000; level += 1) deep = { inner: deep };
    expect(() => collectEvidence([receipt("list_notes", {}, deep)], "Europe/London")).not.toThrow();
  });

  it("rejects a bad time zone or local date with a clear error", () => {
    expect(() => checkGrounding("Hi.", [], { timeZone: "Mars/Olympus", localDate: "2026-12-01" })).toThrow(
      /unknown time zone "Mars\/Olympus"/,
    );
    expect(() => checkGrounding("Hi.", [], { timeZone: "Europe/London", localDate: "1 Dec" })).toThrow(
      /localDate must be YYYY-MM-DD/,
    );
  });
});

describe("what a failed call found out", () => {
  const conflict = (current?: Record<string, unknown>) =>
    receipt(
      "complete_task",
      { task_id: 7 },
      {
        error:
          'task 7 "Book flights" was changed on Todoist · Personal since it was read (title "Book flights" → "Book flights and hotel"; due time → 15:00); nothing was written.',
        ...(current ? { current } : {}),
      },
      true,
    );
  const reply = 'Someone changed it on Todoist meanwhile: it is now "Book flights and hotel", due at 15:00.';

  it("backs a reply that states the server's copy a refused write brought back", () => {
    const current = {
      id: 7,
      title: "Book flights and hotel",
      due_date: "2026-12-02",
      due_time: "15:00",
      priority: "normal",
      status: "open",
      from: "Todoist · Personal",
    };
    const report = checkGrounding(reply, [conflict(current)], LONDON);
    expect(report.unbacked).toEqual([]);
  });

  it("does not take the error text itself as data", () => {
    const report = checkGrounding(reply, [conflict()], LONDON);
    expect(report.unbacked.map((claim) => claim.normalized)).toContain("15:00");
  });
});
