import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/core/domain.ts";
import { storableJson, TOO_DEEP } from "../../../src/core/storable-text.ts";
import { argumentProblem, screenToolCalls, TOOL_CALL_LIMITS } from "../../../src/core/tools/limits.ts";

/** An object nested `depth` levels deep: { a: { a: { … "bottom" } } }. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: "bottom" };
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

const toolCall = (name: string, args: Record<string, unknown>, id?: string): ToolCall => ({
  ...(id ? { id } : {}),
  function: { name, arguments: args },
});

describe("model replies are validated before anything runs or is stored", () => {
  it("refuses arguments 1,000 and 100,000 levels deep without recursion, and allows a flat object", () => {
    expect(argumentProblem({ filter: "due_today" })).toBeUndefined();
    expect(argumentProblem(nested(TOOL_CALL_LIMITS.maxArgumentDepth))).toBeUndefined();
    expect(argumentProblem(nested(TOOL_CALL_LIMITS.maxArgumentDepth + 1))).toMatch(
      /nested more than 6 levels/,
    );
    expect(argumentProblem(nested(1_000))).toMatch(/nested more than/);
    expect(argumentProblem(nested(100_000))).toMatch(/nested more than/);
  });

  it("refuses arguments longer than 20,000 characters, counting keys and values", () => {
    expect(argumentProblem({ title: "x".repeat(19_000) })).toBeUndefined();
    expect(argumentProblem({ title: "x".repeat(20_001) })).toMatch(/longer than 20,000 characters/);
    const manyKeys = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`key_${index}`, 1]));
    expect(argumentProblem(manyKeys)).toMatch(/longer than/);
  });

  it("keeps 16 of 10,000 calls in a turn and answers the rest with one error naming how many", () => {
    const raw = Array.from({ length: 10_000 }, (_, index) =>
      toolCall("list_tasks", { filter: "open" }, `call_${index}`),
    );
    const { calls, refusals } = screenToolCalls(raw);
    expect(calls).toHaveLength(17);
    expect(calls.map((call) => call.function.index)).toEqual([...Array(17).keys()]);
    expect([...refusals.keys()]).toEqual([16]);
    expect(refusals.get(16)).toBe(
      "Not run: 9,984 tool calls (this one and 9,983 more) went over the limit of 16 calls per turn. Call fewer tools at once.",
    );
    expect(calls[16]).toEqual({ id: "call_16", function: { index: 16, name: "list_tasks", arguments: {} } });
  });

  it("drops refused arguments, cleans NUL from the kept ones, and cuts names and ids", () => {
    const { calls, refusals } = screenToolCalls([
      toolCall("create_task", { title: "Buy\u0000 milk\u0007", tags: ["a\u0000b"] }, "call_\u0000x"),
      toolCall("create_task", nested(1_000), "call_2"),
      toolCall(`create_task${"x".repeat(500)}`, {}, "y".repeat(500)),
    ]);
    expect(calls[0]).toEqual({
      id: "call_x",
      function: { index: 0, name: "create_task", arguments: { title: "Buy milk", tags: ["ab"] } },
    });
    expect(refusals.has(0)).toBe(false);
    expect(calls[1]?.function.arguments).toEqual({});
    expect(refusals.get(1)).toMatch(/nested more than 6 levels deep/);
    expect(calls[2]?.function.name).toHaveLength(64);
    expect(calls[2]?.id).toHaveLength(64);
    expect(refusals.get(2)).toBe("Not run: the tool name is not valid.");
  });

  it("makes any JSON storable: NUL gone, lone surrogates replaced, depth bounded, dates as ISO strings", () => {
    expect(
      storableJson({ "k\u0000ey": "v\u0000al", list: ["\ud800x"], at: new Date("2025-06-02T06:00:00Z") }),
    ).toEqual({
      key: "val",
      list: ["\ufffdx"],
      at: "2025-06-02T06:00:00.000Z",
    });
    const deep = storableJson(nested(100_000), 4) as { a: { a: { a: { a: unknown } } } };
    expect(deep.a.a.a.a).toBe(TOO_DEEP);
    expect(storableJson({ n: Number.NaN, f: () => 1, u: undefined })).toEqual({ n: null });
    // Keys keep their order (the model and the receipts views read them in it).
    expect(Object.keys(storableJson({ b: 1, a: { d: 1, c: 2 }, c: 3 }) as object)).toEqual(["b", "a", "c"]);
    expect(JSON.stringify(storableJson({ a: { d: 1, c: 2 } }))).toBe('{"a":{"d":1,"c":2}}');
  });
});
