import { expect, it } from "vitest";
import { CHANGES_SINCE_MORNING_TOOL } from "../../../src/core/briefing/changes-since-morning.ts";
import type { User } from "../../../src/core/domain.ts";
import { RunTakenError } from "../../../src/core/errors.ts";
import { ModelError } from "../../../src/core/model.ts";
import { claimRun } from "../../helpers/runs.ts";
import { scriptedModel } from "../../helpers/scripted-model.ts";
import {
  completeTask,
  createTask,
  createTestUser,
  describeInMemory,
  getRun,
  insertMessages,
  listRunMessages,
  listRunReceipts,
  portsOf,
} from "../../helpers/test-store.ts";
import { LONDON, seedWeather, TEST_OWNER, TODAY, testCore } from "../fixture.ts";

/** 12:30 BST, the default midday slot. */
const MIDDAY = "2025-06-02T11:30:00Z";
/** A check-in's coverage, which the runner makes before the model speaks. */
const MIDDAY_COVERAGE = [
  ["list_tasks", { filter: "due_today" }],
  ["list_tasks", { filter: "overdue" }],
  ["list_tasks", { filter: "high_priority" }],
  ["list_events", { range: "today" }],
  ["get_weather", {}],
];
const MIDDAY_TOOLS = MIDDAY_COVERAGE.map(([name]) => name);

describeInMemory("check-ins know the morning", (getStore) => {
  /** A user whose morning briefing saw "Renew passport" open; it is completed at 09:00. */
  async function morningThenCompleted(): Promise<{ user: User; morningRunId: number }> {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const task = await createTask(store, {
      userId: user.id,
      title: "Renew passport",
      dueDate: TODAY,
      dueTime: "14:30",
    });
    await seedWeather(store);
    const model = scriptedModel();
    model.script({ content: "Renew passport is due today at 14:30. Nothing on your calendar today." });
    const morning = await testCore(store, model).assistant.brief(user.id, { slot: "morning" });
    expect(morning.mode).toBe("agentic");
    await completeTask(store, user.id, task.id, new Date("2025-06-02T08:00:00Z"));
    return { user, morningRunId: morning.runId };
  }

  it("hands a midday check-in what changed since the morning as a stored receipt the model reads first", async () => {
    const store = getStore();
    const { user, morningRunId } = await morningThenCompleted();
    const model = scriptedModel();
    const { assistant, clock } = testCore(store, model);
    clock.set(MIDDAY);
    model.script({
      content: "You have completed Renew passport since this morning. Nothing on your calendar today.",
    });

    const outcome = await assistant.brief(user.id, { slot: "midday" });

    // The model's only request already carries the receipt with the coverage calls, in one runner turn, and
    // the prompt says to rely on it.
    expect(model.requests).toHaveLength(1);
    const first = model.requests[0];
    expect(first?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      ...MIDDAY_TOOLS.map(() => "tool"),
    ]);
    expect(String(first?.messages[0]?.content)).toContain(
      `The ${CHANGES_SINCE_MORNING_TOOL} result above was computed from the user's data`,
    );
    const turn = first?.messages[2];
    expect(
      turn?.role === "assistant" ? turn.tool_calls?.map((toolCall) => toolCall.function.name) : [],
    ).toEqual([CHANGES_SINCE_MORNING_TOOL, ...MIDDAY_TOOLS]);
    const seeded = first?.messages[3];
    expect(seeded).toMatchObject({ role: "tool", tool_name: CHANGES_SINCE_MORNING_TOOL });
    expect(String(seeded?.content)).toContain('"tasksCompleted":[{');
    expect(String(seeded?.content)).toContain('"title":"Renew passport"');
    expect(String(seeded?.content)).toContain(`"morningRunId":${morningRunId}`);

    // Stored as a runner-made receipt of the run, first of the runner's turn.
    const receipts = await listRunReceipts(store, outcome.runId);
    expect(receipts.map((receipt) => receipt.toolName)).toEqual([
      CHANGES_SINCE_MORNING_TOOL,
      ...MIDDAY_TOOLS,
    ]);
    expect(receipts[0]?.arguments).toEqual({ local_date: TODAY });
    expect(receipts[0]?.at.toISOString()).toBe(new Date(MIDDAY).toISOString());
    expect(receipts[0]?.result).toMatchObject({
      nothingChanged: false,
      tasksCompleted: [{ title: "Renew passport", completedAt: "09:00" }],
    });
    const stored = await listRunMessages(store, outcome.runId);
    expect(stored[0]).toMatchObject({ role: "assistant", metadata: { kind: "tool_calls", by: "runner" } });
    expect(stored[1]).toMatchObject({ role: "tool", toolName: CHANGES_SINCE_MORNING_TOOL });
    expect(stored[1]?.toolCallId).toBe(stored[0]?.toolCalls?.[0]?.id);
    expect(stored.slice(1, 2 + MIDDAY_TOOLS.length).map((message) => message.toolCallId)).toEqual(
      stored[0]?.toolCalls?.map((toolCall) => toolCall.id),
    );

    // The completed task is named only by the changes receipt, and grounding accepts it.
    expect(outcome.prose).toContain("Renew passport");
    expect(outcome.grounding).toMatchObject({ unbacked: [], action: "none" });
    expect(outcome.receipts[0]?.toolName).toBe(CHANGES_SINCE_MORNING_TOOL);
    expect(await getRun(store, outcome.runId)).toMatchObject({
      state: "generated",
      toolCalls: 1 + MIDDAY_TOOLS.length,
    });
  });

  it("does not ask for changes in a morning briefing", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const model = scriptedModel();
    const { assistant } = testCore(store, model);
    model.script({ content: "Nothing on your calendar today." });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.receipts.map((receipt) => receipt.toolName)).not.toContain(CHANGES_SINCE_MORNING_TOOL);
    expect(model.requests.at(-1)?.messages[0]?.content).not.toContain(CHANGES_SINCE_MORNING_TOOL);
  });

  it("goes ahead without the changes when they cannot be worked out, with a warning", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const model = scriptedModel();
    const { assistant, clock, logger } = testCore(store, model, {
      wrapPorts: (ports) => ({
        ...ports,
        runs: {
          ...ports.runs,
          morningOf: async () => {
            throw new Error("database hiccup");
          },
        },
      }),
    });
    clock.set(MIDDAY);
    model.script({ content: "Nothing on your calendar today." });
    const outcome = await assistant.brief(user.id, { slot: "afternoon" });
    expect(logger.warnings).toEqual([
      {
        details: expect.objectContaining({ userId: user.id, error: "database hiccup" }),
        message: "could not work out what changed since the morning; the check-in goes ahead without it",
      },
    ]);
    expect(outcome.mode).toBe("agentic");
    expect(outcome.receipts.map((receipt) => receipt.toolName)).toEqual(MIDDAY_TOOLS);
    const first = model.requests[0];
    expect(first?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      ...MIDDAY_TOOLS.map(() => "tool"),
    ]);
    expect(String(first?.messages[0]?.content)).toContain(
      "If nothing meaningful has changed, say so briefly",
    );
  });

  it("leads a check-in digest with what changed when the model is down", async () => {
    const store = getStore();
    const { user } = await morningThenCompleted();
    const down = scriptedModel({
      reply: () => ({ error: new ModelError("every endpoint of the route failed", "MODEL_UNAVAILABLE") }),
    });
    const { assistant, clock } = testCore(store, down);
    clock.set(MIDDAY);
    const outcome = await assistant.brief(user.id, { slot: "midday" });
    expect(outcome.mode).toBe("digest");
    expect(outcome.prose.split("\n")[1]).toBe("Since the morning briefing (07:00): 1 task completed.");
  });

  it("drops an interrupted attempt's messages when its orphaned run is reclaimed and generated again", async () => {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const lifecycle = portsOf(store).lifecycle;
    const run = await claimRun(
      store,
      { userId: user.id, slot: "midday", localDate: TODAY },
      new Date(MIDDAY),
      "dead-process",
    );
    await lifecycle.start(run.id, user.id, "dead-process", new Date(MIDDAY));
    // What the first attempt stored before its process died.
    await insertMessages(store, [
      {
        userId: user.id,
        conversationId: null,
        runId: run.id,
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_old", function: { name: "list_tasks", arguments: { filter: "due_today" } } }],
        metadata: { kind: "tool_calls", by: "model" },
        createdAt: new Date("2025-06-02T11:30:00Z"),
      },
      {
        userId: user.id,
        conversationId: null,
        runId: run.id,
        role: "tool",
        content: '{"count":0,"tasks":[]}',
        toolName: "list_tasks",
        toolCallId: "call_old",
        metadata: { kind: "receipt", by: "model", arguments: { filter: "due_today" }, error: false },
        createdAt: new Date("2025-06-02T11:30:00Z"),
      },
    ]);
    const model = scriptedModel();
    const { generateBriefing, clock } = testCore(store, model);
    clock.set("2025-06-02T11:55:00Z");

    // Before it is reclaimed the run is not this process's; another user's attempt is refused as well.
    await expect(generateBriefing({ user, slot: "midday", runId: run.id })).rejects.toBeInstanceOf(
      RunTakenError,
    );
    expect(await lifecycle.reclaim(run.id, "dead-process", TEST_OWNER, clock.now())).toMatchObject({
      state: "claimed",
    });
    const intruder = await createTestUser(store, LONDON);
    await expect(generateBriefing({ user: intruder, slot: "midday", runId: run.id })).rejects.toBeInstanceOf(
      RunTakenError,
    );
    expect(await listRunMessages(store, run.id)).toHaveLength(2);

    model.script({ content: "Nothing on your calendar today." });
    const outcome = await generateBriefing({ user, slot: "midday", runId: run.id });

    const receipts = await listRunReceipts(store, run.id);
    expect(receipts.map((receipt) => [receipt.toolName, receipt.arguments])).toEqual([
      [CHANGES_SINCE_MORNING_TOOL, { local_date: TODAY }],
      ...MIDDAY_COVERAGE,
    ]);
    expect(receipts.every((receipt) => receipt.at.toISOString() === "2025-06-02T11:55:00.000Z")).toBe(true);
    const stored = await listRunMessages(store, run.id);
    expect(stored.some((message) => message.toolCallId === "call_old")).toBe(false);
    expect(outcome.receipts).toHaveLength(1 + MIDDAY_TOOLS.length);
    expect(await getRun(store, run.id)).toMatchObject({
      state: "generated",
      toolCalls: 1 + MIDDAY_TOOLS.length,
      claimedBy: TEST_OWNER,
    });
  });
});
