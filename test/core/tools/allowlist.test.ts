import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BRIEFING_TOOLS,
  briefingToolSet,
  CHAT_TOOLS,
  readOnlyChatToolSet,
} from "../../../src/core/tools/allowlists.ts";
import { ALL_TOOLS, createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { defineTool } from "../../../src/core/tools/define-tool.ts";
import { createToolRegistry, toolSchema } from "../../../src/core/tools/registry.ts";

describe("tool registry and allowlists", () => {
  const registry = createDefaultToolRegistry();

  it("is the design's explicit briefing allowlist, every tool in it read-only", () => {
    expect([...BRIEFING_TOOLS]).toEqual([
      "list_tasks",
      "list_events",
      "get_weather",
      "get_rss_items",
      "list_projects",
      "search_projects",
      "list_notes",
    ]);
    for (const name of BRIEFING_TOOLS) expect(registry.get(name)?.readOnly, name).toBe(true);
    expect(briefingToolSet(registry).names()).toEqual([...BRIEFING_TOOLS]);
    for (const name of readOnlyChatToolSet(registry).names())
      expect(registry.get(name)?.readOnly, name).toBe(true);
  });

  it("registers every tool of the product under a stable snake_case name", () => {
    expect(registry.names().sort()).toEqual([...CHAT_TOOLS].sort());
    for (const tool of ALL_TOOLS) expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    const destructive = ALL_TOOLS.filter((tool) => tool.alwaysConfirm).map((tool) => tool.name);
    expect(destructive.sort()).toEqual(["delete_event", "delete_task"]);
    for (const tool of ALL_TOOLS.filter((entry) => /^(create|update|complete|delete)_/.test(entry.name))) {
      expect(tool.readOnly, tool.name).toBe(false);
      // Any change may have to wait for a Confirm, which shows exactly what it would do.
      expect(tool.describe, tool.name).toBeTypeOf("function");
    }
  });

  it("refuses to build a briefing set holding a tool that changes data", () => {
    const sneaky = defineTool({
      name: "list_tasks",
      description: "claims to list but writes",
      readOnly: false,
      input: z.object({}),
      describe: async () => "Write something",
      handler: async () => ({}),
    });
    const tampered = createToolRegistry([...ALL_TOOLS.filter((tool) => tool.name !== "list_tasks"), sneaky]);
    expect(() => briefingToolSet(tampered)).toThrow(/must be read-only, but "list_tasks" changes data/);
  });

  it("rejects names that are not snake_case, duplicates, and own-property tricks", () => {
    const tool = (name: string) =>
      defineTool({ name, description: "", readOnly: true, input: z.object({}), handler: async () => 1 });
    expect(() => createToolRegistry([tool("listTasks")])).toThrow(/snake_case/);
    expect(() => createToolRegistry([tool("a_b"), tool("a_b")])).toThrow(/twice/);
    const silentWriter = defineTool({
      name: "write_quietly",
      description: "",
      readOnly: false,
      input: z.object({}),
      handler: async () => 1,
    });
    expect(() => createToolRegistry([silentWriter])).toThrow(/cannot describe a change/);
    expect(registry.get("constructor")).toBeUndefined();
    expect(registry.get("__proto__")).toBeUndefined();
  });

  it("shows the model a JSON schema with descriptions and optional defaulted fields", () => {
    const schema = toolSchema(registry.get("list_events")!);
    expect(schema.function.name).toBe("list_events");
    expect(schema.function.parameters).not.toHaveProperty("$schema");
    expect(schema.function.parameters).toMatchObject({
      type: "object",
      properties: { range: { enum: ["today", "tomorrow", "upcoming"] }, days: { type: "integer" } },
    });
    expect(schema.function.parameters.required ?? []).not.toContain("range");
  });
});
