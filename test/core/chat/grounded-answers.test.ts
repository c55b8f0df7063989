/**
 * Every chat answer passes the grounding gate against the receipts in its context: the followed-up run's,
 * the thread's earlier calls, and its own fresh ones. Scripted lying and misreading models.
 */
import { expect, it } from "vitest";
import { READ_ONLY_CHAT_TOOLS } from "../../../src/core/tools/allowlists.ts";
import { call, offeredTools, scriptedModel } from "../../helpers/scripted-model.ts";
import {
  createProject,
  createTestUser,
  describeInMemory,
  findConversation,
  listConversationMessages,
} from "../../helpers/test-store.ts";
import { LONDON, seedEvent, seedTasks, seedWeather, testCore } from "../fixture.ts";

const LIE = "Your 10:30 AM meeting is with the design team.";

describeInMemory("grounded chat answers", (getStore) => {
  async function briefed() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    await seedEvent(store, user, "Dentist");
    const model = scriptedModel();
    const core = testCore(store, model);
    model.script({ content: 'The Dentist is at 09:00 and "Renew passport" is due at 14:30.' });
    const morning = await core.assistant.brief(user.id, { slot: "morning" });
    const thread = { platform: "telegram" as const, threadKey: `tg:${user.id}:1`, runId: morning.runId };
    return { store, user, morning, thread, ...core };
  }

  async function storedReply(store: ReturnType<typeof getStore>, threadKey: string) {
    const conversation = await findConversation(store, "telegram", threadKey);
    return (await listConversationMessages(store, conversation!.id, 100)).at(-1);
  }

  it("never delivers a follow-up's meeting that no receipt shows: a liar ends in a plain answer from the receipts", async () => {
    const { store, user, model, thread, assistant } = await briefed();
    model.script({ content: LIE }, { content: LIE });
    const reply = await assistant.reply(user.id, thread, "what meeting do I have?");

    expect(reply.text).not.toMatch(/10:30|design team/);
    expect(reply.text).toMatch(/^I can only see this in your data:\nCalendar today: 09:00–09:30 Dentist\./);
    expect(model.requests).toHaveLength(3);
    // The corrective turn named the claims and could look things up.
    expect(String(model.requests[2]?.messages.at(-1)?.content)).toMatch(/"10:30 AM".*"design team"/s);
    expect(offeredTools(model.requests[2])).toEqual([...READ_ONLY_CHAT_TOOLS]);
    expect(reply.grounding).toMatchObject({ action: "digest", corrections: 1 });
    expect(reply.grounding?.unbacked).toEqual(expect.arrayContaining(["10:30 AM", "design team"]));
    expect((await storedReply(store, thread.threadKey))?.metadata).toMatchObject({
      kind: "reply",
      grounding: { action: "digest", corrections: 1 },
    });
  });

  it("keeps a misreading model's corrected answer after it looks again, its fresh call a receipt of the thread", async () => {
    const { user, model, thread, assistant } = await briefed();
    model.script(
      { content: LIE },
      { toolCalls: [call("list_events", { range: "today" })] },
      { content: "Sorry, I misread: the only thing today is the Dentist at 09:00." },
    );
    const reply = await assistant.reply(user.id, thread, "what meeting do I have?");
    expect(reply.text).toBe("Sorry, I misread: the only thing today is the Dentist at 09:00.");
    expect(reply.grounding).toMatchObject({ action: "corrected", corrections: 1, removed: 0 });
    expect(reply.receipts.map((receipt) => [receipt.toolName, receipt.runId])).toEqual([
      ["list_events", null],
    ]);
  });

  it("answers a follow-up about something outside the briefing's receipts with a fresh read-only call", async () => {
    const { store, user, model, thread, assistant } = await briefed();
    await createProject(store, { userId: user.id, name: "Garden shed", status: "paused" });
    model.script(
      { toolCalls: [call("list_projects", { status: "paused" })] },
      { content: "Garden shed is your one paused project." },
    );
    const reply = await assistant.reply(user.id, thread, "which of my projects are on hold?");
    const first = model.requests.at(-2);
    expect(offeredTools(first)).toEqual(expect.arrayContaining([...READ_ONLY_CHAT_TOOLS]));
    // The run's receipts did not cover projects on hold: the answer rests on the fresh call.
    expect(JSON.stringify(first?.messages)).not.toContain("Garden shed");
    expect(reply.text).toBe("Garden shed is your one paused project.");
    expect(reply.grounding).toMatchObject({ action: "none", unbacked: [] });
    expect(reply.receipts).toHaveLength(1);
    expect(reply.receipts[0]).toMatchObject({ toolName: "list_projects", arguments: { status: "paused" } });
    const conversation = await findConversation(store, "telegram", thread.threadKey);
    const stored = await listConversationMessages(store, conversation!.id, 100);
    expect(stored.filter((message) => message.role === "tool").map((message) => message.toolName)).toEqual([
      "list_projects",
    ]);
  });

  it("checks plain chat too: an invented task is taken out and the rest of the answer kept", async () => {
    const { user, model, assistant } = await briefed();
    model.script(
      { toolCalls: [call("list_tasks", { filter: "due_today" })] },
      { content: '"Renew passport" is due at 14:30. "Q2 budget draft" is due by Friday.' },
      { content: '"Renew passport" is due at 14:30. "Q2 budget draft" is due by Friday.' },
    );
    const reply = await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}` },
      "what's due?",
    );
    expect(reply.text).toBe('"Renew passport" is due at 14:30.');
    expect(reply.grounding).toMatchObject({ action: "sentences_removed", removed: 1, corrections: 1 });
  });
});
