import { expect, it } from "vitest";
import { z } from "zod";
import { ConflictError } from "../../../src/core/accounts/ports.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { briefingToolSet, chatToolSet } from "../../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { defineTool, type ToolContext } from "../../../src/core/tools/define-tool.ts";
import { dispatchAll, dispatchToolCall } from "../../../src/core/tools/dispatch.ts";
import { createToolRegistry, createToolSet } from "../../../src/core/tools/registry.ts";
import {
  createEvent,
  createProject,
  createTask,
  createTestUser,
  describeInMemory,
  getTask,
} from "../../helpers/test-store.ts";
import { toolContextFor } from "../fixture.ts";

const registry = createDefaultToolRegistry();
const clock = fixedClock("2025-06-02T06:00:00Z");
const run = (name: string, args: Record<string, unknown> = {}) => ({
  id: `c_${name}`,
  function: { name, arguments: args },
});

describeInMemory("tool dispatch", (getStore) => {
  async function twoUsers() {
    const store = getStore();
    const me = await createTestUser(store, { timeZone: "Europe/London" });
    const other = await createTestUser(store, { timeZone: "Europe/London" });
    const context: ToolContext = toolContextFor(store, me, clock);
    return { store, me, other, context };
  }

  it("ignores a user_id in the arguments and never reaches another user's rows by id", async () => {
    const { store, me, other, context } = await twoUsers();
    const theirs = await createTask(store, {
      userId: other.id,
      title: "Their secret",
      dueDate: "2025-06-02",
    });
    const project = await createProject(store, { userId: other.id, name: "Their project" });
    await createTask(store, { userId: me.id, title: "Mine", dueDate: "2025-06-02" });
    const tools = chatToolSet(registry);

    const listed = await dispatchToolCall(
      tools,
      run("list_tasks", { filter: "due_today", user_id: other.id }),
      context,
    );
    expect(listed.arguments).toEqual({ filter: "due_today" });
    expect(JSON.stringify(listed.result)).toContain("Mine");
    expect(JSON.stringify(listed.result)).not.toContain("Their secret");

    const completed = await dispatchToolCall(
      tools,
      run("complete_task", { id: theirs.id, user_id: other.id }),
      context,
    );
    expect(completed).toMatchObject({ error: true, result: { error: `no task ${theirs.id}` } });
    expect((await getTask(store, other.id, theirs.id))?.status).toBe("open");

    const renamed = await dispatchToolCall(
      tools,
      run("update_project", { id: project.id, name: "Mine now" }),
      context,
    );
    expect(renamed.error).toBe(true);
    const searched = await dispatchToolCall(tools, run("search_projects", { query: "Their" }), context);
    expect(searched.result).toMatchObject({ count: 0, projects: [] });
    expect(me.id).not.toBe(other.id);
  });

  it("refuses a tool outside the set, registered or invented, with a result the model can read", async () => {
    const { context } = await twoUsers();
    const tools = briefingToolSet(registry);
    const [deleting, invented] = await dispatchAll(
      tools,
      [run("delete_task", { id: 1 }), run("search_images", { q: "x" })],
      context,
    );
    expect(deleting).toMatchObject({ error: true, name: "delete_task" });
    expect(JSON.stringify(deleting?.result)).toContain("list_tasks, list_events");
    expect(invented).toMatchObject({ error: true, name: "search_images", arguments: { q: "x" } });
  });

  it("returns zod's message for invalid arguments and a thrown handler as an error value", async () => {
    const { context } = await twoUsers();
    const tools = chatToolSet(registry);
    const invalid = await dispatchToolCall(
      tools,
      run("create_task", { title: "", due_date: "Friday" }),
      context,
    );
    expect(invalid.error).toBe(true);
    expect(String((invalid.result as { error: string }).error)).toMatch(
      /title: must not be empty; due_date: must be a date/,
    );

    const exploding = defineTool({
      name: "explode",
      description: "",
      readOnly: true,
      input: z.object({}),
      handler: async () => {
        throw new Error("boom");
      },
    });
    const set = createToolSet(createToolRegistry([exploding]), "test", ["explode"]);
    const thrown = await dispatchToolCall(set, run("explode"), context);
    expect(thrown).toMatchObject({ error: true, result: { error: "boom" } });
  });

  it("hands the model what a failure found out beside its message, and only that", async () => {
    const { context } = await twoUsers();
    const current = { id: 7, title: "Book flights and hotel", due_time: "15:00" };
    const refusing = defineTool({
      name: "refuse",
      description: "",
      readOnly: true,
      input: z.object({}),
      handler: async () => {
        throw new ConflictError('task 7 "Book flights" was changed on the server', undefined, current);
      },
    });
    const set = createToolSet(createToolRegistry([refusing]), "test", ["refuse"]);
    const refused = await dispatchToolCall(set, run("refuse"), context);
    expect(refused).toMatchObject({ error: true });
    expect(refused.result).toEqual({ error: 'task 7 "Book flights" was changed on the server', current });
  });

  it("does not run a destructive tool where nobody can confirm it", async () => {
    const { store, me, context } = await twoUsers();
    const task = await createTask(store, { userId: me.id, title: "Keep" });
    const outcome = await dispatchToolCall(
      chatToolSet(registry),
      run("delete_task", { id: task.id }),
      context,
    );
    expect(outcome.error).toBe(true);
    expect(await getTask(store, me.id, task.id)).toBeDefined();
  });

  it("creates tasks, events and notes as the acting user with local dates and times", async () => {
    const { store, me, context } = await twoUsers();
    const tools = chatToolSet(registry);
    const task = await dispatchToolCall(
      tools,
      run("create_task", { title: "Renew passport", due_date: "2025-06-06", due_time: "9:30" }),
      context,
    );
    expect(task.result).toMatchObject({
      created: { title: "Renew passport", due: "2025-06-06", due_time: "09:30" },
    });
    const event = await dispatchToolCall(
      tools,
      run("create_event", { title: "Lunch", date: "2025-06-02", start_time: "12:30", end_time: "13:15" }),
      context,
    );
    expect(event.result).toMatchObject({
      created: { title: "Lunch", date: "2025-06-02", start: "12:30", end: "13:15" },
    });
    const listed = await dispatchToolCall(tools, run("list_events", { range: "today" }), context);
    expect(listed.result).toMatchObject({
      count: 1,
      events: [{ title: "Lunch", start: "12:30", end: "13:15" }],
    });
    const note = await dispatchToolCall(tools, run("create_note", { body: "Call mum back" }), context);
    expect(note.result).toMatchObject({ created: { body: "Call mum back", written: "2025-06-02 07:00" } });
    await createEvent(store, me.id, {
      title: "All hands",
      allDay: true,
      startDate: "2025-06-03",
      timeZone: "Europe/London",
    });
    const tomorrow = await dispatchToolCall(tools, run("list_events", { range: "tomorrow" }), context);
    expect(tomorrow.result).toMatchObject({
      events: [{ title: "All hands", date: "2025-06-03", all_day: true }],
    });
  });

  it("says plainly when the weather is unavailable or asked for another place", async () => {
    const { context } = await twoUsers();
    const weather = await dispatchToolCall(briefingToolSet(registry), run("get_weather"), context);
    expect(weather.error).toBe(true);
    expect(String((weather.result as { error: string }).error)).toMatch(/weather unavailable/);
    const elsewhere = await dispatchToolCall(
      briefingToolSet(registry),
      run("get_weather", { location: "Paris" }),
      context,
    );
    expect(String((elsewhere.result as { error: string }).error)).toMatch(/only the user's saved location/);
  });

  it("holds any change for a Confirm that shows exactly what would change, and runs nothing until then", async () => {
    const { store, me, context } = await twoUsers();
    const project = await createProject(store, { userId: me.id, name: "Travel" });
    const task = await createTask(store, {
      userId: me.id,
      title: "Renew passport",
      dueDate: "2025-06-02",
      priority: "high",
      projectId: project.id,
    });
    const filed: string[] = [];
    const confirming: ToolContext = {
      ...context,
      requestConfirmation: async (request) => {
        filed.push(request.summary);
        return { id: filed.length, summary: request.summary, expiresAt: new Date(0) };
      },
    };
    const tools = chatToolSet(registry);
    const held = await dispatchAll(
      tools,
      [
        run("update_task", { id: task.id, due_date: "2025-06-05", priority: "low" }),
        run("complete_task", { id: task.id }),
        run("create_event", { title: "Flight", date: "2025-06-06", start_time: "09:15", end_time: "11:40" }),
        run("create_note", { title: "Packing", body: "Passport, charger" }),
        run("update_project", { id: project.id, status: "paused" }),
      ],
      confirming,
      { confirmChanges: true },
    );
    expect(held.every((outcome) => outcome.pending !== undefined && !outcome.error)).toBe(true);
    // In call order (the calls of a turn run at once, so they are filed in any order).
    expect(held.map((outcome) => outcome.pending?.summary)).toEqual([
      `Change task ${task.id} "Renew passport": due date "2025-06-02" → "2025-06-05"; priority "high" → "low"?`,
      `Mark task ${task.id} "Renew passport" done?`,
      'Add event "Flight" on 2025-06-06 09:15–11:40?',
      'Save a note "Packing": "Passport, charger"?',
      `Change project ${project.id} "Travel": status active → paused?`,
    ]);
    expect(await getTask(store, me.id, task.id)).toMatchObject({ dueDate: "2025-06-02", status: "open" });
    // Reads never wait.
    const listed = await dispatchToolCall(tools, run("list_tasks", { filter: "open" }), confirming, {
      confirmChanges: true,
    });
    expect(listed.pending).toBeUndefined();
    expect(filed).toHaveLength(5);
  });
});
