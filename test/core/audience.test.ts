/**
 * The shared-space rule: which answers read a person's data (from what the chat turn drew on, as the
 * assistant reports it), and who may read an answer in each kind of space.
 */
import { describe, expect, it } from "vitest";
import {
  answersInBriefingThread,
  audienceOf,
  othersBriefingText,
  readsPersonalData,
} from "../../src/core/audience.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { createTask, createTestUser, describeInMemory } from "../helpers/test-store.ts";
import { call, LONDON, seedTasks, seedWeather, testCore } from "./fixture.ts";

describe("audienceOf", () => {
  it("keeps a personal answer to the asker in a shared space only", () => {
    expect(audienceOf("shared", true)).toBe("asker");
    expect(audienceOf("shared", false)).toBe("space");
    // A DM is the person's own space; a team space is meant for everyone in it.
    expect(audienceOf("direct", true)).toBe("space");
    expect(audienceOf("team", true)).toBe("space");
    expect(audienceOf("team", false)).toBe("space");
  });
});

describe("readsPersonalData", () => {
  it("is personal with any receipt, a briefing followed up on, or a change; otherwise not", () => {
    const none = { followsUpBriefing: false, receipts: 0, changes: 0 };
    expect(readsPersonalData(none)).toBe(false);
    expect(readsPersonalData({ ...none, receipts: 1 })).toBe(true);
    expect(readsPersonalData({ ...none, followsUpBriefing: true })).toBe(true);
    expect(readsPersonalData({ ...none, changes: 1 })).toBe(true);
  });
});

describe("briefing threads", () => {
  it("answer only their owner, and tell anyone else whose they are", () => {
    expect(answersInBriefingThread(7, 7)).toBe(true);
    expect(answersInBriefingThread(7, 8)).toBe(false);
    expect(answersInBriefingThread(7, undefined)).toBe(false);
    expect(othersBriefingText("Ana")).toBe("This is Ana's briefing; send me a DM for yours.");
  });
});

describeInMemory("a chat reply says whether it read the person's data", (getStore) => {
  async function setUp() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    const model = scriptedModel();
    return { store, user, ...testCore(store, model) };
  }
  /** A thread in a channel others read: nothing of hers is looked at unless the answer needs it. */
  const thread = (key: string, runId?: number) => ({
    platform: "slack" as const,
    threadKey: `slack:C0PRIV:${key}`,
    runId,
    space: "shared" as const,
  });

  it("is not personal for an answer from the words alone, and is once a tool ran in the thread", async () => {
    const { user, model, assistant } = await setUp();
    model.script({ content: "Hello! I can look at your tasks, calendar, notes and the weather." });
    const greeting = await assistant.reply(user.id, thread(`${user.id}.1`), "hi, what can you do?");
    expect(greeting.personal).toBe(false);
    expect(greeting.receipts).toEqual([]);

    model.script(
      { toolCalls: [call("list_tasks", { filter: "due_today" })] },
      { content: '"Renew passport" is due at 14:30.' },
    );
    const tasks = await assistant.reply(user.id, thread(`${user.id}.1`), "what's due today?");
    expect(tasks.text).toContain("Renew passport");
    expect(tasks.personal).toBe(true);

    // Later words in the same thread have that receipt in their context, so they are personal too.
    model.script({ content: "You're welcome." });
    const thanks = await assistant.reply(user.id, thread(`${user.id}.1`), "thanks");
    expect(thanks.personal).toBe(true);
  });

  it("is personal for a follow-up on a briefing, even one answered without a tool call", async () => {
    const { user, model, assistant } = await setUp();
    model.script({ content: '"Renew passport" is due at 14:30.' });
    const morning = await assistant.brief(user.id, { slot: "morning" });
    model.script({ content: "Good morning to you too." });
    const reply = await assistant.reply(user.id, thread(`${user.id}.2`, morning.runId), "good morning");
    expect(reply.personal).toBe(true);
  });

  it("is personal for a change waiting for a Confirm", async () => {
    const { store, user, model, assistant } = await setUp();
    const task = await createTask(store, { userId: user.id, title: "Old chore", dueDate: "2025-06-02" });
    model.script({ toolCalls: [call("delete_task", { id: task.id })] }, { content: "Please confirm." });
    const reply = await assistant.reply(user.id, thread(`${user.id}.3`), `delete task ${task.id}`);
    expect(reply.pending).toHaveLength(1);
    expect(reply.personal).toBe(true);
    // The thread's next words have the waiting change (its tool call and result) in their context.
    model.script({ content: "Take your time." });
    const next = await assistant.reply(user.id, thread(`${user.id}.3`), "let me think");
    expect(next.personal).toBe(true);
  });
});
