/**
 * Check-ins compare the morning run's receipts (stored by the real runner) with fresh data: tasks
 * completed, tasks newly overdue, events new, moved or removed — and say "nothing changed" only from data.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { changesSinceMorning as changesOver } from "../../../src/core/briefing/changes-since-morning.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import type { User } from "../../../src/core/domain.ts";
import { claimRun } from "../../helpers/runs.ts";
import {
  completeTask,
  createEvent,
  createTask,
  createTestUser,
  deleteEvent,
  describeInMemory,
  portsOf,
  type TestStore,
  updateEvent,
} from "../../helpers/test-store.ts";
import { modelFor, realRunner, startModel } from "../../scheduler/rig.ts";
import type { OllamaTestServer } from "../../servers/ollama-server.ts";

/** The core's computation over the database's ports, as a check-in runs it. */
function changesSinceMorning(store: TestStore, user: User, localDate: string, now: Date) {
  return changesOver(portsOf(store), user, localDate, now);
}

const TODAY = "2025-06-02";
const MORNING = new Date("2025-06-02T06:00:00Z"); // 07:00 London

describeInMemory("changesSinceMorning", (getStore) => {
  let ollama: OllamaTestServer;
  beforeAll(async () => {
    ollama = await startModel();
  });
  afterAll(async () => {
    await ollama.close();
  });

  async function morningBriefing(store: TestStore, user: User) {
    const clock = fixedClock(MORNING);
    const run = await claimRun(
      store,
      { userId: user.id, slot: "morning", localDate: TODAY },
      MORNING,
      "morning-test",
    );
    // The model answers at once; the runner's coverage calls list_tasks and list_events itself.
    await realRunner(
      store,
      modelFor(ollama),
      clock,
      "morning-test",
    )({ user, slot: "morning", runId: run.id });
    return run.id;
  }

  it("lists what was completed, newly overdue, new, moved and removed since the morning", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    const zone = user.timeZone;
    const callBank = await createTask(store, { userId: user.id, title: "Call the bank", dueDate: TODAY });
    await createTask(store, { userId: user.id, title: "Renew passport", dueDate: TODAY, dueTime: "10:00" });
    await createTask(store, { userId: user.id, title: "File expenses", dueDate: "2025-05-30" });
    await createEvent(store, user.id, {
      title: "Dentist",
      startsAt: new Date("2025-06-02T08:00:00Z"),
      timeZone: zone,
    });
    const standup = await createEvent(store, user.id, {
      title: "Standup",
      startsAt: new Date("2025-06-02T11:00:00Z"),
      timeZone: zone,
    });
    const gym = await createEvent(store, user.id, {
      title: "Gym",
      startsAt: new Date("2025-06-02T17:00:00Z"),
      timeZone: zone,
    });
    const morningRunId = await morningBriefing(store, user);

    await completeTask(store, user.id, callBank.id, new Date("2025-06-02T09:15:00Z"));
    await updateEvent(
      store,
      user.id,
      standup.id,
      { allDay: false, startsAt: new Date("2025-06-02T13:00:00Z") },
      zone,
      new Date("2025-06-02T10:00:00Z"),
    );
    await createEvent(store, user.id, {
      title: "Lunch with Bea",
      startsAt: new Date("2025-06-02T12:00:00Z"),
      timeZone: zone,
    });
    await deleteEvent(store, user.id, gym.id);

    const changes = await changesSinceMorning(store, user, TODAY, new Date("2025-06-02T11:30:00Z"));

    expect(changes).toMatchObject({
      localDate: TODAY,
      morningRunId,
      since: "07:00",
      asOf: "12:30",
      eventsCompared: true,
      nothingChanged: false,
    });
    expect(changes.tasksCompleted).toEqual([
      { id: callBank.id, title: "Call the bank", completedAt: "10:15" },
    ]);
    expect(changes.newlyOverdue.map((task) => task.title)).toEqual(["Renew passport"]);
    expect(changes.newEvents.map((event) => `${event.title} ${event.start}`)).toEqual([
      "Lunch with Bea 2025-06-02 13:00",
    ]);
    expect(changes.movedEvents).toEqual([
      { id: standup.id, title: "Standup", from: "2025-06-02 12:00", to: "2025-06-02 14:00" },
    ]);
    expect(changes.removedEvents.map((event) => event.title)).toEqual(["Gym"]);
    expect(changes.summary).toBe(
      "Since the morning briefing (07:00): 1 task completed, 1 task newly overdue, 1 new event, 1 event moved, 1 event removed.",
    );
  });

  it("says nothing changed when the data says so", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    await createTask(store, { userId: user.id, title: "Water plants", dueDate: "2025-06-03" });
    await createEvent(store, user.id, {
      title: "Standup",
      startsAt: new Date("2025-06-02T11:00:00Z"),
      timeZone: user.timeZone,
    });
    await morningBriefing(store, user);

    const changes = await changesSinceMorning(store, user, TODAY, new Date("2025-06-02T11:30:00Z"));
    expect(changes).toMatchObject({
      tasksCompleted: [],
      newlyOverdue: [],
      newEvents: [],
      movedEvents: [],
      removedEvents: [],
    });
    expect(changes.nothingChanged).toBe(true);
    expect(changes.summary).toBe(
      "Since the morning briefing (07:00): nothing changed — no tasks completed, nothing newly overdue, no new, moved or removed events.",
    );
  });

  it("compares with local midnight when there was no morning briefing, and says event changes are unknown", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "America/New_York" });
    const task = await createTask(store, { userId: user.id, title: "Send invoice", dueDate: TODAY });
    await completeTask(store, user.id, task.id, new Date("2025-06-02T13:00:00Z"));
    const changes = await changesSinceMorning(store, user, TODAY, new Date("2025-06-02T16:30:00Z"));
    expect(changes).toMatchObject({ morningRunId: null, since: "00:00", eventsCompared: false });
    expect(changes.tasksCompleted.map((done) => done.title)).toEqual(["Send invoice"]);
    expect(changes.summary).toBe(
      "Since midnight (no morning briefing today): 1 task completed (event changes unknown: the morning did not list today's events).",
    );
  });
});
