/**
 * The prompt budget's fitting on its own: which lists lose items, in what order, and what the model is told
 * of what was left out.
 */
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../src/core/model.ts";
import { MODEL_LIST_LIMITS, withShown } from "../../../src/core/tools/model-view.ts";
import { fitPrompt, MIN_SHOWN, promptBudget } from "../../../src/core/tools/prompt-budget.ts";
import { estimatePromptTokens } from "../../../src/models/index.ts";

const task = (index: number) => ({ id: index, title: `Task number ${index} with a long enough title` });
const tool = (result: unknown): ChatMessage => ({
  role: "tool",
  content: JSON.stringify(result),
  tool_name: "list_tasks",
});
const long = { filter: "overdue", count: 40, tasks: Array.from({ length: 40 }, (_, index) => task(index)) };
const short = {
  filter: "due_today",
  count: 4,
  tasks: Array.from({ length: 4 }, (_, index) => task(100 + index)),
};
const messages: ChatMessage[] = [{ role: "system", content: "Brief the user." }, tool(long), tool(short)];

function sent(fitted: { messages: ChatMessage[] }, index: number): Record<string, unknown> {
  return JSON.parse(fitted.messages[index]?.content ?? "null") as Record<string, unknown>;
}

describe("fitPrompt", () => {
  it("without a budget cuts at the usual limits only", () => {
    const fitted = fitPrompt(messages, undefined, undefined);
    expect(fitted.caps).toEqual(MODEL_LIST_LIMITS);
    expect(sent(fitted, 1)).toMatchObject({ count: 40, shown: 15 });
    expect(sent(fitted, 2)).toEqual(short);
  });

  it("shortens the longest list first, leaving the short one whole, and says how many are left out", () => {
    const usual = estimatePromptTokens(fitPrompt(messages, undefined, undefined).messages, undefined);
    expect(usual).toBeGreaterThan(300);
    const fitted = fitPrompt(messages, undefined, { tokens: 300, estimate: estimatePromptTokens });

    expect(fitted.fits).toBe(true);
    expect(fitted.tokens).toBeLessThanOrEqual(300);
    const overdue = sent(fitted, 1);
    const shown = Number(overdue.shown);
    expect(shown).toBeLessThan(15);
    expect(overdue.tasks).toHaveLength(shown);
    expect(String(overdue.note)).toContain(
      `${40 - shown} more tasks not shown: say "and ${40 - shown} more"`,
    );
    expect(sent(fitted, 2)).toEqual(short);
    // The conversation itself is untouched: every result stays whole.
    expect(JSON.parse(messages[1]?.content ?? "")).toEqual(long);
  });

  it("never shows more than the caps it starts from, and says so when even the shortest lists do not fit", () => {
    const start = { ...MODEL_LIST_LIMITS, tasks: 5 };
    const roomy = fitPrompt(messages, undefined, promptBudget(100_000, estimatePromptTokens), start);
    expect(sent(roomy, 1)).toMatchObject({ shown: 5 });
    expect(sent(roomy, 2)).toEqual(short);

    const hopeless = fitPrompt(messages, undefined, { tokens: 10, estimate: estimatePromptTokens });
    expect(hopeless.fits).toBe(false);
    expect(sent(hopeless, 1)).toMatchObject({ shown: MIN_SHOWN });
    expect(sent(hopeless, 2)).toMatchObject({ shown: MIN_SHOWN });
  });

  it("hands the gate each list as the model was shown it, only where the budget cut below the usual limit", () => {
    const receipt = (result: unknown, id: number) => ({
      id,
      runId: 1,
      toolName: "list_tasks",
      arguments: {},
      result,
      error: false,
      at: new Date(0),
    });
    const [cut, untouched] = withShown([receipt(long, 1), receipt(short, 2)], {
      ...MODEL_LIST_LIMITS,
      tasks: 6,
    });
    expect(cut?.result).toMatchObject({ count: 40, shown: 6 });
    expect((cut?.result as { tasks?: unknown[] } | undefined)?.tasks).toHaveLength(40);
    expect(untouched?.result).toBe(short);
  });
});
