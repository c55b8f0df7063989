import { expect, it } from "vitest";
import type { ChatMessage } from "../../../src/core/model.ts";
import { briefingToolSet } from "../../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { hasToolCall, isStepCount, runToolLoop } from "../../../src/core/tools/tool-loop.ts";
import { call, scriptedModel } from "../../helpers/scripted-model.ts";
import { createTask, createTestUser, describeInMemory } from "../../helpers/test-store.ts";
import { TODAY, toolContextFor } from "../fixture.ts";

const tools = briefingToolSet(createDefaultToolRegistry());
const opening: readonly ChatMessage[] = Object.freeze([
  { role: "system", content: "You are a test." },
  { role: "user", content: "Go." },
]);

describeInMemory("the tool loop", (getStore) => {
  async function setup() {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London" });
    await createTask(store, { userId: user.id, title: "Water plants", dueDate: TODAY });
    return { context: toolContextFor(store, user), model: scriptedModel() };
  }

  it("returns one immutable step per model request and a new conversation, leaving the caller's alone", async () => {
    const { context, model } = await setup();
    model.script(
      { toolCalls: [call("list_tasks", { filter: "due_today" }), call("list_events", { range: "today" })] },
      { content: "Water plants is due today." },
    );
    const seen: number[] = [];
    const loop = await runToolLoop({
      model,
      role: "briefing",
      messages: opening,
      tools,
      context,
      stopWhen: isStepCount(8),
      onStep: async (step) => {
        seen.push(step.outcomes.length);
      },
    });
    expect(seen).toEqual([2, 0]);
    expect(loop.text).toBe("Water plants is due today.");
    expect(loop.steps.map((step) => step.calls.map((toolCall) => toolCall.function.name))).toEqual([
      ["list_tasks", "list_events"],
      [],
    ]);
    expect(JSON.stringify(loop.steps[0]?.outcomes[0]?.result)).toContain("Water plants");
    expect(Object.isFrozen(loop.steps[0])).toBe(true);
    expect(Object.isFrozen(loop.steps[0]?.outcomes)).toBe(true);
    expect(opening).toHaveLength(2);
    expect(loop.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
    ]);
    // Each request carried the conversation as it stood then.
    expect(model.requests.map((request) => request.messages.length)).toEqual([2, 5]);
  });

  it("stops when a stop condition holds after a step with tool calls, with no answer", async () => {
    const { context, model } = await setup();
    model.script(
      { content: "Looking.", toolCalls: [call("list_notes")] },
      { toolCalls: [call("list_events", { range: "today" })] },
      { content: "never asked for" },
    );
    const capped = await runToolLoop({
      model,
      role: "briefing",
      messages: opening,
      tools,
      context,
      stopWhen: [isStepCount(5), hasToolCall("list_events")],
    });
    expect(capped.steps).toHaveLength(2);
    expect(capped.text).toBeNull();
    expect(capped.lastProse).toBe("Looking.");
    expect(model.requests).toHaveLength(2);

    const busy = scriptedModel({ reply: () => ({ toolCalls: [call("list_notes")] }) });
    const counted = await runToolLoop({
      model: busy,
      role: "briefing",
      messages: opening,
      tools,
      context,
      stopWhen: isStepCount(2),
    });
    expect(counted.steps).toHaveLength(2);
    expect(counted.text).toBeNull();
    expect(busy.requests).toHaveLength(2);
  });

  it("runs no calls when no tools are on offer: the model must answer in prose", async () => {
    const { context, model } = await setup();
    model.script({ content: "Done.", toolCalls: [call("list_notes")] });
    const loop = await runToolLoop({
      model,
      role: "interactive",
      messages: opening,
      tools: undefined,
      context,
      stopWhen: isStepCount(3),
    });
    expect(loop.steps[0]?.calls).toEqual([]);
    expect(loop.text).toBe("Done.");
    expect(model.requests[0]?.tools).toBeUndefined();
  });
});
