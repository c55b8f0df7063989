import { expect, it } from "vitest";
import { createEvent, getEvent } from "../../db/queries/events.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { chatToolSet } from "../../src/core/tools/allowlists.ts";
import { dispatchToolCall } from "../../src/core/tools/dispatch.ts";
import { createDefaultToolRegistry } from "../../src/tools/index.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("update_event", (getDb) => {
  it("stamps the change with the context's clock", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const event = await createEvent(db, user.id, {
      title: "Standup",
      startsAt: new Date("2025-06-02T08:00:00Z"),
      timeZone: user.timeZone,
    });
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const outcome = await dispatchToolCall(
      chatToolSet(createDefaultToolRegistry()),
      { id: "c1", function: { name: "update_event", arguments: { id: event.id, title: "Team standup" } } },
      { user, db, clock },
    );
    expect(outcome.error).toBeFalsy();
    const stored = await getEvent(db, user.id, event.id);
    expect(stored?.title).toBe("Team standup");
    expect(stored?.updatedAt.toISOString()).toBe("2025-06-02T06:00:00.000Z");
  });
});
