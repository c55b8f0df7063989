import { expect, it } from "vitest";
import { fixedClock } from "../../../src/core/clock.ts";
import { chatToolSet } from "../../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { dispatchToolCall } from "../../../src/core/tools/dispatch.ts";
import { modelView } from "../../../src/core/tools/model-view.ts";
import {
  createEvent,
  createTask,
  createTestUser,
  describeInMemory,
  getEvent,
} from "../../helpers/test-store.ts";
import { toolContextFor } from "../fixture.ts";

describeInMemory("update_event", (getStore) => {
  it("stamps the change with the context's clock", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    const event = await createEvent(store, user.id, {
      title: "Standup",
      startsAt: new Date("2025-06-02T08:00:00Z"),
      timeZone: user.timeZone,
    });
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const outcome = await dispatchToolCall(
      chatToolSet(createDefaultToolRegistry()),
      { id: "c1", function: { name: "update_event", arguments: { id: event.id, title: "Team standup" } } },
      toolContextFor(store, user, clock),
    );
    expect(outcome.error).toBeFalsy();
    const stored = await getEvent(store, user.id, event.id);
    expect(stored?.title).toBe("Team standup");
    expect(stored?.updatedAt.toISOString()).toBe("2025-06-02T06:00:00.000Z");
  });
});

describeInMemory("list_events bounds its receipt", (getStore) => {
  it("keeps every event in the receipt and hands the model a shortened view that says how many more there are", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    for (let hour = 0; hour < 45; hour += 1) {
      await createEvent(store, user.id, {
        title: `Slot ${hour}`,
        startsAt: new Date(Date.UTC(2025, 5, 2 + Math.floor(hour / 10), 8 + (hour % 10))),
        timeZone: user.timeZone,
      });
    }
    const outcome = await dispatchToolCall(
      chatToolSet(createDefaultToolRegistry()),
      { id: "c2", function: { name: "list_events", arguments: { range: "upcoming", days: 14 } } },
      toolContextFor(store, user, fixedClock("2025-06-02T06:00:00Z")),
    );
    const result = outcome.result as { count: number; events: unknown[]; note?: string };
    expect(result.count).toBe(45);
    expect(result.events).toHaveLength(45);
    expect(result.note).toBeUndefined();
    const view = modelView(result) as { count: number; shown: number; events: unknown[]; note: string };
    expect(view).toMatchObject({ count: 45, shown: 32 });
    expect(view.events).toHaveLength(32);
    expect(view.note).toContain("13 more events not shown");
  });

  it("lists a 30-event day whole, so every event a briefing names is in its receipt", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    for (let index = 0; index < 30; index += 1) {
      await createEvent(store, user.id, {
        title: `Meeting ${index + 1}`,
        startsAt: new Date(Date.UTC(2025, 5, 2, 6, index * 20)),
        timeZone: user.timeZone,
      });
    }
    const outcome = await dispatchToolCall(
      chatToolSet(createDefaultToolRegistry()),
      { id: "c3", function: { name: "list_events", arguments: { range: "today" } } },
      toolContextFor(store, user, fixedClock("2025-06-02T06:00:00Z")),
    );
    const result = outcome.result as { count: number; events: Array<{ title: string }>; note?: string };
    expect(result.count).toBe(30);
    expect(result.events.map((event) => event.title)).toEqual(
      Array.from({ length: 30 }, (_, index) => `Meeting ${index + 1}`),
    );
    expect(result.note).toBeUndefined();
  });
});

describeInMemory("list_tasks keeps a long list whole", (getStore) => {
  it("holds all 61 tasks due today with the true count; the model's view shows 15 and says 46 more", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    for (let index = 0; index < 61; index += 1) {
      await createTask(store, { userId: user.id, title: `Task ${index + 1}`, dueDate: "2025-06-02" });
    }
    const outcome = await dispatchToolCall(
      chatToolSet(createDefaultToolRegistry()),
      { id: "c3", function: { name: "list_tasks", arguments: { filter: "due_today" } } },
      toolContextFor(store, user, fixedClock("2025-06-02T06:00:00Z")),
    );
    const result = outcome.result as { count: number; tasks: unknown[] };
    expect(result.count).toBe(61);
    expect(result.tasks).toHaveLength(61);
    const view = modelView(result) as { shown: number; tasks: unknown[]; note: string };
    expect(view.shown).toBe(15);
    expect(view.tasks).toHaveLength(15);
    expect(view.note).toContain("46 more tasks not shown");
  });
});
