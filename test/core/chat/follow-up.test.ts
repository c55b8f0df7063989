import { afterAll, beforeAll, expect, it } from "vitest";
import { findConversation } from "../../../db/queries/conversations.ts";
import { listConversationMessages, listRunMessages } from "../../../db/queries/messages.ts";
import { rollUpOldRuns } from "../../../db/queries/retention.ts";
import { getRun } from "../../../db/queries/runs.ts";
import { createTask } from "../../../db/queries/tasks.ts";
import { createAssistant } from "../../../src/core/assistant-service.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import type { OllamaTestServer } from "../../servers/ollama-server.ts";
import {
  call,
  LONDON,
  MODEL,
  MORNING_CALLS,
  requestText,
  seedTasks,
  seedWeather,
  startModelServer,
  testDeps,
} from "../fixture.ts";

let server: OllamaTestServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

const toolNames = (request: { tools?: unknown[] } | undefined) =>
  (request?.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);

describeEachDatabase("follow-ups answered from receipts", (getDb) => {
  async function briefedUser() {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedWeather(db);
    const context = testDeps(db, server.url);
    const assistant = createAssistant(context.deps);
    server.script(MODEL, [
      { toolCalls: MORNING_CALLS },
      {
        content:
          'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue.',
      },
    ]);
    const morning = await assistant.brief(user.id, { slot: "morning" });
    return { db, user, assistant, morning, ...context };
  }

  it("reloads the run's receipts and prose for a follow-up, and answers from them with fresh receipts not needed", async () => {
    const { db, user, assistant, morning, clock } = await briefedUser();
    clock.advance(20 * 60_000);
    server.script(MODEL, { content: '"File expenses" was due on 2025-05-30.' });
    const thread = { platform: "telegram" as const, threadKey: `tg:${user.id}:1`, runId: morning.runId };
    const reply = await assistant.reply(user.id, thread, "what's the overdue one about?");

    expect(reply.text).toBe('"File expenses" was due on 2025-05-30.');
    const request = server.chatRequests(MODEL).at(-1);
    const tools = request?.messages.filter((message) => message.role === "tool") ?? [];
    expect(tools.map((message) => message.tool_name)).toEqual([
      "list_tasks",
      "list_tasks",
      "list_events",
      "get_weather",
    ]);
    expect(String(tools[1]?.content)).toContain("File expenses");
    expect(requestText(request ?? { messages: [] })).toContain('"Renew passport" is due at 14:30');
    expect(String(request?.messages[0]?.content)).toMatch(/receipts, fetched at 07:00 \(20 minutes ago\)/);
    expect(request?.messages.at(-1)).toMatchObject({
      role: "user",
      content: "what's the overdue one about?",
    });
    // Fresh receipts: no read-only data tools on offer, only changes.
    expect(toolNames(request)).not.toContain("list_events");
    expect(toolNames(request)).toContain("complete_task");

    const conversation = await findConversation(db, "telegram", thread.threadKey);
    expect(conversation?.runId).toBe(morning.runId);
    const turns = await listConversationMessages(db, conversation!.id);
    expect(turns.map((message) => message.role)).toEqual(["user", "assistant"]);
    // A later reply in the same thread finds its run without being told.
    server.script(MODEL, { content: "Yes, it is still overdue." });
    await assistant.reply(
      user.id,
      { platform: "telegram", threadKey: thread.threadKey },
      "and is it still overdue?",
    );
    expect(requestText(server.chatRequests(MODEL).at(-1) ?? { messages: [] })).toContain(
      "what's the overdue one about?",
    );
  });

  it("sees only its own run's receipts, not the other slots' briefings", async () => {
    const { db, user, assistant, morning, clock } = await briefedUser();
    clock.advance(5 * 3_600_000);
    await createTask(db, { userId: user.id, title: "Call the plumber", dueDate: "2025-06-02" });
    server.script(MODEL, [
      { toolCalls: [call("list_tasks", { filter: "due_today" }), call("list_events", { range: "today" })] },
      { content: '"Call the plumber" is new today. Nothing on your calendar today.' },
    ]);
    const midday = await assistant.brief(user.id, { slot: "midday" });
    expect(midday.prose).toContain("Call the plumber");

    server.script(MODEL, { content: "This morning you had Renew passport due." });
    await assistant.reply(
      user.id,
      { platform: "slack", threadKey: `C1:${morning.runId}`, runId: morning.runId },
      "recap please",
    );
    const text = requestText(server.chatRequests(MODEL).at(-1) ?? { messages: [] });
    expect(text).toContain("Renew passport");
    expect(text).not.toContain("Call the plumber");
    expect(text).not.toContain("is new today");
  });

  it("offers read-only tools again when receipts are stale, storing the new receipts on the thread", async () => {
    const { db, user, assistant, morning, clock } = await briefedUser();
    clock.advance(2 * 3_600_000);
    server.script(MODEL, [
      { toolCalls: [call("list_events", { range: "today" })] },
      { content: "As of 09:00 there is still nothing on your calendar today." },
    ]);
    const thread = { platform: "cli" as const, threadKey: `cli:${user.id}:stale`, runId: morning.runId };
    const reply = await assistant.reply(user.id, thread, "anything on my calendar?");
    const request = server.chatRequests(MODEL).at(-2);
    expect(toolNames(request)).toContain("list_events");
    expect(String(request?.messages[0]?.content)).toMatch(/may call the read-only tools again/);
    expect(reply.receipts.map((receipt) => [receipt.toolName, receipt.runId])).toEqual([
      ["list_events", null],
    ]);
    expect(reply.receipts[0]?.at.toISOString()).toBe("2025-06-02T08:00:00.000Z");
    // The run's own receipts are unchanged.
    expect(
      (await listRunMessages(db, morning.runId)).filter((message) => message.role === "tool"),
    ).toHaveLength(4);
  });

  it("refreshes when the user asks about now even if the receipts are recent", async () => {
    const { user, assistant, morning } = await briefedUser();
    server.script(MODEL, { content: "Let me check." });
    await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:now`, runId: morning.runId },
      "what's on right now?",
    );
    expect(toolNames(server.chatRequests(MODEL).at(-1))).toContain("list_events");
  });

  it("rolls old runs up: out of every context, receipts still readable", async () => {
    const { db, user, assistant, morning, clock } = await briefedUser();
    clock.advance(8 * 86_400_000);
    const { archivedRuns } = await rollUpOldRuns(db, { now: clock.now(), retentionDays: 7, userId: user.id });
    expect(archivedRuns).toContain(morning.runId);
    expect(await listRunMessages(db, morning.runId)).toHaveLength(0);
    expect((await getRun(db, morning.runId))?.archivedAt).not.toBeNull();

    const view = await assistant.receipts(user.id, morning.runId);
    expect(view?.run.archived).toBe(true);
    expect(view?.receipts.map((receipt) => receipt.toolName)).toEqual([
      "list_tasks",
      "list_tasks",
      "list_events",
      "get_weather",
    ]);
    expect(view?.receipts[0]?.at).toBeInstanceOf(Date);
    expect(JSON.stringify(view?.receipts[1]?.result)).toContain("File expenses");

    server.script(MODEL, { content: "That briefing is archived." });
    await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:old`, runId: morning.runId },
      "what was overdue?",
    );
    const request = server.chatRequests(MODEL).at(-1);
    expect(request?.messages.filter((message) => message.role === "tool")).toHaveLength(0);
    expect(String(request?.messages[0]?.content)).toMatch(/archived/);
    // A second roll-up finds nothing new.
    expect(
      (await rollUpOldRuns(db, { now: clock.now(), retentionDays: 7, userId: user.id })).archivedRuns,
    ).toEqual([]);
  });

  it("never follows up on another user's run", async () => {
    const { db, morning } = await briefedUser();
    const stranger = await createTestUser(db, LONDON);
    const assistant = createAssistant(testDeps(db, server.url).deps);
    server.script(MODEL, { content: "I don't know about that." });
    await assistant.reply(
      stranger.id,
      { platform: "cli", threadKey: `cli:${stranger.id}`, runId: morning.runId },
      "what was overdue?",
    );
    const text = requestText(server.chatRequests(MODEL).at(-1) ?? { messages: [] });
    expect(text).not.toContain("File expenses");
    expect(await assistant.receipts(stranger.id, morning.runId)).toBeUndefined();
    expect(await assistant.receipts(stranger.id)).toBeUndefined();
  });
});
