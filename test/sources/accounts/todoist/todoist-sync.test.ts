/**
 * Syncing a Todoist project through the provider, with the official SDK talking to the test server:
 * full then incremental, request counts, deletions and moves, a forgotten token, an unreadable task.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTodoistProvider } from "../../../../src/sources/accounts/todoist/todoist-provider.ts";
import { LOOPBACK, options, type TodoistFixture, todoistFixture } from "./todoist-fixture.ts";

const provider = createTodoistProvider(LOOPBACK);
let todoist: TodoistFixture;

beforeEach(async () => {
  todoist = await todoistFixture(provider);
});
afterEach(() => todoist.server.close());

const titles = () =>
  [...todoist.mirror.values()].flatMap((object) =>
    provider.derive(object, options).tasks.map((task) => task.title),
  );

describe("Todoist sync", () => {
  it("discovers the projects as task collections", async () => {
    todoist.server.addProject("Work");
    const collections = await provider.discover(todoist.connection);
    expect(collections).toEqual([
      { remoteId: todoist.collection.remoteId, name: "Personal", holds: ["tasks"] },
      { remoteId: expect.any(String), name: "Work", holds: ["tasks"] },
    ]);
  });

  it("finds a task created on the server in the next sync", async () => {
    const first = await todoist.sync();
    expect(first).toMatchObject({ full: true, changed: [], removed: [] });
    todoist.server.addTask(todoist.collection.remoteId, { content: "Call the dentist" });
    const next = await todoist.sync();
    expect(next.full).toBe(false);
    expect(titles()).toEqual(["Call the dentist"]);
    // Mirrored as Todoist sent it (snake_case), versioned by its updated_at.
    const [object] = next.changed;
    const body = JSON.parse(object?.body ?? "{}") as Record<string, unknown>;
    expect(body.project_id).toBe(todoist.collection.remoteId);
    expect(object?.etag).toBe(body.updated_at);
  });

  it("makes one request and fetches nothing when nothing changed", async () => {
    todoist.server.addTask(todoist.collection.remoteId, { content: "Water plants" });
    await todoist.sync();
    todoist.server.resetCounts();
    const again = await todoist.sync();
    expect(again).toMatchObject({ changed: [], removed: [], full: false, requests: 1 });
    expect(todoist.server.requests.map((request) => request.path)).toEqual(["/api/v1/sync"]);
  });

  it("keeps the project's own tasks and reports deleted and moved-away ones as removed", async () => {
    const project = todoist.collection.remoteId;
    const elsewhere = todoist.server.addProject("Work");
    const deleted = todoist.server.addTask(project, { content: "Deleted" });
    const moved = todoist.server.addTask(project, { content: "Moved" });
    todoist.server.addTask(elsewhere, { content: "Not ours" });
    const edited = todoist.server.addTask(project, { content: "Edited" });
    await todoist.sync();
    expect(titles().sort()).toEqual(["Deleted", "Edited", "Moved"]);

    todoist.server.deleteTask(String(deleted.id));
    todoist.server.editTask(String(moved.id), { project_id: elsewhere });
    todoist.server.editTask(String(edited.id), { content: "Edited on the phone" });
    const changes = await todoist.sync();
    expect(changes.removed.sort()).toEqual([String(deleted.id), String(moved.id)].sort());
    expect(changes.changed.map((object) => object.remoteId)).toEqual([String(edited.id)]);
    expect(titles()).toEqual(["Edited on the phone"]);
  });

  it("hands one answer to the account's other projects, but asks again for a project that asks twice", async () => {
    const work = { ...todoist.collection, remoteId: todoist.server.addProject("Work"), name: "Work" };
    todoist.server.addTask(work.remoteId, { content: "Send report" });
    await todoist.sync();
    const shared = await provider.sync(todoist.connection, work, new Map());
    expect(shared).toMatchObject({ requests: 0, bytes: 0, full: true });
    expect(shared.changed.map((object) => provider.derive(object, options).tasks[0]?.title)).toEqual([
      "Send report",
    ]);
    expect(todoist.server.requests.filter((request) => request.path === "/api/v1/sync")).toHaveLength(1);
    // Its answer was not applied (say an object was unreadable): the same token again goes to the server.
    const again = await provider.sync(todoist.connection, work, new Map());
    expect(again.requests).toBe(1);
    expect(todoist.server.requests.filter((request) => request.path === "/api/v1/sync")).toHaveLength(2);
  });

  it("starts over with a full sync when the server no longer knows the token", async () => {
    todoist.server.addTask(todoist.collection.remoteId, { content: "Still here" });
    await todoist.sync();
    todoist.server.forgetSyncTokens();
    const changes = await todoist.sync();
    expect(changes.full).toBe(true);
    expect(changes.changed.map((object) => provider.derive(object, options).tasks[0]?.title)).toEqual([
      "Still here",
    ]);
  });

  it("syncs the rest when one task is unreadable, and says why that one is skipped", async () => {
    const project = todoist.collection.remoteId;
    todoist.server.addTask(project, { content: "Readable" });
    const broken = todoist.server.addTask(project, { content: "Broken" });
    // Everything else as Todoist sends it; the priority is not one of Todoist's four numbers.
    todoist.server.putRawItem({ ...broken, priority: "urgent" });
    todoist.server.addTask(project, { content: "Also readable" });
    const changes = await todoist.sync();
    expect(changes.changed).toHaveLength(3);
    const outcomes = changes.changed.map((object) => {
      try {
        return provider.derive(object, options).tasks[0]?.title;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    });
    expect(outcomes[0]).toBe("Readable");
    expect(outcomes[1]).toMatch(new RegExp(`^Todoist task ${String(broken.id)} is unreadable \\(priority: `));
    expect(outcomes[2]).toBe("Also readable");
  });

  it("syncs 500 tasks in one request, then only the few that changed", async () => {
    const project = todoist.collection.remoteId;
    const ids = Array.from({ length: 500 }, (_, index) =>
      String(todoist.server.addTask(project, { content: `Task ${index}` }).id),
    );
    const first = await todoist.sync();
    expect(first).toMatchObject({ full: true, requests: 1 });
    expect(first.changed).toHaveLength(500);
    for (const id of ids.slice(0, 3)) todoist.server.completeTask(id);
    const next = await todoist.sync();
    expect(next).toMatchObject({ full: false, requests: 1 });
    expect(next.changed.map((object) => object.remoteId)).toEqual(ids.slice(0, 3));
    expect(next.bytes).toBeLessThan(first.bytes / 50);
  });
});
