import { afterAll, beforeAll, expect, it } from "vitest";
import { listRunMessages, listRunReceipts } from "../../../db/queries/messages.ts";
import { getRun } from "../../../db/queries/runs.ts";
import { createTask, getTask } from "../../../db/queries/tasks.ts";
import { MODEL_UNAVAILABLE_NOTE } from "../../../src/core/briefing/digest.ts";
import { MAX_BRIEFING_TURNS, runBriefing } from "../../../src/core/briefing/run-briefing.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { type OllamaTestServer, refusedUrl } from "../../servers/ollama-server.ts";
import {
  call,
  LONDON,
  MODEL,
  MORNING_CALLS,
  requestText,
  seedEvent,
  seedTasks,
  seedWeather,
  startModelServer,
  TODAY,
  testDeps,
} from "../fixture.ts";

let server: OllamaTestServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

describeEachDatabase("runBriefing", (getDb) => {
  it("stores every tool call and result as receipts of the run, and the prose tagged with the slot", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedEvent(db, user);
    await seedWeather(db);
    const { deps } = testDeps(db, server.url);
    const before = server.chatRequests(MODEL).length;
    server.script(MODEL, [
      { toolCalls: MORNING_CALLS },
      {
        content:
          "Good morning! Partly cloudy today, 8 to 16 degrees. You have the Dentist at 09:00. " +
          'Renew passport is due today at 14:30, and "File expenses" is overdue.',
      },
    ]);

    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });

    expect(outcome.mode).toBe("agentic");
    expect(outcome.prose).toContain("Dentist at 09:00");
    expect(outcome.grounding).toMatchObject({ unbacked: [], action: "none" });
    expect(outcome.statusRow).toBe("✓ checked calendar · ✓ looked at tasks · ✓ pulled weather");
    expect(server.chatRequests(MODEL).length - before).toBe(2);

    // The model saw the results it asked for, with local times.
    const second = server.chatRequests(MODEL).at(-1);
    const toolMessages = second?.messages.filter((message) => message.role === "tool") ?? [];
    expect(toolMessages.map((message) => message.tool_name)).toEqual([
      "list_tasks",
      "list_tasks",
      "list_events",
      "get_weather",
    ]);
    expect(String(toolMessages[2]?.content)).toContain('"start":"09:00"');
    // The trigger was sent, but nobody stored it as if the user had said it.
    expect(second?.messages[1]).toMatchObject({ role: "user", content: "Generate the morning briefing." });

    const stored = await listRunMessages(db, outcome.runId);
    expect(stored.some((message) => message.role === "user")).toBe(false);
    expect(stored.map((message) => message.role)).toEqual([
      "assistant",
      "tool",
      "tool",
      "tool",
      "tool",
      "assistant",
    ]);
    expect(stored[0]?.toolCalls?.map((toolCall) => toolCall.function.name)).toEqual([
      "list_tasks",
      "list_tasks",
      "list_events",
      "get_weather",
    ]);
    expect(stored.at(-1)?.metadata).toMatchObject({
      briefing_slot: "morning",
      kind: "briefing",
      run_id: outcome.runId,
    });

    const receipts = await listRunReceipts(db, outcome.runId);
    expect(receipts.map((receipt) => [receipt.toolName, receipt.arguments])).toEqual([
      ["list_tasks", { filter: "due_today" }],
      ["list_tasks", { filter: "overdue" }],
      ["list_events", { range: "today" }],
      ["get_weather", {}],
    ]);
    expect(receipts[0]?.at.toISOString()).toBe("2025-06-02T06:00:00.000Z");
    expect(receipts[0]?.result).toMatchObject({
      count: 1,
      tasks: [{ title: "Renew passport", due_time: "14:30" }],
    });

    const run = await getRun(db, outcome.runId);
    expect(run).toMatchObject({
      state: "generated",
      mode: "agentic",
      route: "briefing",
      model: MODEL,
      turns: 2,
      toolCalls: 4,
      localDate: TODAY,
      prose: outcome.prose,
    });
    expect(run?.promptTokens).toBeGreaterThan(0);
    expect(run?.grounding).toMatchObject({ action: "none" });
    expect(run?.timings.totalMs).toBeGreaterThanOrEqual(0);
  });

  it("gives the model an explicit empty calendar, and the digest says so plainly", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedWeather(db);
    const { deps } = testDeps(db, server.url);
    server.script(MODEL, [
      { toolCalls: MORNING_CALLS },
      { content: "Nothing on your calendar today, no tasks due and nothing overdue. It's 8 to 16 degrees." },
    ]);
    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });
    const events = outcome.receipts.find((receipt) => receipt.toolName === "list_events");
    expect(events?.result).toMatchObject({ count: 0, events: [], note: "Nothing on the calendar today." });
    expect(
      String(
        server
          .chatRequests(MODEL)
          .at(-1)
          ?.messages.find((m) => m.tool_name === "list_events")?.content,
      ),
    ).toContain('"events":[]');
    expect(outcome.prose).toContain("Nothing on your calendar today");
    expect(outcome.grounding?.action).toBe("none");

    const down = testDeps(db, await refusedUrl());
    const digest = await runBriefing(down.deps, { user, slot: "morning", trigger: "manual" });
    expect(digest.mode).toBe("digest");
    expect(digest.prose).toContain("Nothing on your calendar today.");
    expect(digest.prose).toContain("No tasks due today.");
    expect(digest.prose).toContain("Nothing overdue.");
  });

  it("refuses a tool outside the allowlist, real or invented, and the loop goes on", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const task = await createTask(db, { userId: user.id, title: "Keep me", dueDate: TODAY });
    const { deps } = testDeps(db, server.url);
    server.script(MODEL, [
      { toolCalls: [call("delete_task", { id: task.id }), call("search_images", { query: "meeting" })] },
      { toolCalls: MORNING_CALLS },
      { content: "Keep me is due today. Nothing on your calendar today." },
    ]);
    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });

    const refused = outcome.receipts.filter((receipt) => receipt.error);
    expect(refused.map((receipt) => receipt.toolName)).toEqual(["delete_task", "search_images"]);
    expect(JSON.stringify(refused[0]?.result)).toMatch(/not available here \(briefing\)/);
    const seen =
      server
        .chatRequests(MODEL)
        .at(-2)
        ?.messages.filter((message) => message.role === "tool") ?? [];
    expect(String(seen[0]?.content)).toContain('Tool \\"delete_task\\" is not available');
    expect(String(seen[1]?.content)).toContain('Tool \\"search_images\\" is not available');
    expect(await getTask(db, user.id, task.id)).toBeDefined();
    // Only read-only tools were offered.
    const offered = (server.chatRequests(MODEL).at(-1)?.tools ?? []).map(
      (tool) => (tool as { function: { name: string } }).function.name,
    );
    expect(offered).toEqual([
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
    const { deps } = testDeps(db, server.url);
    server.script(MODEL, [
      {
        toolCalls: [
          call("list_tasks", { filter: "everything" }),
          call("list_events", { range: "today", user_id: other.id }),
        ],
      },
      { toolCalls: [call("list_tasks", { filter: "due_today", user_id: other.id })] },
      { content: "Water plants is due today." },
    ]);
    const outcome = await runBriefing(deps, { user, slot: "midday", trigger: "manual" });
    const requests = server.chatRequests(MODEL);
    const afterFirst = requests.at(-2)?.messages.filter((message) => message.role === "tool") ?? [];
    expect(String(afterFirst[0]?.content)).toMatch(
      /Invalid arguments for list_tasks: filter: Invalid option/,
    );

    const tasks = outcome.receipts.find((receipt) => receipt.toolName === "list_tasks" && !receipt.error);
    expect(tasks?.arguments).toEqual({ filter: "due_today" });
    expect(JSON.stringify(tasks?.result)).toContain("Water plants");
    expect(JSON.stringify(outcome.receipts)).not.toContain("Secret plan");
    expect(outcome.prose).toBe("Water plants is due today.");
  });

  it(`stops at ${MAX_BRIEFING_TURNS} model turns, warns, and falls back to a digest`, async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const { deps, logger } = testDeps(db, server.url);
    const before = server.chatRequests(MODEL).length;
    server.script(
      MODEL,
      Array.from({ length: MAX_BRIEFING_TURNS }, () => ({
        toolCalls: [call("list_notes", { recent_days: 1 })],
      })),
    );
    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });
    expect(server.chatRequests(MODEL).length - before).toBe(MAX_BRIEFING_TURNS);
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
    const { deps } = testDeps(db, server.url);
    server.script(MODEL, [
      ...Array.from({ length: MAX_BRIEFING_TURNS - 1 }, () => ({
        toolCalls: [call("list_events", { range: "today" })],
      })),
      { content: "Nothing on your calendar today.", toolCalls: [call("list_events", { range: "today" })] },
    ]);
    const outcome = await runBriefing(deps, { user, slot: "midday", trigger: "manual" });
    expect(outcome.mode).toBe("agentic");
    expect(outcome.prose).toBe("Nothing on your calendar today.");
  });

  it("adds the coverage calls the model skipped and asks it once more to finish", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedWeather(db);
    const { deps } = testDeps(db, server.url);
    const before = server.chatRequests(MODEL).length;
    server.script(MODEL, [
      { toolCalls: [call("list_events", { range: "today" })] },
      { content: "A clear day: nothing on your calendar today." },
      {
        content:
          'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue. 8 to 16 degrees.',
      },
    ]);
    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });
    const requests = server.chatRequests(MODEL).slice(before);
    expect(requests).toHaveLength(3);
    const finish = requests[2];
    expect(finish?.tools).toBeUndefined();
    expect(finish?.messages.at(-1)?.content).toMatch(
      /were fetched for you because the briefing must cover them/,
    );
    // The draft written without the missing data is not in the final request.
    expect(requestText(finish ?? { messages: [] })).not.toContain("A clear day");

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
    expect(outcome.receipts).toHaveLength(4);
    expect(outcome.prose).toContain("Renew passport");
    expect(outcome.grounding?.action).toBe("none");
  });

  it("delivers a digest from receipts with a note when the model is down", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedEvent(db, user, "Standup", "2025-06-02T09:15:00Z");
    await seedWeather(db);
    const { deps, logger } = testDeps(db, server.url);
    server.script(MODEL, {
      error: { status: 500, message: "llama runner process has terminated: exit status 2" },
    });
    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });
    expect(outcome.mode).toBe("digest");
    expect(outcome.prose).toContain("Calendar today: 10:15–10:45 Standup.");
    expect(outcome.prose).toContain('Due today: "Renew passport" (due 2025-06-02 14:30, high priority).');
    expect(outcome.prose).toContain('Overdue: "File expenses" (due 2025-05-30).');
    expect(outcome.prose).toContain(
      "Weather: London: partly cloudy, 8°C to 16°C, 20% chance of rain, 11°C now.",
    );
    expect(outcome.prose).toContain(MODEL_UNAVAILABLE_NOTE);
    expect(outcome.statusRow).toContain("✓ checked calendar");
    expect(logger.warnings.map((warning) => warning.message)).toContain(
      "briefing model failed; sending a digest",
    );
    const run = await getRun(db, outcome.runId);
    expect(run).toMatchObject({ state: "generated", mode: "digest" });
    expect(run?.reason).toMatch(/model unavailable/);
    expect((await listRunReceipts(db, outcome.runId)).length).toBeGreaterThanOrEqual(4);
  });

  it("marks a failed data source ✗ in the status row", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const { deps } = testDeps(db, server.url);
    server.script(MODEL, [{ toolCalls: MORNING_CALLS }, { content: "Nothing on your calendar today." }]);
    const outcome = await runBriefing(deps, { user, slot: "morning", trigger: "manual" });
    expect(outcome.statusRow).toBe("✓ checked calendar · ✓ looked at tasks · ✗ pulled weather");
  });
});
