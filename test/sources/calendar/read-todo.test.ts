import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { DeriveOptions } from "../../../src/core/accounts/ports.ts";
import { CalendarParseError } from "../../../src/sources/calendar/calendar-parse-error.ts";
import { priorityOf, readTodos } from "../../../src/sources/calendar/read-todo.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/vtodo/${name}`, import.meta.url), "utf8");

const window = (now: string, timeZone: string): DeriveOptions => {
  const at = new Date(now).getTime();
  return { windowStart: new Date(at - 86_400_000), windowEnd: new Date(at + 14 * 86_400_000), timeZone };
};

describe("readTodos on real clients' VTODOs", () => {
  it("Tasks.org: a DUE with TZID=Europe/Berlin is moved into the user's zone; PRIORITY 9 is low", () => {
    const [task] = readTodos(
      fixture("tasks-org-due-tzid.ics"),
      window("2023-04-01T12:00:00Z", "America/New_York"),
    ).tasks;
    // 17:00:01 CEST is 15:00:01 UTC, 11:00 in New York (EDT).
    expect(task).toMatchObject({
      uid: "4290517349243274514",
      title: "Test with tasks.org",
      dueDate: "2023-04-02",
      dueTime: "11:00",
      priority: "low",
      status: "open",
      labels: ["Vikunja"],
      parentUid: null,
    });
  });

  it("Nextcloud Tasks: RELATED-TO without RELTYPE names the parent; a floating DUE is read in the user's zone", () => {
    const [task] = readTodos(
      fixture("nextcloud-subtask.ics"),
      window("2019-01-01T00:00:00Z", "Europe/Paris"),
    ).tasks;
    expect(task).toMatchObject({
      parentUid: "pwen4kz20g",
      dueDate: "2019-01-01",
      dueTime: "12:34",
      priority: "normal",
    });
  });

  it("Nextcloud Tasks: repeated and comma-separated CATEGORIES are all labels", () => {
    const [task] = readTodos(
      fixture("nextcloud-categories-multiple.ics"),
      window("2026-12-01T00:00:00Z", "UTC"),
    ).tasks;
    expect(task?.labels).toEqual(["cat1", "cat2", "cat3"]);
  });

  it("Nextcloud Tasks: STATUS:COMPLETED with COMPLETED is done, at that instant; PRIORITY 1 is high", () => {
    const [task] = readTodos(fixture("nextcloud-completed.ics"), window("2026-12-03T00:00:00Z", "UTC")).tasks;
    expect(task).toMatchObject({ status: "done", priority: "high" });
    expect(task?.completedAt?.toISOString()).toBe("2026-12-02T08:15:57.000Z");
  });

  it("Thunderbird: IN-PROCESS is open, its DUE in its own VTIMEZONE, DESCRIPTION unescaped", () => {
    const [task] = readTodos(
      fixture("thunderbird-in-process.ics"),
      window("2026-12-03T00:00:00Z", "Europe/Berlin"),
    ).tasks;
    // 17:00 EST is 22:00 UTC, 23:00 in Berlin.
    expect(task).toMatchObject({
      status: "open",
      priority: "high",
      dueDate: "2026-12-04",
      dueTime: "23:00",
      notes: "Receipts are in the shared folder, sorted by month.",
      labels: ["Business"],
    });
  });

  it("Tasks.org: a weekly task shows its current occurrence, not the first one", () => {
    // First due Monday 2 November 2026; every Monday and Thursday. On Wednesday 2 December the window starts
    // on Tuesday 1 December, so the current one is Thursday 3 December.
    const [task] = readTodos(
      fixture("tasks-org-recurring.ics"),
      window("2026-12-02T09:00:00Z", "Europe/Berlin"),
    ).tasks;
    expect(task).toMatchObject({
      title: "Water the plants",
      dueDate: "2026-12-03",
      dueTime: null,
      status: "open",
    });
  });
});

describe("readTodos on bad input", () => {
  it("throws a parse error for text that is not iCalendar", () => {
    expect(() => readTodos("<html>502 Bad Gateway</html>", window("2026-12-01T00:00:00Z", "UTC"))).toThrow(
      CalendarParseError,
    );
  });
});

describe("priorityOf follows RFC 5545 §3.8.1.9", () => {
  it.each([
    [0, "normal"],
    [1, "high"],
    [4, "high"],
    [5, "normal"],
    [6, "low"],
    [9, "low"],
    [undefined, "normal"],
    [12, "normal"],
  ] as const)("%s → %s", (value, expected) => {
    expect(priorityOf(value)).toBe(expected);
  });
});
