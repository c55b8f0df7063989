/**
 * Briefings end to end through the official `ollama` client and the HTTP Ollama test server: what goes
 * over the wire, and what a failing server turns into. Everything else about the runner is tested with the
 * in-process scripted model (run-briefing.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { listRunMessages, listRunReceipts } from "../../../db/queries/messages.ts";
import { getRun } from "../../../db/queries/runs.ts";
import { MODEL_UNAVAILABLE_NOTE } from "../../../src/core/briefing/digest.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import type { OllamaTestServer } from "../../servers/ollama-server.ts";
import {
  LONDON,
  MODEL,
  MORNING_CALLS,
  modelClientFor,
  seedEvent,
  seedTasks,
  seedWeather,
  startModelServer,
  TODAY,
  testCore,
} from "../fixture.ts";

let server: OllamaTestServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

describeEachDatabase("briefings over the Ollama HTTP API", (getDb) => {
  it("stores every tool call and result as receipts of the run, and the prose tagged with the slot", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedEvent(db, user);
    await seedWeather(db);
    const { assistant } = testCore(db, modelClientFor(server.url));
    const before = server.chatRequests(MODEL).length;
    server.script(MODEL, [
      { toolCalls: MORNING_CALLS },
      {
        content:
          "Good morning! Partly cloudy today, 8 to 16 degrees. You have the Dentist at 09:00. " +
          'Renew passport is due today at 14:30, and "File expenses" is overdue.',
      },
    ]);

    const outcome = await assistant.brief(user.id, { slot: "morning" });

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

  it("delivers a digest from receipts with a note when the model is down", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedEvent(db, user, "Standup", "2025-06-02T09:15:00Z");
    await seedWeather(db);
    const { assistant, logger } = testCore(db, modelClientFor(server.url));
    server.script(MODEL, {
      error: { status: 500, message: "llama runner process has terminated: exit status 2" },
    });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
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
});
