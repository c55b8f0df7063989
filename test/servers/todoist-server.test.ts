/**
 * The Todoist test server, driven by the official SDK: what it answers is what `@doist/todoist-sdk` accepts
 * (its zod schemas are strict), and what the SDK sends is what the server understands.
 */
import { TodoistApi, TodoistRequestError } from "@doist/todoist-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTodoistServer, type TodoistServer } from "./todoist-server.ts";

let server: TodoistServer;
let api: TodoistApi;
let inbox: string;

beforeEach(async () => {
  server = await startTodoistServer();
  api = new TodoistApi(server.token, { baseUrl: server.url });
  inbox = server.addProject("Inbox");
});
afterEach(() => server.close());

async function refusal(promise: Promise<unknown>): Promise<TodoistRequestError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof TodoistRequestError))
    throw new Error(`expected a TodoistRequestError, got ${String(error)}`);
  return error;
}

describe("Todoist test server, through the SDK", () => {
  it("lists projects and labels the SDK's schemas accept", async () => {
    server.addProject("Work");
    server.addLabel("errand");
    const projects = await api.getProjects();
    expect(projects.results.map((project) => project.name)).toEqual(["Inbox", "Work"]);
    expect((await api.getLabels()).results.map((label) => label.name)).toEqual(["errand"]);
  });

  it("pages tasks with a cursor", async () => {
    for (let index = 0; index < 5; index++) server.addTask(inbox, { content: `Task ${index}` });
    const first = await api.getTasks({ projectId: inbox, limit: 2 });
    expect(first.results.map((task) => task.content)).toEqual(["Task 0", "Task 1"]);
    expect(first.nextCursor).not.toBeNull();
    const second = await api.getTasks({ projectId: inbox, limit: 2, cursor: first.nextCursor });
    const third = await api.getTasks({ projectId: inbox, limit: 2, cursor: second.nextCursor });
    expect(third.results.map((task) => task.content)).toEqual(["Task 4"]);
    expect(third.nextCursor).toBeNull();
  });

  it("creates, updates, closes, reopens and deletes a task", async () => {
    const created = await api.addTask({
      content: "Buy milk",
      projectId: inbox,
      priority: 4,
      dueDate: "2026-12-05",
    });
    expect(created).toMatchObject({ content: "Buy milk", priority: 4, due: { date: "2026-12-05" } });
    const updated = await api.updateTask(created.id, { content: "Buy oat milk", dueString: null });
    expect(updated.content).toBe("Buy oat milk");
    expect(updated.due).toBeNull();
    expect(updated.updatedAt?.getTime()).toBeGreaterThan(
      created.updatedAt?.getTime() ?? Number.POSITIVE_INFINITY,
    );
    await api.closeTask(created.id);
    expect((await api.getTask(created.id)).checked).toBe(true);
    await api.reopenTask(created.id);
    expect((await api.getTask(created.id)).checked).toBe(false);
    await api.deleteTask(created.id);
    const gone = await refusal(api.getTask(created.id));
    expect(gone.httpStatusCode).toBe(404);
    expect(gone.responseData).toEqual({
      error: "Task not found",
      error_code: 404,
      error_extra: {},
      error_tag: "NOT_FOUND",
      http_code: 404,
    });
  });

  it("answers a wrong token with 401 and an error body", async () => {
    const stranger = new TodoistApi("wrong-token", { baseUrl: server.url });
    const error = await refusal(stranger.getProjects());
    expect(error.httpStatusCode).toBe(401);
    expect(error.isAuthenticationError()).toBe(true);
    expect(error.responseData).toMatchObject({ error_tag: "AUTH_INVALID_TOKEN", http_code: 401 });
  });

  it("syncs in full, then only what changed, with deletions marked", async () => {
    const kept = server.addTask(inbox, { content: "Kept" });
    const edited = server.addTask(inbox, { content: "Edited" });
    const removed = server.addTask(inbox, { content: "Removed" });
    const full = await api.sync({ syncToken: "*", resourceTypes: ["items"] });
    expect(full.fullSync).toBe(true);
    expect(full.items?.map((item) => item.content)).toEqual(["Kept", "Edited", "Removed"]);

    const quiet = await api.sync({ syncToken: full.syncToken, resourceTypes: ["items"] });
    expect(quiet.fullSync).toBe(false);
    expect(quiet.items).toEqual([]);

    server.editTask(String(edited.id), { content: "Edited on the phone" });
    server.deleteTask(String(removed.id));
    const changes = await api.sync({ syncToken: quiet.syncToken, resourceTypes: ["items"] });
    expect(changes.items?.map((item) => [item.content, item.isDeleted])).toEqual([
      ["Edited on the phone", false],
      ["Removed", true],
    ]);
    expect(changes.items?.some((item) => item.id === kept.id)).toBe(false);
  });

  it("answers a token it no longer knows with a full sync", async () => {
    server.addTask(inbox, { content: "One" });
    const first = await api.sync({ syncToken: "*", resourceTypes: ["items"] });
    server.forgetSyncTokens();
    const again = await api.sync({ syncToken: first.syncToken, resourceTypes: ["items"] });
    expect(again.fullSync).toBe(true);
    expect(again.items?.map((item) => item.content)).toEqual(["One"]);
  });

  it("runs sync commands and reports a failed one as an error", async () => {
    const task = server.addTask(inbox, { content: "Close me" });
    await api.sync({ commands: [{ type: "item_close", uuid: "c1", args: { id: String(task.id) } }] });
    expect(server.task(String(task.id))?.checked).toBe(true);
    const error = await refusal(
      api.sync({ commands: [{ type: "item_close", uuid: "c2", args: { id: "404404" } }] }),
    );
    expect(error.message).toBe("Item not found");
  });

  it("scripts 429 with Retry-After, counts requests and bytes", async () => {
    server.throttle(1, 7);
    const error = await refusal(api.getProjects());
    expect(error.httpStatusCode).toBe(429);
    expect(error.responseData).toMatchObject({ error_tag: "LIMITS_REACHED" });
    await api.getProjects();
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
    expect(server.bytesSent()).toBeGreaterThan(0);
    const seen: string[] = [];
    const counting = new TodoistApi(server.token, {
      baseUrl: server.url,
      customFetch: async (url, init) => {
        const response = await fetch(url, init);
        seen.push(response.headers.get("retry-after") ?? "none");
        const text = await response.text();
        return {
          ok: response.ok,
          status: response.status,
          statusText: response.statusText,
          headers: Object.fromEntries(response.headers),
          text: async () => text,
          json: async () => JSON.parse(text) as unknown,
        };
      },
    });
    server.throttle(1, 3);
    await refusal(counting.getProjects());
    expect(seen).toEqual(["3"]);
  });
});
