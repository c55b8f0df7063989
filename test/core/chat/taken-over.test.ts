/**
 * A question a process stopped answering (killed mid-answer: the question and its tool steps are stored,
 * no reply) is asked again by the process that takes the message over. The second attempt stores the
 * question once and shows it to the model once; a question asked again after it was answered is a new turn.
 */
import { expect, it } from "vitest";
import { scriptedModel } from "../../helpers/scripted-model.ts";
import {
  createTestUser,
  describeInMemory,
  findConversation,
  listConversationMessages,
  portsOf,
} from "../../helpers/test-store.ts";
import { LONDON, testCore } from "../fixture.ts";

const QUESTION = "what is due today?";

describeInMemory("a question taken over from a stopped process", (getStore) => {
  it("is stored once and put to the model once, without the stopped attempt's tool steps", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const model = scriptedModel();
    const { assistant, clock } = testCore(store, model);
    const thread = { platform: "telegram" as const, threadKey: `tg:${user.id}:9` };

    // What the stopped attempt left: the question, the model's lookup and its result, and no reply.
    const ports = portsOf(store);
    const at = clock.now();
    const conversation = await ports.conversations.findOrCreate({
      userId: user.id,
      platform: "telegram",
      threadKey: thread.threadKey,
      runId: null,
      at,
    });
    const owner = { userId: user.id, conversationId: conversation.id, runId: null, createdAt: at };
    const lookup = { id: "call_1", function: { name: "list_tasks", arguments: { status: "open" } } };
    await ports.receipts.append([
      { ...owner, role: "user", content: QUESTION, toolName: null, metadata: {} },
      { ...owner, role: "assistant", content: "", toolCalls: [lookup], toolName: null, metadata: {} },
      {
        ...owner,
        role: "tool",
        content: '{"tasks":[]}',
        toolName: "list_tasks",
        toolCallId: "call_1",
        metadata: {},
      },
    ]);

    model.script({ content: "Happy to help with that." });
    const reply = await assistant.reply(user.id, thread, QUESTION);
    expect(reply.text).toBe("Happy to help with that.");
    const asked = model.requests.at(-1)?.messages.filter((message) => message.role === "user") ?? [];
    expect(asked.map((message) => message.content)).toEqual([QUESTION]);
    const stored = await listConversationMessages(store, conversation.id);
    expect(await findConversation(store, "telegram", thread.threadKey)).toMatchObject({
      id: conversation.id,
    });
    expect(stored.filter((message) => message.role === "user")).toHaveLength(1);
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: "Happy to help with that." });

    // Asked again once answered, it is a turn of its own.
    model.script({ content: "Happy to help again." });
    await assistant.reply(user.id, thread, QUESTION);
    const again = await listConversationMessages(store, conversation.id);
    expect(again.filter((message) => message.role === "user")).toHaveLength(2);
  });
});
