/**
 * Briefings end to end through the official `ollama` client and the HTTP Ollama test server: what goes
 * over the wire, how many round trips a model's tool habit costs now that the receipts come first, what a
 * busy morning's prompt weighs, and what a failing server turns into. Everything else about the runner is
 * tested with the in-process scripted model (run-briefing.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEFAULT_NUM_CTX } from "../../../src/config/model-routes.ts";
import { MODEL_UNAVAILABLE_NOTE } from "../../../src/core/briefing/digest.ts";
import {
  addFeed,
  createNote,
  createProject,
  createTask,
  createTestUser,
  describeInMemory,
  getRun,
  listRunMessages,
  listRunReceipts,
  saveFeedSync,
} from "../../helpers/test-store.ts";
import type { OllamaTestServer, ScriptedToolCall } from "../../servers/ollama-server.ts";
import { batching, oneCallPerTurn } from "../../servers/tool-habits.ts";
import {
  LONDON,
  MORNING_COVERAGE,
  MORNING_STATUS_ROW,
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

/** What a model wants to have looked at before it writes a morning briefing. */
const WANTED: ScriptedToolCall[] = [
  { name: "list_tasks", arguments: { filter: "due_today" } },
  { name: "list_tasks", arguments: { filter: "overdue" } },
  { name: "list_events", arguments: { range: "today" } },
  { name: "get_weather", arguments: {} },
  { name: "get_rss_items", arguments: { max: 8 } },
  { name: "list_projects", arguments: {} },
];
const PROSE =
  'Good morning! Partly cloudy today, 8 to 16 degrees. You have the Dentist at 09:00. "Renew passport" is due ' +
  'today at 14:30, and "File expenses" is overdue.';

describeInMemory("briefings over the Ollama HTTP API", (getStore) => {
  it("sends the runner's receipts as a real tool turn on the wire, stores them, and the model writes in one request", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedEvent(store, user);
    await seedWeather(store);
    server.setModel("one-call-7b", { reply: oneCallPerTurn(WANTED, PROSE) });
    const { assistant } = testCore(store, modelClientFor(server.url, "one-call-7b"));
    const before = server.chatRequests("one-call-7b").length;

    const outcome = await assistant.brief(user.id, { slot: "morning" });

    expect(outcome.mode).toBe("agentic");
    expect(outcome.prose).toBe(PROSE);
    expect(outcome.grounding).toMatchObject({ unbacked: [], action: "none" });
    expect(outcome.statusRow).toBe(MORNING_STATUS_ROW);
    const requests = server.chatRequests("one-call-7b").slice(before);
    expect(requests).toHaveLength(1);

    // On the wire: the assistant turn carries the calls with ids, each tool message names its call.
    const [request] = requests;
    const turn = request?.messages[2];
    expect(turn?.role).toBe("assistant");
    const wireCalls = turn?.tool_calls as Array<{
      id: string;
      function: { name: string; arguments: object };
    }>;
    expect(wireCalls.map((toolCall) => [toolCall.function.name, toolCall.function.arguments])).toEqual(
      MORNING_COVERAGE,
    );
    const toolMessages = request?.messages.filter((message) => message.role === "tool") ?? [];
    expect(toolMessages.map((message) => [message.tool_name, message.tool_call_id])).toEqual(
      wireCalls.map((toolCall) => [toolCall.function.name, toolCall.id]),
    );
    const calendar = MORNING_COVERAGE.findIndex(([name]) => name === "list_events");
    expect(String(toolMessages[calendar]?.content)).toContain('"start":"09:00"');
    // The trigger was sent, but nobody stored it as if the user had said it.
    expect(request?.messages[1]).toMatchObject({ role: "user", content: "Generate the morning briefing." });

    const stored = await listRunMessages(store, outcome.runId);
    expect(stored.some((message) => message.role === "user")).toBe(false);
    expect(stored.at(-1)?.metadata).toMatchObject({
      briefing_slot: "morning",
      kind: "briefing",
      run_id: outcome.runId,
    });
    const receipts = await listRunReceipts(store, outcome.runId);
    expect(receipts.map((receipt) => [receipt.toolName, receipt.arguments])).toEqual(MORNING_COVERAGE);
    expect(receipts[0]?.at.toISOString()).toBe("2025-06-02T06:00:00.000Z");
    expect(receipts[0]?.result).toMatchObject({
      count: 1,
      tasks: [{ title: "Renew passport", due_time: "14:30", priority: "high" }],
    });
    // Compact: an open task does not repeat its status, a null field is not sent.
    expect(JSON.stringify(receipts[0]?.result)).not.toMatch(/"status"|null/);

    const run = await getRun(store, outcome.runId);
    expect(run).toMatchObject({
      state: "generated",
      mode: "agentic",
      route: "briefing",
      model: "one-call-7b",
      turns: 1,
      toolCalls: MORNING_COVERAGE.length,
      localDate: TODAY,
      prose: outcome.prose,
    });
    expect(run?.promptTokens).toBeGreaterThan(0);
  });

  for (const [habit, reply] of [
    ["one call per turn", oneCallPerTurn],
    ["batching", batching],
  ] as const) {
    it(`a ${habit} model that wants one tool more than the receipts finishes in two requests, every coverage receipt present`, async () => {
      const store = getStore();
      const user = await createTestUser(store, LONDON);
      await seedTasks(store, user);
      await seedEvent(store, user);
      await seedWeather(store);
      await createNote(store, {
        userId: user.id,
        body: "Call the plumber back",
        createdAt: new Date("2025-06-01T18:00:00Z"),
      });
      const name = `${habit.replaceAll(" ", "-")}-notes`;
      const wanted = [...WANTED, { name: "list_notes", arguments: { recent_days: 1 } }];
      server.setModel(name, { reply: reply(wanted, `${PROSE} Yesterday you noted: call the plumber back.`) });
      const { assistant } = testCore(store, modelClientFor(server.url, name));
      const before = server.chatRequests(name).length;

      const outcome = await assistant.brief(user.id, { slot: "morning" });

      expect(server.chatRequests(name).length - before).toBe(2);
      expect(outcome.mode).toBe("agentic");
      expect(outcome.grounding?.unbacked).toEqual([]);
      const receipts = await listRunReceipts(store, outcome.runId);
      expect(receipts.map((receipt) => [receipt.toolName, receipt.arguments])).toEqual([
        ...MORNING_COVERAGE,
        ["list_notes", { recent_days: 1 }],
      ]);
      expect(receipts.every((receipt) => !receipt.error)).toBe(true);
    });
  }

  it("keeps a busy morning's prompt well inside num_ctx, cutting long lists with a line saying how many are left out", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedWeather(store);
    for (let index = 0; index < 45; index++) {
      await createTask(store, {
        userId: user.id,
        title: `Overdue chore number ${index + 1} with a fairly long descriptive title`,
        notes: "Some notes about the chore that go on for a while. ".repeat(6),
        dueDate: "2025-05-20",
      });
    }
    for (let index = 0; index < 55; index++) {
      const start = new Date(Date.UTC(2025, 5, 2, 6, index * 10));
      await seedEvent(store, user, `Back-to-back meeting ${index + 1}`, start.toISOString());
    }
    for (let index = 0; index < 35; index++) {
      await createProject(store, {
        userId: user.id,
        name: `Project ${index + 1}`,
        summary: "A project summary that is long enough to matter in the prompt. ".repeat(8),
      });
    }
    const feed = await addFeed(store, { userId: user.id, url: "https://news.example/busy.xml" });
    await saveFeedSync(store, feed, {
      title: "Busy News",
      items: Array.from({ length: 40 }, (_, index) => ({
        guid: `item-${index}`,
        title: `Headline ${index + 1}: something happened somewhere today`,
        link: `https://news.example/${index}`,
        summary: "A summary paragraph of the story that runs long. ".repeat(10),
        publishedAt: new Date(Date.UTC(2025, 5, 2, 5, index)),
      })),
      etag: null,
      lastModified: null,
      at: new Date("2025-06-02T05:50:00Z"),
    });
    server.setModel("busy-7b", { reply: oneCallPerTurn(WANTED, "Good morning. A busy day.") });
    const { assistant } = testCore(store, modelClientFor(server.url, "busy-7b"));
    const requestsBefore = server.chatRequests("busy-7b").length;
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    expect(outcome.mode).toBe("agentic");
    const run = await getRun(store, outcome.runId);
    expect(run?.turns).toBe(1);
    // The server reports about chars/4 of what it was sent, and would have cut anything over num_ctx.
    expect(run?.promptTokens).toBeLessThan(DEFAULT_NUM_CTX / 2);
    const byTool = (name: string, filter?: string) =>
      outcome.receipts.find(
        (receipt) =>
          receipt.toolName === name && (filter === undefined || receipt.arguments.filter === filter),
      )?.result as Record<string, unknown>;
    // The stored receipts keep every task and event, with the true count…
    expect(byTool("list_tasks", "overdue")).toMatchObject({ count: 45 });
    expect((byTool("list_tasks", "overdue").tasks as unknown[]).length).toBe(45);
    expect(byTool("list_events")).toMatchObject({ count: 55 });
    expect((byTool("list_events").events as unknown[]).length).toBe(55);
    // …while the model is handed a shortened view of each long list, marked as such.
    const sent = (server.chatRequests("busy-7b")[requestsBefore]?.messages ?? [])
      .filter((message) => message.role === "tool")
      .map((message) => JSON.parse(String(message.content)) as Record<string, unknown>);
    const overdueSent = sent.find((result) => result.filter === "overdue");
    expect(overdueSent).toMatchObject({ count: 45, shown: 15 });
    expect(overdueSent?.tasks).toHaveLength(15);
    expect(String(overdueSent?.note)).toContain("30 more tasks not shown");
    const eventsSent = sent.find((result) => Array.isArray(result.events));
    expect(eventsSent).toMatchObject({ count: 55, shown: 32 });
    expect(String(eventsSent?.note)).toContain("23 more events not shown");
    expect(byTool("list_projects")).toMatchObject({ count: 35, note: "20 more projects not shown." });
    expect((byTool("get_rss_items").items as unknown[]).length).toBe(8);
  });

  it("delivers a digest from receipts with a note when the model is down", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedEvent(store, user, "Standup", "2025-06-02T09:15:00Z");
    await seedWeather(store);
    const { assistant, logger } = testCore(store, modelClientFor(server.url));
    server.script("qwen2.5:7b", {
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
    expect(outcome.statusRow).toBe(MORNING_STATUS_ROW);
    expect(logger.warnings.map((warning) => warning.message)).toContain(
      "briefing model failed; sending a digest",
    );
    const run = await getRun(store, outcome.runId);
    expect(run).toMatchObject({ state: "generated", mode: "digest" });
    expect(run?.reason).toMatch(/model unavailable/);
    expect(await listRunReceipts(store, outcome.runId)).toHaveLength(MORNING_COVERAGE.length);
  });
});
