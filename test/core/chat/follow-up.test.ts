import { expect, it } from "vitest";
import { offeredTools, scriptedModel } from "../../helpers/scripted-model.ts";
import {
  createTask,
  createTestUser,
  describeInMemory,
  findConversation,
  getRun,
  listConversationMessages,
  listRunMessages,
  rollUpOldRuns,
} from "../../helpers/test-store.ts";
import { call, LONDON, MORNING_COVERAGE, requestText, seedTasks, seedWeather, testCore } from "../fixture.ts";

const toolNames = offeredTools;

describeInMemory("follow-ups answered from receipts", (getStore) => {
  async function briefedUser() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    const model = scriptedModel();
    const context = testCore(store, model);
    const { assistant } = context;
    model.script({
      content:
        'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue.',
    });
    const morning = await assistant.brief(user.id, { slot: "morning" });
    return { store, user, morning, ...context };
  }

  it("reloads the run's receipts and prose for a follow-up, and answers from them with fresh receipts not needed", async () => {
    const { store, user, assistant, morning, clock, model } = await briefedUser();
    clock.advance(20 * 60_000);
    model.script({ content: '"File expenses" was due on 2025-05-30.' });
    const thread = { platform: "telegram" as const, threadKey: `tg:${user.id}:1`, runId: morning.runId };
    const reply = await assistant.reply(user.id, thread, "what's the overdue one about?");

    expect(reply.text).toBe('"File expenses" was due on 2025-05-30.');
    const request = model.requests.at(-1);
    const tools = request?.messages.filter((message) => message.role === "tool") ?? [];
    expect(tools.map((message) => message.tool_name)).toEqual(MORNING_COVERAGE.map(([name]) => name));
    expect(String(tools[1]?.content)).toContain("File expenses");
    expect(requestText(request)).toContain('"Renew passport" is due at 14:30');
    expect(String(request?.messages[0]?.content)).toMatch(/receipts, fetched at 07:00 \(20 minutes ago\)/);
    expect(request?.messages.at(-1)).toMatchObject({
      role: "user",
      content: "what's the overdue one about?",
    });
    // Follow-ups can look up what the receipts do not cover, as well as make (confirmed) changes.
    expect(toolNames(request)).toContain("list_events");
    expect(toolNames(request)).toContain("complete_task");
    expect(String(request?.messages[0]?.content)).not.toMatch(/more than 60 minutes old/);

    const conversation = await findConversation(store, "telegram", thread.threadKey);
    expect(conversation?.runId).toBe(morning.runId);
    const turns = await listConversationMessages(store, conversation!.id);
    expect(turns.map((message) => message.role)).toEqual(["user", "assistant"]);
    // A later reply in the same thread finds its run without being told.
    model.script({ content: "Yes, it is still overdue." });
    await assistant.reply(
      user.id,
      { platform: "telegram", threadKey: thread.threadKey },
      "and is it still overdue?",
    );
    expect(requestText(model.requests.at(-1))).toContain("what's the overdue one about?");
  });

  it("sees only its own run's receipts, not the other slots' briefings", async () => {
    const { store, user, assistant, morning, clock, model } = await briefedUser();
    clock.advance(5 * 3_600_000);
    await createTask(store, { userId: user.id, title: "Call the plumber", dueDate: "2025-06-02" });
    model.script({ content: '"Call the plumber" is new today. Nothing on your calendar today.' });
    const midday = await assistant.brief(user.id, { slot: "midday" });
    expect(midday.prose).toContain("Call the plumber");

    model.script({ content: "This morning you had Renew passport due." });
    await assistant.reply(
      user.id,
      { platform: "slack", threadKey: `C1:${morning.runId}`, runId: morning.runId },
      "recap please",
    );
    const text = requestText(model.requests.at(-1));
    expect(text).toContain("Renew passport");
    expect(text).not.toContain("Call the plumber");
    expect(text).not.toContain("is new today");
  });

  it("offers read-only tools again when receipts are stale, storing the new receipts on the thread", async () => {
    const { store, user, assistant, morning, clock, model } = await briefedUser();
    clock.advance(2 * 3_600_000);
    model.script(
      { toolCalls: [call("list_events", { range: "today" })] },
      { content: "As of 09:00 there is still nothing on your calendar today." },
    );
    const thread = { platform: "cli" as const, threadKey: `cli:${user.id}:stale`, runId: morning.runId };
    const reply = await assistant.reply(user.id, thread, "anything on my calendar?");
    const request = model.requests.at(-2);
    expect(toolNames(request)).toContain("list_events");
    expect(String(request?.messages[0]?.content)).toMatch(
      /more than 60 minutes old: for anything that may have changed since, call the read-only tools again/,
    );
    expect(reply.receipts.map((receipt) => [receipt.toolName, receipt.runId])).toEqual([
      ["list_events", null],
    ]);
    expect(reply.receipts[0]?.at.toISOString()).toBe("2025-06-02T08:00:00.000Z");
    // The run's own receipts are unchanged.
    expect(
      (await listRunMessages(store, morning.runId)).filter((message) => message.role === "tool"),
    ).toHaveLength(MORNING_COVERAGE.length);
  });

  it("refreshes when the user asks about now even if the receipts are recent", async () => {
    const { user, assistant, morning, model } = await briefedUser();
    model.script({ content: "Let me check." });
    await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:now`, runId: morning.runId },
      "what's on right now?",
    );
    expect(toolNames(model.requests.at(-1))).toContain("list_events");
  });

  it("rolls old runs up: out of every context, receipts still readable", async () => {
    const { store, user, assistant, morning, clock, model } = await briefedUser();
    clock.advance(8 * 86_400_000);
    const { archivedRuns } = await rollUpOldRuns(store, {
      now: clock.now(),
      retentionDays: 7,
      userId: user.id,
    });
    expect(archivedRuns).toContain(morning.runId);
    expect(await listRunMessages(store, morning.runId)).toHaveLength(0);
    expect((await getRun(store, morning.runId))?.archivedAt).not.toBeNull();

    const view = await assistant.receipts(user.id, morning.runId);
    expect(view?.run.archived).toBe(true);
    expect(view?.receipts.map((receipt) => receipt.toolName)).toEqual(MORNING_COVERAGE.map(([name]) => name));
    expect(view?.receipts[0]?.at).toBeInstanceOf(Date);
    expect(JSON.stringify(view?.receipts[1]?.result)).toContain("File expenses");

    model.script({ content: "That briefing is archived." });
    await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:old`, runId: morning.runId },
      "what was overdue?",
    );
    const request = model.requests.at(-1);
    expect(request?.messages.filter((message) => message.role === "tool")).toHaveLength(0);
    expect(String(request?.messages[0]?.content)).toMatch(/archived/);
    // A second roll-up finds nothing new.
    expect(
      (await rollUpOldRuns(store, { now: clock.now(), retentionDays: 7, userId: user.id })).archivedRuns,
    ).toEqual([]);
  });

  it("never follows up on another user's run", async () => {
    const { store, morning, model } = await briefedUser();
    const stranger = await createTestUser(store, LONDON);
    const { assistant } = testCore(store, model);
    model.script({ content: "I don't know about that." });
    await assistant.reply(
      stranger.id,
      { platform: "cli", threadKey: `cli:${stranger.id}`, runId: morning.runId },
      "what was overdue?",
    );
    const text = requestText(model.requests.at(-1));
    expect(text).not.toContain("File expenses");
    expect(await assistant.receipts(stranger.id, morning.runId)).toBeUndefined();
    expect(await assistant.receipts(stranger.id)).toBeUndefined();
  });
});
