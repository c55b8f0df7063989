import { expect, it } from "vitest";
import { MAX_BRIEFING_TURNS } from "../../../src/core/briefing/run-briefing.ts";
import type { BriefingEvent } from "../../../src/core/events.ts";
import { call, offeredTools, requestText, scriptedModel } from "../../helpers/scripted-model.ts";
import {
  createTask,
  createTestUser,
  describeInMemory,
  getRun,
  getTask,
  listRunMessages,
} from "../../helpers/test-store.ts";
import {
  LONDON,
  MORNING_COVERAGE,
  MORNING_STATUS_ROW,
  seedEvent,
  seedTasks,
  seedWeather,
  TODAY,
  testCore,
} from "../fixture.ts";

const toolCallsOf = (message: { tool_calls?: Array<{ function: { name: string; arguments: unknown } }> }) =>
  (message.tool_calls ?? []).map((toolCall) => [toolCall.function.name, toolCall.function.arguments]);

describeInMemory("runBriefing", (getStore) => {
  it("makes the morning's coverage calls before the model speaks, as a real tool turn, so one request suffices", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script({
      content:
        'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue. 8 to 16 degrees.',
    });
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    expect(model.requests).toHaveLength(1);
    const [first] = model.requests;
    // system, the trigger, then the runner's calls as an assistant turn followed by each result: no fake user turn.
    expect(first?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      ...MORNING_COVERAGE.map(() => "tool"),
    ]);
    expect(first?.messages[1]).toEqual({ role: "user", content: "Generate the morning briefing." });
    const turn = first?.messages[2];
    if (turn?.role !== "assistant") throw new Error("expected the runner's tool turn");
    expect(toolCallsOf(turn)).toEqual(MORNING_COVERAGE);
    // Each result answers its call by id and name; the ids come from the injected generator.
    const results = first?.messages.slice(3) ?? [];
    expect(turn.tool_calls?.map((toolCall) => toolCall.id)).toEqual(
      MORNING_COVERAGE.map((_, index) => `runner_${index + 1}`),
    );
    expect(results.map((message) => (message.role === "tool" ? message.tool_call_id : undefined))).toEqual(
      turn.tool_calls?.map((toolCall) => toolCall.id),
    );
    expect(results.map((message) => (message.role === "tool" ? message.tool_name : undefined))).toEqual(
      MORNING_COVERAGE.map(([name]) => name),
    );
    // An empty calendar is an explicit receipt, not silence.
    const calendar = results[MORNING_COVERAGE.findIndex(([name]) => name === "list_events")];
    expect(String(calendar?.content)).toContain('"events":[]');
    expect(String(calendar?.content)).toContain("Nothing on the calendar today.");
    // The model may still call any other briefing tool.
    expect(offeredTools(first)).toContain("list_notes");

    expect(outcome.mode).toBe("agentic");
    expect(outcome.grounding?.action).toBe("none");
    expect(outcome.statusRow).toBe(MORNING_STATUS_ROW);
    const stored = await listRunMessages(store, outcome.runId);
    expect(stored.map((message) => message.role)).toEqual([
      "assistant",
      ...MORNING_COVERAGE.map(() => "tool"),
      "assistant",
    ]);
    expect(stored[0]?.metadata).toMatchObject({ kind: "tool_calls", by: "runner" });
    expect(stored.slice(1, -1).every((message) => message.metadata.by === "runner")).toBe(true);
    expect(await getRun(store, outcome.runId)).toMatchObject({
      turns: 1,
      toolCalls: MORNING_COVERAGE.length,
    });
  });

  it("lets the model call a tool the receipts do not cover, then write: two requests", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedWeather(store);
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script(
      { toolCalls: [call("list_notes", { recent_days: 1 })] },
      { content: "Nothing on your calendar today and no notes from yesterday." },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(model.requests).toHaveLength(2);
    expect(requestText(model.requests[1])).toContain('"notes":[]');
    expect(outcome.receipts.map((receipt) => receipt.toolName)).toEqual([
      ...MORNING_COVERAGE.map(([name]) => name),
      "list_notes",
    ]);
    expect(outcome.mode).toBe("agentic");
    expect(outcome.statusRow).toBe(`${MORNING_STATUS_ROW} · ✓ read notes`);
  });

  it("writes the digest from the runner's receipts when the model is down", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedWeather(store);
    const down = scriptedModel({ reply: () => ({ error: new Error("fetch failed: connect ECONNREFUSED") }) });
    const digest = await testCore(store, down).assistant.brief(user.id, { slot: "morning" });
    expect(down.requests).toHaveLength(1);
    expect(digest.mode).toBe("digest");
    expect(digest.prose).toContain("Nothing on your calendar today.");
    expect(digest.prose).toContain("No tasks due today.");
    expect(digest.prose).toContain("Nothing overdue.");
    expect(digest.prose).toContain("Weather: London: partly cloudy, 8°C to 16°C");
    // The digest needed no calls of its own: the receipts were there before the model was asked.
    expect(digest.receipts).toHaveLength(MORNING_COVERAGE.length);
    expect((await getRun(store, digest.runId))?.reason).toBe(
      "model unavailable: model request failed: fetch failed: connect ECONNREFUSED",
    );
  });

  it("refuses a tool outside the allowlist, real or invented, and the loop goes on", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const task = await createTask(store, { userId: user.id, title: "Keep me", dueDate: TODAY });
    await seedWeather(store);
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script(
      { toolCalls: [call("delete_task", { id: task.id }), call("search_images", { query: "meeting" })] },
      { content: "Keep me is due today. Nothing on your calendar today." },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    const refused = outcome.receipts.filter((receipt) => receipt.error);
    expect(refused.map((receipt) => receipt.toolName)).toEqual(["delete_task", "search_images"]);
    expect(JSON.stringify(refused[0]?.result)).toMatch(/not available here \(briefing\)/);
    const seen = model.requests[1]?.messages.filter((message) => message.role === "tool").slice(-2) ?? [];
    expect(seen[0]?.content).toContain('Tool \\"delete_task\\" is not available');
    expect(seen[1]?.content).toContain('Tool \\"search_images\\" is not available');
    expect(await getTask(store, user.id, task.id)).toBeDefined();
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
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const other = await createTestUser(store, LONDON);
    await createTask(store, { userId: other.id, title: "Secret plan", dueDate: TODAY, priority: "high" });
    await createTask(store, { userId: user.id, title: "Water plants", dueDate: TODAY, priority: "high" });
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script(
      {
        toolCalls: [
          call("list_tasks", { filter: "everything" }),
          call("list_events", { range: "tomorrow", user_id: other.id }),
        ],
      },
      { toolCalls: [call("list_tasks", { filter: "high_priority", user_id: other.id })] },
      { content: "Water plants is due today." },
    );
    const outcome = await assistant.brief(user.id, { slot: "midday" });
    const afterFirst = model.requests[1]?.messages.filter((message) => message.role === "tool") ?? [];
    expect(afterFirst.at(-2)?.content).toMatch(/Invalid arguments for list_tasks: filter: Invalid option/);

    const tasks = outcome.receipts.find(
      (receipt) => receipt.toolName === "list_tasks" && receipt.arguments.filter === "high_priority",
    );
    expect(tasks?.arguments).toEqual({ filter: "high_priority" });
    expect(JSON.stringify(tasks?.result)).toContain("Water plants");
    expect(JSON.stringify(outcome.receipts)).not.toContain("Secret plan");
    expect(outcome.prose).toBe("Water plants is due today.");
  });

  it(`stops at ${MAX_BRIEFING_TURNS} model turns, warns, and falls back to a digest`, async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const model = scriptedModel();
    const { assistant, logger } = testCore(store, model);
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
    expect(outcome.receipts.filter((receipt) => receipt.toolName === "list_notes")).toHaveLength(
      MAX_BRIEFING_TURNS,
    );
    expect((await getRun(store, outcome.runId))?.reason).toMatch(/8-turn cap/);
  });

  it("uses the last prose written when the cap is hit", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
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

  it("marks a failed data source ✗ in the status row", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script({ content: "Nothing on your calendar today." });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.statusRow).toBe(MORNING_STATUS_ROW.replace("✓ pulled weather", "✗ pulled weather"));
    // The model read why: no location, said plainly.
    expect(requestText(model.requests[0])).toContain("no location is set for this user");
  });

  it("reports progress as typed events: the runner's receipts first, then each model turn and its tool results", async () => {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    await seedEvent(store, user);
    const model = scriptedModel({ name: "qwen-test" });
    const { assistant } = testCore(store, model);
    model.script(
      { toolCalls: [call("list_notes", { recent_days: 1 })] },
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
      // The weather has no location: the runner's call fails, and says so.
      ...MORNING_COVERAGE.map(([tool]) => ({
        type: "tool-result",
        tool,
        ok: tool !== "get_weather",
        by: "runner",
      })),
      { type: "model-turn", turn: 1, toolCalls: 1, model: "qwen-test", endpoint: "scripted" },
      { type: "tool-result", tool: "list_notes", ok: true, by: "model" },
      { type: "model-turn", turn: 2, toolCalls: 0, model: "qwen-test", endpoint: "scripted" },
    ]);
  });
});
