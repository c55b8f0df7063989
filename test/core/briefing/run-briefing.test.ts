import { expect, it } from "vitest";
import { listRunMessages } from "../../../db/queries/messages.ts";
import { getRun } from "../../../db/queries/runs.ts";
import { createTask, getTask } from "../../../db/queries/tasks.ts";
import { MAX_BRIEFING_TURNS } from "../../../src/core/briefing/run-briefing.ts";
import type { BriefingEvent } from "../../../src/core/events.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { call, offeredTools, requestText, scriptedModel } from "../../helpers/scripted-model.ts";
import { LONDON, MORNING_CALLS, seedEvent, seedTasks, seedWeather, TODAY, testCore } from "../fixture.ts";

describeEachDatabase("runBriefing", (getDb) => {
  it("gives the model an explicit empty calendar, and the digest says so plainly", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedWeather(db);
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    model.script(
      { toolCalls: MORNING_CALLS },
      { content: "Nothing on your calendar today, no tasks due and nothing overdue. It's 8 to 16 degrees." },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    const events = outcome.receipts.find((receipt) => receipt.toolName === "list_events");
    expect(events?.result).toMatchObject({ count: 0, events: [], note: "Nothing on the calendar today." });
    const seen = model.requests
      .at(-1)
      ?.messages.find((message) => message.role === "tool" && message.tool_name === "list_events");
    expect(seen?.content).toContain('"events":[]');
    expect(outcome.prose).toContain("Nothing on your calendar today");
    expect(outcome.grounding?.action).toBe("none");

    const down = scriptedModel({ reply: () => ({ error: new Error("fetch failed: connect ECONNREFUSED") }) });
    const digest = await testCore(db, down).assistant.brief(user.id, { slot: "morning" });
    expect(digest.mode).toBe("digest");
    expect(digest.prose).toContain("Nothing on your calendar today.");
    expect(digest.prose).toContain("No tasks due today.");
    expect(digest.prose).toContain("Nothing overdue.");
    expect((await getRun(db, digest.runId))?.reason).toBe(
      "model unavailable: model request failed: fetch failed: connect ECONNREFUSED",
    );
  });

  it("refuses a tool outside the allowlist, real or invented, and the loop goes on", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const task = await createTask(db, { userId: user.id, title: "Keep me", dueDate: TODAY });
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    model.script(
      { toolCalls: [call("delete_task", { id: task.id }), call("search_images", { query: "meeting" })] },
      { toolCalls: MORNING_CALLS },
      { content: "Keep me is due today. Nothing on your calendar today." },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    const refused = outcome.receipts.filter((receipt) => receipt.error);
    expect(refused.map((receipt) => receipt.toolName)).toEqual(["delete_task", "search_images"]);
    expect(JSON.stringify(refused[0]?.result)).toMatch(/not available here \(briefing\)/);
    const seen = model.requests.at(-2)?.messages.filter((message) => message.role === "tool") ?? [];
    expect(seen[0]?.content).toContain('Tool \\"delete_task\\" is not available');
    expect(seen[1]?.content).toContain('Tool \\"search_images\\" is not available');
    expect(await getTask(db, user.id, task.id)).toBeDefined();
    // Only read-only tools were offered.
    expect(offeredTools(model.requests.at(-1))).toEqual([
      "list_tasks",
      "list_events",
      "get_weather",
      "get_rss_items",
      "list_projects",
      "search_projects",
      "list_notes",
    ]);
    expect(outcome.mode).toBe("agentic");
  });

  it("returns invalid arguments to the model as a tool error and ignores a user_id", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const other = await createTestUser(db, LONDON);
    await createTask(db, { userId: other.id, title: "Secret plan", dueDate: TODAY });
    await createTask(db, { userId: user.id, title: "Water plants", dueDate: TODAY });
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    model.script(
      {
        toolCalls: [
          call("list_tasks", { filter: "everything" }),
          call("list_events", { range: "today", user_id: other.id }),
        ],
      },
      { toolCalls: [call("list_tasks", { filter: "due_today", user_id: other.id })] },
      { content: "Water plants is due today." },
    );
    const outcome = await assistant.brief(user.id, { slot: "midday" });
    const afterFirst = model.requests.at(-2)?.messages.filter((message) => message.role === "tool") ?? [];
    expect(afterFirst[0]?.content).toMatch(/Invalid arguments for list_tasks: filter: Invalid option/);

    const tasks = outcome.receipts.find((receipt) => receipt.toolName === "list_tasks" && !receipt.error);
    expect(tasks?.arguments).toEqual({ filter: "due_today" });
    expect(JSON.stringify(tasks?.result)).toContain("Water plants");
    expect(JSON.stringify(outcome.receipts)).not.toContain("Secret plan");
    expect(outcome.prose).toBe("Water plants is due today.");
  });

  it(`stops at ${MAX_BRIEFING_TURNS} model turns, warns, and falls back to a digest`, async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const model = scriptedModel();
    const { assistant, logger } = testCore(db, model);
    model.script(
      ...Array.from({ length: MAX_BRIEFING_TURNS }, () => ({
        toolCalls: [call("list_notes", { recent_days: 1 })],
      })),
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(model.requests).toHaveLength(MAX_BRIEFING_TURNS);
    expect(logger.warnings.map((warning) => warning.message)).toContain(
      "briefing hit the turn cap; using the last prose or a digest",
    );
    expect(outcome.mode).toBe("digest");
    expect(outcome.prose).toContain("Nothing on your calendar today.");
    // The runner made the coverage calls itself.
    expect(outcome.receipts.filter((receipt) => receipt.toolName === "list_notes")).toHaveLength(
      MAX_BRIEFING_TURNS,
    );
    expect(outcome.receipts.map((receipt) => receipt.toolName)).toEqual(
      expect.arrayContaining(["list_tasks", "list_events", "get_weather"]),
    );
    expect((await getRun(db, outcome.runId))?.reason).toMatch(/8-turn cap/);
  });

  it("uses the last prose written when the cap is hit", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    model.script(
      ...Array.from({ length: MAX_BRIEFING_TURNS - 1 }, () => ({
        toolCalls: [call("list_events", { range: "today" })],
      })),
      { content: "Nothing on your calendar today.", toolCalls: [call("list_events", { range: "today" })] },
    );
    const outcome = await assistant.brief(user.id, { slot: "midday" });
    expect(outcome.mode).toBe("agentic");
    expect(outcome.prose).toBe("Nothing on your calendar today.");
  });

  it("adds the coverage calls the model skipped and asks it once more to finish", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedWeather(db);
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    model.script(
      { toolCalls: [call("list_events", { range: "today" })] },
      { content: "A clear day: nothing on your calendar today." },
      {
        content:
          'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue. 8 to 16 degrees.',
      },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(model.requests).toHaveLength(3);
    const finish = model.requests[2];
    expect(finish?.tools).toBeUndefined();
    expect(finish?.messages.at(-1)?.content).toMatch(
      /were fetched for you because the briefing must cover them/,
    );
    // The draft written without the missing data is not in the final request.
    expect(requestText(finish)).not.toContain("A clear day");

    const stored = await listRunMessages(db, outcome.runId);
    const runnerTurn = stored.find(
      (message) => message.metadata?.by === "runner" && message.role === "assistant",
    );
    expect(
      runnerTurn?.toolCalls?.map((toolCall) => [toolCall.function.name, toolCall.function.arguments]),
    ).toEqual([
      ["list_tasks", { filter: "due_today" }],
      ["list_tasks", { filter: "overdue" }],
      ["get_weather", {}],
    ]);
    // Runner-made calls take their ids from the injected generator.
    expect(runnerTurn?.toolCalls?.map((toolCall) => toolCall.id)).toEqual([
      "runner_1",
      "runner_2",
      "runner_3",
    ]);
    expect(outcome.receipts).toHaveLength(4);
    expect(outcome.prose).toContain("Renew passport");
    expect(outcome.grounding?.action).toBe("none");
  });

  it("marks a failed data source ✗ in the status row", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const model = scriptedModel();
    const { assistant } = testCore(db, model);
    model.script({ toolCalls: MORNING_CALLS }, { content: "Nothing on your calendar today." });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.statusRow).toBe("✓ checked calendar · ✓ looked at tasks · ✗ pulled weather");
  });

  it("reports progress as typed events: each model turn and each tool result, the runner's included", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    await seedEvent(db, user);
    const model = scriptedModel({ name: "qwen-test" });
    const { assistant } = testCore(db, model);
    model.script(
      { toolCalls: [call("list_events", { range: "today" }), call("list_tasks", { filter: "due_today" })] },
      { content: "The Dentist is at 09:00." },
      { content: "The Dentist is at 09:00 and nothing is overdue." },
    );
    const events: BriefingEvent[] = [];
    await assistant.brief(user.id, {
      slot: "morning",
      onEvent: (event) => {
        events.push(event);
        // A broken renderer must not stop the briefing.
        throw new Error("renderer bug");
      },
    });
    expect(events).toEqual([
      { type: "model-turn", turn: 1, toolCalls: 2, model: "qwen-test", endpoint: "scripted" },
      { type: "tool-result", tool: "list_events", ok: true, by: "model" },
      { type: "tool-result", tool: "list_tasks", ok: true, by: "model" },
      { type: "model-turn", turn: 2, toolCalls: 0, model: "qwen-test", endpoint: "scripted" },
      // Coverage: the runner adds what the morning must have looked at; the weather has no location.
      { type: "tool-result", tool: "list_tasks", ok: true, by: "runner" },
      { type: "tool-result", tool: "get_weather", ok: false, by: "runner" },
      { type: "model-turn", turn: 3, toolCalls: 0, model: "qwen-test", endpoint: "scripted" },
    ]);
  });
});
