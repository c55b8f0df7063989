/**
 * Briefings end to end through the official `ollama` client and the HTTP Ollama test server: what goes
 * over the wire, how many round trips a model's tool habit costs now that the receipts come first, what a
 * busy morning's prompt weighs, and what a failing server turns into. Everything else about the runner is
 * tested with the in-process scripted model (run-briefing.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEFAULT_NUM_CTX, resolveModelRoutes } from "../../../src/config/model-routes.ts";
import { MODEL_UNAVAILABLE_NOTE } from "../../../src/core/briefing/digest.ts";
import type { User } from "../../../src/core/domain.ts";
import type { ChatMessage, ToolSchema } from "../../../src/core/model.ts";
import { MIN_SHOWN, promptBudget } from "../../../src/core/tools/prompt-budget.ts";
import { createModelClient, estimatePromptTokens } from "../../../src/models/index.ts";
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
  type TestStore,
} from "../../helpers/test-store.ts";
import type { OllamaTestServer, RecordedChatRequest, ScriptedToolCall } from "../../servers/ollama-server.ts";
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
    await seedBusyMorning(store, user, 1);
    server.setModel("busy-7b", { reply: oneCallPerTurn(WANTED, "Good morning. A busy day.") });
    const { assistant } = testCore(store, modelClientFor(server.url, "busy-7b"));
    const requestsBefore = server.chatRequests("busy-7b").length;
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    expect(outcome.mode).toBe("agentic");
    const run = await getRun(store, outcome.runId);
    expect(run?.turns).toBe(1);
    // The server reports about chars/4 of what it was sent, and would have cut anything over num_ctx. The
    // prompt fits the budget (0.4 of num_ctx), well below the half of num_ctx Ollama cuts an overlong one to.
    console.log(
      `busy morning: ${run?.promptTokens} prompt tokens, budget ${budget(DEFAULT_NUM_CTX)} of num_ctx ${DEFAULT_NUM_CTX}`,
    );
    expect(run?.promptTokens).toBeLessThanOrEqual(budget(DEFAULT_NUM_CTX));
    expect(run?.promptTokens).toBeLessThan(DEFAULT_NUM_CTX / 2 - 512);
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
    expect(byTool("list_projects")).toMatchObject({ count: 35, note: "20 more projects not shown." });
    expect((byTool("get_rss_items").items as unknown[]).length).toBe(8);
    // …while the model is handed a shortened view of each long list, each saying how many are left out.
    const sent = toolResults(server.chatRequests("busy-7b")[requestsBefore]);
    expectCut(
      sent.find((result) => result.filter === "overdue"),
      "tasks",
      45,
    );
    expectCut(
      sent.find((result) => Array.isArray(result.events)),
      "events",
      55,
    );
  });

  it("keeps every request of a morning three times as busy inside the budget, as the model looks further", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedBusyMorning(store, user, 3);
    for (let index = 0; index < 30; index++) {
      await createNote(store, {
        userId: user.id,
        title: `Note ${index + 1}`,
        body: "A note about something worth remembering, written at some length. ".repeat(4),
        createdAt: new Date(Date.UTC(2025, 5, 1, 12, index)),
      });
    }
    // A model that looks further than the receipts: all open tasks, the week ahead, notes, more headlines.
    const further: ScriptedToolCall[] = [
      ...WANTED,
      { name: "list_tasks", arguments: { filter: "open" } },
      { name: "list_events", arguments: { range: "upcoming", days: 14 } },
      { name: "list_notes", arguments: {} },
      { name: "get_rss_items", arguments: { max: 30 } },
    ];
    server.setModel("busier-7b", { reply: oneCallPerTurn(further, "Good morning. A very busy day.") });
    const { assistant } = testCore(store, modelClientFor(server.url, "busier-7b"));
    const requestsBefore = server.chatRequests("busier-7b").length;
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    expect(outcome.mode).toBe("agentic");
    const requests = server.chatRequests("busier-7b").slice(requestsBefore);
    expect(requests).toHaveLength(5);
    const sizes = requests.map(promptSize);
    console.log(`3x busy morning: prompts of ${sizes.join(", ")} tokens, budget ${budget(DEFAULT_NUM_CTX)}`);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(budget(DEFAULT_NUM_CTX));
    // Receipts keep everything; the last request shows every long list cut, each with what is left out.
    const overdue = outcome.receipts.find((receipt) => receipt.arguments.filter === "overdue");
    expect((overdue?.result as { tasks?: unknown[] } | undefined)?.tasks).toHaveLength(135);
    const last = toolResults(requests.at(-1));
    expectCut(
      last.find((result) => result.filter === "overdue"),
      "tasks",
      135,
    );
    expectCut(
      last.find((result) => result.filter === "open"),
      "tasks",
      135,
    );
    expectCut(
      last.find((result) => result.range === "today"),
      "events",
      165,
    );
    const headlines = last.filter((result) => Array.isArray(result.items)).at(-1);
    expectCut(headlines, "items", 30);
    // A list never shows more in a later request than the model was shown before.
    const shownOverdue = requests.map(
      (request) => toolResults(request).find((result) => result.filter === "overdue")?.shown,
    );
    expect([...shownOverdue].sort((a, b) => Number(b) - Number(a))).toEqual(shownOverdue);
  });

  it("writes a grounded briefing on a num_ctx of 4096, naming how many more it was not shown", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedEvent(store, user);
    // A third of the busy morning: 15 more overdue tasks, 19 more meetings, 12 projects, 14 headlines.
    await seedBusyMorning(store, user, 1 / 3);
    // Written from what the model was shown, as a model does: the first overdue task, and how many more.
    const prose = (request: RecordedChatRequest): string => {
      const overdue = overdueSent(request);
      const first = (overdue?.tasks as Array<{ title: string }> | undefined)?.[0]?.title ?? "";
      const more = Number(overdue?.count) - Number(overdue?.shown);
      return `Good morning! You have the Dentist at 09:00. "Renew passport" is due today at 14:30. Overdue: "${first}", and ${more} more.`;
    };
    server.setModel("small-ctx-7b", { reply: oneCallPerTurn(WANTED, prose) });
    const routes = resolveModelRoutes(undefined, { ollamaHost: server.url, model: "small-ctx-7b" });
    const model = createModelClient({
      routes: {
        ...routes,
        routes: { ...routes.routes, briefing: { ...routes.routes.briefing, numCtx: 4096 } },
      },
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const { assistant } = testCore(store, model, {
      config: { contextTokens: { briefing: 4096, interactive: 8192 } },
    });
    const requestsBefore = server.chatRequests("small-ctx-7b").length;
    const outcome = await assistant.brief(user.id, { slot: "morning" });

    expect(outcome.mode).toBe("agentic");
    expect(outcome.grounding).toMatchObject({ unbacked: [], action: "none" });
    const requests = server.chatRequests("small-ctx-7b").slice(requestsBefore);
    expect(requests.map((request) => request.options?.num_ctx)).toEqual([4096]);
    const size = promptSize(requests[0]);
    console.log(`num_ctx 4096 morning: ${size} prompt tokens, budget ${budget(4096)}`);
    expect(size).toBeLessThanOrEqual(budget(4096));
    const overdue = overdueSent(requests[0]);
    expectCut(overdue, "tasks", 16);
    expect(outcome.prose).toContain(`and ${16 - Number(overdue?.shown)} more.`);
    // The calendar the prose did not count is counted for it, from what the model was shown.
    const events = toolResults(requests[0]).find((result) => result.range === "today");
    expectCut(events, "events", 20);
    expect(outcome.prose).toContain(
      `That is ${events?.shown} of 20 events today, and ${20 - Number(events?.shown)} more events; /receipts lists every one.`,
    );
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

/** The budget's tokens for a route of this num_ctx. */
function budget(numCtx: number): number {
  return promptBudget(numCtx, estimatePromptTokens).tokens;
}

/** A request's prompt as the core estimates it. */
function promptSize(request: RecordedChatRequest | undefined): number {
  return estimatePromptTokens((request?.messages ?? []) as ChatMessage[], request?.tools as ToolSchema[]);
}

function toolResults(request: RecordedChatRequest | undefined): Array<Record<string, unknown>> {
  return (request?.messages ?? [])
    .filter((message) => message.role === "tool")
    .map((message) => JSON.parse(String(message.content)) as Record<string, unknown>);
}

function overdueSent(request: RecordedChatRequest | undefined): Record<string, unknown> | undefined {
  return toolResults(request).find((result) => result.filter === "overdue");
}

/** A list the model was shown cut: fewer than all, and a note saying how many more there are. */
function expectCut(result: Record<string, unknown> | undefined, key: string, count: number): void {
  const shown = Number(result?.shown);
  expect(result).toMatchObject({ count });
  expect(shown).toBeGreaterThanOrEqual(MIN_SHOWN);
  expect(shown).toBeLessThan(count);
  expect(result?.[key]).toHaveLength(shown);
  expect(String(result?.note)).toContain(`${count - shown} more ${key} not shown`);
}

/** Long overdue tasks, back-to-back meetings, projects and headlines, `scale` times the busy morning's. */
async function seedBusyMorning(store: TestStore, user: User, scale: number): Promise<void> {
  await seedWeather(store);
  for (let index = 0; index < 45 * scale; index++) {
    await createTask(store, {
      userId: user.id,
      title: `Overdue chore number ${index + 1} with a fairly long descriptive title`,
      notes: "Some notes about the chore that go on for a while. ".repeat(6),
      dueDate: "2025-05-20",
    });
  }
  for (let index = 0; index < 55 * scale; index++) {
    const start = new Date(Date.UTC(2025, 5, 2, 6, Math.floor((index * 10) / scale)));
    await seedEvent(store, user, `Back-to-back meeting ${index + 1}`, start.toISOString());
  }
  for (let index = 0; index < 35 * scale; index++) {
    await createProject(store, {
      userId: user.id,
      name: `Project ${index + 1}`,
      summary: "A project summary that is long enough to matter in the prompt. ".repeat(8),
    });
  }
  const feed = await addFeed(store, { userId: user.id, url: "https://news.example/busy.xml" });
  await saveFeedSync(store, feed, {
    title: "Busy News",
    items: Array.from({ length: 40 * scale }, (_, index) => ({
      guid: `item-${index}`,
      title: `Headline ${index + 1}: something happened somewhere today`,
      link: `https://news.example/${index}`,
      summary: "A summary paragraph of the story that runs long. ".repeat(10),
      publishedAt: new Date(Date.UTC(2025, 5, 2, 5, index % 60, Math.floor(index / 60))),
    })),
    etag: null,
    lastModified: null,
    at: new Date("2025-06-02T05:50:00Z"),
  });
}
