/**
 * Writes through the Todoist provider: each one re-reads the task and goes ahead only when its
 * `updated_at` is the version the mirror read; what the server holds afterwards is asserted on the server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError, type RemoteObject } from "../../../../src/core/accounts/ports.ts";
import { createTodoistProvider } from "../../../../src/sources/accounts/todoist/todoist-provider.ts";
import { LOOPBACK, options, type TodoistFixture, todoistFixture } from "./todoist-fixture.ts";

const provider = createTodoistProvider(LOOPBACK);
const BERLIN = "Europe/Berlin";
let todoist: TodoistFixture;

beforeEach(async () => {
  todoist = await todoistFixture(provider);
});
afterEach(() => todoist.server.close());

async function mirrored(fields: Record<string, unknown>): Promise<RemoteObject> {
  const task = todoist.server.addTask(todoist.collection.remoteId, fields);
  await todoist.sync();
  const object = todoist.mirror.get(String(task.id));
  if (!object) throw new Error("the sync did not mirror the task");
  return object;
}

async function conflict(promise: Promise<unknown>): Promise<ConflictError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ConflictError)) throw new Error(`expected a ConflictError, got ${String(error)}`);
  return error;
}

describe("Todoist writes", () => {
  it("completes a task on the server, and the next sync sees it done", async () => {
    const object = await mirrored({ content: "Pay rent" });
    const written = await provider.writeTask(todoist.connection, object, {
      kind: "complete",
      at: new Date("2026-12-03T09:00:00Z"),
    });
    expect(todoist.server.task(object.remoteId)?.checked).toBe(true);
    expect(written.etag).toBe(todoist.server.task(object.remoteId)?.updated_at);
    expect(provider.derive(written, options).tasks[0]?.status).toBe("done");
    const changes = await todoist.sync();
    expect(changes.changed.map((changed) => changed.remoteId)).toEqual([object.remoteId]);
  });

  it("reopens a completed task", async () => {
    const object = await mirrored({ content: "Pay rent", checked: false });
    const done = await provider.writeTask(todoist.connection, object, { kind: "complete", at: new Date() });
    await provider.writeTask(todoist.connection, done, { kind: "reopen" });
    expect(todoist.server.task(object.remoteId)?.checked).toBe(false);
  });

  it("stops with the server's version when the task was edited between read and write", async () => {
    const object = await mirrored({ content: "Book flights" });
    todoist.server.editTask(object.remoteId, { content: "Book flights and hotel" });
    const error = await conflict(
      provider.writeTask(todoist.connection, object, {
        kind: "update",
        changes: { title: "Book trains" },
        timeZone: BERLIN,
      }),
    );
    expect(todoist.server.task(object.remoteId)?.content).toBe("Book flights and hotel");
    expect(error.current && provider.derive(error.current, options).tasks[0]?.title).toBe(
      "Book flights and hotel",
    );
    expect(error.message).toMatch(/changed on Todoist.*nothing was written/);
    await conflict(provider.writeTask(todoist.connection, object, { kind: "complete", at: new Date() }));
    expect(todoist.server.task(object.remoteId)?.checked).toBe(false);
    await conflict(provider.deleteTask(todoist.connection, object));
    expect(todoist.server.task(object.remoteId)?.is_deleted).toBe(false);
  });

  it("reports a task deleted on the server as a conflict with nothing current", async () => {
    const object = await mirrored({ content: "Old errand" });
    todoist.server.deleteTask(object.remoteId);
    const error = await conflict(provider.writeTask(todoist.connection, object, { kind: "reopen" }));
    expect(error.current).toBeUndefined();
  });

  it("updates title, notes, priority and due date, keeping a p3 as it was", async () => {
    const object = await mirrored({ content: "Draft", priority: 2 });
    const written = await provider.writeTask(todoist.connection, object, {
      kind: "update",
      changes: { title: "Final", notes: "Send to Ann", dueDate: "2026-12-10", priority: "normal" },
      timeZone: BERLIN,
    });
    expect(todoist.server.task(object.remoteId)).toMatchObject({
      content: "Final",
      description: "Send to Ann",
      priority: 2,
      due: { date: "2026-12-10", datetime: null },
    });
    const timed = await provider.writeTask(todoist.connection, written, {
      kind: "update",
      changes: { dueTime: "14:30", priority: "high" },
      timeZone: BERLIN,
    });
    expect(todoist.server.task(object.remoteId)).toMatchObject({
      priority: 4,
      due: { datetime: "2026-12-10T13:30:00Z" },
    });
    expect(provider.derive(timed, options).tasks[0]).toMatchObject({
      dueDate: "2026-12-10",
      dueTime: "14:30",
    });
    await provider.writeTask(todoist.connection, timed, {
      kind: "update",
      changes: { dueDate: null },
      timeZone: BERLIN,
    });
    expect(todoist.server.task(object.remoteId)?.due).toBeNull();
  });

  it("sends a changed due time as the instant of the user's wall time in their zone, whatever the task had", async () => {
    // A time Todoist holds in New York: the person in Tokyo who says "09:00" means 09:00 in Tokyo.
    const object = await mirrored({
      content: "Call the bank",
      due: {
        date: "2026-12-10",
        datetime: "2026-12-10T10:00:00",
        timezone: "America/New_York",
        string: "Dec 10 10am",
        lang: "en",
        is_recurring: false,
      },
    });
    todoist.server.resetCounts();
    const written = await provider.writeTask(todoist.connection, object, {
      kind: "update",
      changes: { dueTime: "09:00" },
      timeZone: "Asia/Tokyo",
    });
    const update = todoist.server.requests.find((request) => request.method === "POST");
    expect(update?.path).toBe(`/api/v1/tasks/${object.remoteId}`);
    expect(JSON.parse(update?.body ?? "{}")).toEqual({ due_datetime: "2026-12-10T00:00:00Z" });
    expect(provider.derive(written, { ...options, timeZone: "Asia/Tokyo" }).tasks[0]).toMatchObject({
      dueDate: "2026-12-10",
      dueTime: "09:00",
    });
  });

  it("creates a task with a due time in the user's zone", async () => {
    const created = await provider.createTask(todoist.connection, todoist.collection, {
      title: "Standup",
      dueDate: "2026-12-04",
      dueTime: "09:15",
      priority: "high",
      timeZone: "Europe/Berlin",
    });
    expect(todoist.server.task(created.remoteId)).toMatchObject({
      content: "Standup",
      project_id: todoist.collection.remoteId,
      priority: 4,
      due: { datetime: "2026-12-04T08:15:00Z" },
    });
    expect(provider.derive(created, options).tasks[0]).toMatchObject({
      dueDate: "2026-12-04",
      dueTime: "09:15",
    });
    expect((await todoist.sync()).changed.map((object) => object.remoteId)).toContain(created.remoteId);
  });

  it("deletes a task the mirror holds", async () => {
    const object = await mirrored({ content: "Throw away" });
    await provider.deleteTask(todoist.connection, object);
    expect(todoist.server.task(object.remoteId)?.is_deleted).toBe(true);
    expect((await todoist.sync()).removed).toEqual([object.remoteId]);
  });
});
