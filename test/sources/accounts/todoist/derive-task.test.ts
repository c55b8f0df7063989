/** What a Todoist task body means: priorities, the three shapes of a due time, completion, subtasks, labels. */
import { describe, expect, it } from "vitest";
import type { RemoteObject } from "../../../../src/core/accounts/ports.ts";
import { deriveTodoistTask } from "../../../../src/sources/accounts/todoist/derive-task.ts";

const base = {
  id: "6001",
  user_id: "1",
  project_id: "2203306141",
  section_id: null,
  parent_id: null,
  content: "Renew passport",
  description: "Photos first",
  checked: false,
  is_deleted: false,
  priority: 1,
  labels: [],
  due: null,
  deadline: null,
  duration: null,
  added_at: "2026-11-30T10:00:00.000000Z",
  completed_at: null,
  updated_at: "2026-11-30T10:00:00.000000Z",
  child_order: 1,
  day_order: -1,
  is_collapsed: false,
  note_count: 0,
};

function object(fields: Record<string, unknown>): RemoteObject {
  return {
    remoteId: "6001",
    etag: "x",
    format: "todoist-json",
    body: JSON.stringify({ ...base, ...fields }),
  };
}

const derive = (fields: Record<string, unknown>, timeZone = "Europe/Berlin") =>
  deriveTodoistTask(object(fields), {
    windowStart: new Date("2026-12-01T00:00:00Z"),
    windowEnd: new Date("2026-12-31T00:00:00Z"),
    timeZone,
  }).tasks[0];

const due = (fields: Record<string, unknown>) => ({
  is_recurring: false,
  string: "x",
  lang: "en",
  ...fields,
});

describe("deriveTodoistTask", () => {
  it("maps Todoist's reversed priorities: 4 and 3 (p1, p2) high, 2 (p3) and 1 (p4, the default) normal", () => {
    expect([4, 3, 2, 1].map((priority) => derive({ priority })?.priority)).toEqual([
      "high",
      "high",
      "normal",
      "normal",
    ]);
  });

  it("reads title, notes, labels and the parent of a subtask", () => {
    expect(derive({ parent_id: "5999", labels: ["errand", "town"] })).toMatchObject({
      title: "Renew passport",
      notes: "Photos first",
      parentRemoteId: "5999",
      labels: ["errand", "town"],
      status: "open",
      completedAt: null,
    });
  });

  it("reads a checked task as done, with its completion time", () => {
    expect(derive({ checked: true, completed_at: "2026-12-02T18:00:00.000000Z" })).toMatchObject({
      status: "done",
      completedAt: new Date("2026-12-02T18:00:00Z"),
    });
  });

  it("keeps an all-day due date as it is", () => {
    expect(derive({ due: due({ date: "2026-12-05" }) }, "Pacific/Auckland")).toMatchObject({
      dueDate: "2026-12-05",
      dueTime: null,
    });
  });

  it("moves a due instant into the user's zone, across midnight", () => {
    const task = derive({ due: due({ date: "2026-12-05", datetime: "2026-12-05T23:30:00Z" }) });
    expect(task).toMatchObject({ dueDate: "2026-12-06", dueTime: "00:30" });
  });

  it("reads a time fixed in another zone in that zone, then moves it into the user's", () => {
    const task = derive({
      due: due({ date: "2026-12-05", datetime: "2026-12-05T09:00:00", timezone: "America/New_York" }),
    });
    expect(task).toMatchObject({ dueDate: "2026-12-05", dueTime: "15:00" });
  });

  it("takes a floating time as the user's clock time, also in the older date-with-time shape", () => {
    expect(
      derive({ due: due({ date: "2026-12-05", datetime: "2026-12-05T07:45:00" }) }, "Asia/Tokyo"),
    ).toMatchObject({
      dueDate: "2026-12-05",
      dueTime: "07:45",
    });
    expect(derive({ due: due({ date: "2026-12-05T07:45:00" }) })).toMatchObject({
      dueDate: "2026-12-05",
      dueTime: "07:45",
    });
  });

  it("refuses a body it cannot read, naming the task and the field", () => {
    expect(() => derive({ due: due({ date: "next friday" }) })).toThrow(
      /Todoist task 6001 has an unreadable due date/,
    );
    expect(() => derive({ labels: "errand" })).toThrow(/Todoist task 6001 is unreadable \(labels: /);
    expect(() =>
      deriveTodoistTask(
        { ...object({}), body: "{not json" },
        { windowStart: new Date(), windowEnd: new Date(), timeZone: "UTC" },
      ),
    ).toThrow("Todoist task 6001 is not JSON");
  });
});
