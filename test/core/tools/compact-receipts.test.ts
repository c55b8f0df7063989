/**
 * Receipts as the model reads them are compact: no null or empty fields, nothing that only repeats a default,
 * and the forecast says when it was fetched (in the user's zone) and, when it is old, that it is.
 */
import { expect, it } from "vitest";
import { fixedClock } from "../../../src/core/clock.ts";
import { briefingToolSet } from "../../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { dispatchToolCall } from "../../../src/core/tools/dispatch.ts";
import { createTask, createTestUser, describeInMemory } from "../../helpers/test-store.ts";
import { LONDON, seedWeather, TODAY, toolContextFor } from "../fixture.ts";

const tools = briefingToolSet(createDefaultToolRegistry());
const run = (name: string, args: Record<string, unknown>, context: Parameters<typeof dispatchToolCall>[2]) =>
  dispatchToolCall(tools, { id: "c1", function: { name, arguments: args } }, context);

describeInMemory("compact receipts", (getStore) => {
  it("gives the forecast's as-of time in the user's zone, and says so when it is old", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedWeather(store); // fetched 05:40 UTC, 06:40 in London
    const fresh = await run("get_weather", {}, toolContextFor(store, user));
    expect(fresh.result).toEqual({
      location: "London",
      as_of: "06:40",
      unit: "°C",
      now: { temperature: 11, summary: "partly cloudy" },
      today: { date: TODAY, summary: "partly cloudy", low: 8, high: 16, precipitation_chance: 20 },
      next_days: [{ date: "2025-06-03", summary: "light rain", low: 10, high: 18, precipitation_chance: 60 }],
    });

    // Three hours on, nothing refreshed it.
    const later = await run(
      "get_weather",
      {},
      toolContextFor(store, user, fixedClock("2025-06-02T08:40:00Z")),
    );
    expect(later.result).toMatchObject({
      as_of: "06:40",
      stale: true,
      note: "This is the last forecast fetched, as of 06:40; it could not be refreshed since.",
    });
    // The next morning the day is named too.
    const nextDay = await run(
      "get_weather",
      {},
      toolContextFor(store, user, fixedClock("2025-06-03T06:00:00Z")),
    );
    expect(nextDay.result).toMatchObject({ as_of: "Mon 2 Jun 06:40", stale: true });
  });

  it("leaves out fields that only repeat a default or say nothing", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await createTask(store, { userId: user.id, title: "Plain", dueDate: TODAY });
    await createTask(store, {
      userId: user.id,
      title: "Urgent",
      dueDate: TODAY,
      priority: "high",
      notes: "Call first",
    });
    const listed = await run("list_tasks", { filter: "due_today" }, toolContextFor(store, user));
    expect((listed.result as { tasks: unknown[] }).tasks).toEqual([
      expect.objectContaining({ title: "Plain", due: TODAY }),
      expect.objectContaining({ title: "Urgent", due: TODAY, priority: "high", notes: "Call first" }),
    ]);
    expect(JSON.stringify(listed.result)).not.toMatch(/"status"|"normal"|null|""/);
  });
});
