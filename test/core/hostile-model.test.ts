/**
 * A model reply is data to validate: NUL characters, arguments nested 1,000 deep, 10,000 calls in one turn,
 * a model that keeps the run waiting. None of them crashes a run: a briefing ends in its prose or its
 * digest, chat in an answer or a plain apology, and both record what happened. (Time and memory for these
 * are measured in `npm run bench`, section "hostile-model".)
 */

import { afterAll, beforeAll, expect, it } from "vitest";
import { resolveModelRoutes } from "../../src/config/model-routes.ts";
import { CHAT_COVERAGE } from "../../src/core/briefing/coverage.ts";
import { createModelClient } from "../../src/models/index.ts";
import { call, scriptedModel } from "../helpers/scripted-model.ts";
import {
  createTestUser,
  describeInMemory,
  findConversation,
  getRun,
  listConversationMessages,
  listRunMessages,
} from "../helpers/test-store.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import {
  LONDON,
  MODEL,
  MORNING_COVERAGE,
  seedTasks,
  seedWeather,
  startModelServer,
  testCore,
} from "./fixture.ts";

let ollama: OllamaTestServer;
beforeAll(async () => {
  ollama = await startModelServer();
});
afterAll(async () => {
  await ollama.close();
});

/** The real client against the Ollama test server, with a small output cap so an endless stream is cut fast. */
function cappedClient() {
  return createModelClient({
    routes: resolveModelRoutes(undefined, { ollamaHost: ollama.url, model: MODEL }),
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    numPredict: 64,
  });
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { filter: "open" };
  for (let level = 1; level < depth; level += 1) value = { filter: value };
  return value;
}

const hasNul = (value: unknown) => JSON.stringify(value).includes("\\u0000");

describeInMemory("hostile model replies", (getStore) => {
  async function setup() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    await seedTasks(store, user);
    await seedWeather(store);
    const model = scriptedModel();
    return { store, user, ...testCore(store, model) };
  }

  it("stores a briefing whose prose and tool arguments carry NUL, with every NUL gone", async () => {
    const { store, user, model, assistant } = await setup();
    model.script(
      {
        toolCalls: [
          call("search_projects", { query: "ho\u0000me" }),
          call("list_notes", { recent_days: "1\u0000" }),
        ],
      },
      { content: '"Renew passport"\u0000 is due at 14:30.\u0000' },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("agentic");
    expect(outcome.prose).toBe('"Renew passport" is due at 14:30.');
    const stored = await listRunMessages(store, outcome.runId);
    expect(stored.some((message) => hasNul(message))).toBe(false);
    expect(
      outcome.receipts.slice(-2).map((receipt) => [receipt.toolName, receipt.arguments, receipt.error]),
    ).toEqual([
      ["search_projects", { query: "home" }, false],
      ["list_notes", { recent_days: 1 }, false],
    ]);
    expect((await getRun(store, outcome.runId))?.state).toBe("generated");
  });

  it("answers arguments nested 1,000 levels deep with an error the model reads, storing no part of them", async () => {
    const { store, user, model, assistant } = await setup();
    model.script(
      { toolCalls: [call("list_tasks", nested(1_000))] },
      { content: '"Renew passport" is due at 14:30.' },
    );
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("agentic");
    const refused = outcome.receipts.at(-1);
    expect(refused).toMatchObject({ toolName: "list_tasks", arguments: {}, error: true });
    expect(JSON.stringify(refused?.result)).toMatch(/nested more than 6 levels deep/);
    expect(String(model.requests[1]?.messages.at(-1)?.content)).toMatch(/nested more than 6 levels deep/);
    const stored = await listRunMessages(store, outcome.runId);
    expect(JSON.stringify(stored).length).toBeLessThan(20_000);
  });

  it("runs 16 of 10,000 calls in one briefing turn and answers the other 9,984 with one error: 17 receipts", async () => {
    const { store, user, model, assistant } = await setup();
    const flood = Array.from({ length: 10_000 }, () => call("list_tasks", { filter: "overdue" }));
    model.script({ toolCalls: flood }, { content: '"File expenses" is overdue.' });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("agentic");
    expect(outcome.receipts).toHaveLength(MORNING_COVERAGE.length + 17);
    expect(outcome.receipts.filter((receipt) => receipt.error)).toHaveLength(1);
    // The model's next request carries 17 results, not 10,000.
    const next = model.requests[1];
    expect(next?.messages.filter((message) => message.role === "tool")).toHaveLength(
      MORNING_COVERAGE.length + 17,
    );
    expect(String(next?.messages.at(-1)?.content)).toContain("9,984 tool calls");
    expect(await listRunMessages(store, outcome.runId)).toHaveLength(
      1 + MORNING_COVERAGE.length + 1 + 17 + 1,
    );
  });

  it("runs 16 of 10,000 calls in one chat turn too, and stores a NUL-free reply", async () => {
    const { store, user, model, assistant } = await setup();
    const flood = Array.from({ length: 10_000 }, () => call("list_tasks", { filter: "due_today" }));
    model.script({ toolCalls: flood }, { content: '"Renew passport"\u0000 is due at 14:30.' });
    const thread = { platform: "cli" as const, threadKey: `cli:${user.id}:flood` };
    const reply = await assistant.reply(user.id, thread, "what's due?");
    expect(reply.text).toBe('"Renew passport" is due at 14:30.');
    // Today's receipts come first (a question with none yet in its thread), then the 17 of the flood.
    expect(reply.receipts).toHaveLength(CHAT_COVERAGE.length + 17);
    const conversation = await findConversation(store, "cli", thread.threadKey);
    const stored = await listConversationMessages(store, conversation!.id, 100);
    expect(stored.some((message) => hasNul(message))).toBe(false);
  });

  /** A monotonic timer that only moves when a model answers: each answer takes `ms` of simulated time. */
  function slowModel(ms: number) {
    let now = 0;
    const model = scriptedModel({
      reply: () => {
        now += ms;
        return { toolCalls: [call("list_tasks", { filter: "open" })] };
      },
    });
    return { model, timer: () => now };
  }

  it("ends a briefing whose run deadline passes in its digest, and records why", async () => {
    const { store, user } = await setup();
    // A model that keeps asking for more and takes 2 s per answer: the second request would start after
    // the briefing's 1 s budget.
    const { model, timer } = slowModel(2_000);
    const { assistant } = testCore(store, model, { config: { runDeadlineSeconds: 1 }, timer });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.timeoutMs).toBe(1_000);
    expect(outcome.mode).toBe("digest");
    expect(outcome.prose).toContain(
      "(The assistant model took too long, so this is a plain digest of your data.)",
    );
    expect((await getRun(store, outcome.runId))?.reason).toBe(
      "deadline exceeded: the morning briefing ran out of its 1 s budget before the next model request",
    );
  });

  it("answers a chat whose deadline passes with a plain apology, recorded on the reply", async () => {
    const { store, user } = await setup();
    const { model, timer } = slowModel(2_000);
    const { assistant } = testCore(store, model, { config: { chatDeadlineSeconds: 1 }, timer });
    const thread = { platform: "cli" as const, threadKey: `cli:${user.id}:slow` };
    const reply = await assistant.reply(user.id, thread, "what's open?");
    expect(model.requests).toHaveLength(1);
    expect(reply.text).toBe(
      "Sorry, the assistant model took too long to answer. Your message is saved; try again in a moment.",
    );
    expect(reply.grounding).toBeNull();
    // The call the model made before the deadline ran, and is on the thread.
    expect(reply.receipts.slice(CHAT_COVERAGE.length).map((receipt) => receipt.toolName)).toEqual([
      "list_tasks",
    ]);
    const conversation = await findConversation(store, "cli", thread.threadKey);
    const stored = await listConversationMessages(store, conversation!.id, 100);
    expect(stored.at(-1)?.metadata).toMatchObject({
      kind: "reply",
      failure: { code: "DEADLINE_EXCEEDED" },
    });
  });

  it("ends a briefing whose model streams without end in its digest (cut at 64 tokens), recorded", async () => {
    const { store, user } = await setup();
    ollama.script(MODEL, { endless: { token: "blah " } });
    const { assistant } = testCore(store, cappedClient());
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("digest");
    expect(outcome.prose).toContain('"Renew passport"');
    expect(outcome.prose).toContain("ran on past its limit");
    expect((await getRun(store, outcome.runId))?.reason).toMatch(/^output capped: .*output cap of 64 tokens/);
  });

  it("answers a chat whose model streams without end with a plain apology, recorded", async () => {
    const { store, user } = await setup();
    ollama.script(MODEL, { endless: { token: "blah " } });
    const { assistant } = testCore(store, cappedClient());
    const thread = { platform: "cli" as const, threadKey: `cli:${user.id}:endless` };
    const reply = await assistant.reply(user.id, thread, "tell me everything");
    expect(reply.text).toMatch(/^Sorry, the assistant model's answer ran on past its limit/);
    expect(reply.text).not.toContain("blah");
    const conversation = await findConversation(store, "cli", thread.threadKey);
    const stored = await listConversationMessages(store, conversation!.id, 100);
    expect(stored.at(-1)?.metadata).toMatchObject({ kind: "reply", failure: { code: "OUTPUT_CAPPED" } });
  });
});
