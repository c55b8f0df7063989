import { z } from "zod";
import type { ToolSchema } from "../model.ts";
import type { AnyTool } from "./define-tool.ts";

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every tool the product has, by name. Runs never see it whole: they get a {@link ToolSet}. */
export interface ToolRegistry {
  /** Own properties only, so a model naming `constructor` or `__proto__` finds nothing. */
  get(name: string): AnyTool | undefined;
  names(): string[];
}

export function createToolRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName: Record<string, AnyTool> = Object.create(null);
  for (const tool of tools) {
    if (!SNAKE_CASE.test(tool.name)) throw new Error(`tool name "${tool.name}" is not snake_case`);
    if (Object.hasOwn(byName, tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    if (tool.alwaysConfirm && tool.readOnly)
      throw new Error(`tool "${tool.name}" asks for confirmation but claims to be read-only`);
    if (!tool.readOnly && !tool.describe)
      throw new Error(`tool "${tool.name}" changes data but cannot describe a change for a confirmation`);
    byName[tool.name] = tool;
  }
  return {
    get: (name) => (Object.hasOwn(byName, name) ? byName[name] : undefined),
    names: () => Object.keys(byName),
  };
}

/** The tools one run may call: the only ones the model is shown, and the only ones dispatch will run. */
export interface ToolSet {
  /** Which allowlist this is, for logs and refusals. */
  label: string;
  has(name: string): boolean;
  get(name: string): AnyTool | undefined;
  names(): string[];
  schemas(): ToolSchema[];
}

export function createToolSet(registry: ToolRegistry, label: string, names: readonly string[]): ToolSet {
  const tools: AnyTool[] = [];
  for (const name of names) {
    const tool = registry.get(name);
    if (!tool) throw new Error(`allowlist "${label}" names "${name}", which is not a registered tool`);
    tools.push(tool);
  }
  const allowed = new Map(tools.map((tool) => [tool.name, tool]));
  const schemas = tools.map(toolSchema);
  return {
    label,
    has: (name) => allowed.has(name),
    get: (name) => allowed.get(name),
    names: () => [...allowed.keys()],
    schemas: () => schemas,
  };
}

/** The Ollama function shape; `io: "input"` so defaulted fields are optional, as the model may omit them. */
export function toolSchema(tool: AnyTool): ToolSchema {
  const parameters = ollamaKeywords(
    z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }),
  ) as Record<string, unknown>;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}

/**
 * The JSON-schema keywords Ollama's `ToolFunctionParameters`/`ToolProperty` decode. Go drops every other
 * one (`default`, `minimum`, `maxLength`, `$schema`…) before the template renders, so the model never sees
 * them; sending them only costs the prompt budget's estimate. Bounds the model must know are in the
 * descriptions ("How many items, 1-30"), and the zod schema still enforces them all.
 */
const OLLAMA_KEYWORDS = new Set([
  "type",
  "description",
  "enum",
  "items",
  "properties",
  "required",
  "anyOf",
  "$defs",
]);

function ollamaKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(ollamaKeywords);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).flatMap(([key, value]) => {
      if (!OLLAMA_KEYWORDS.has(key)) return [];
      // Under `properties` and `$defs` the keys are names, not keywords: each value is a schema.
      if ((key === "properties" || key === "$defs") && typeof value === "object" && value !== null)
        return [
          [
            key,
            Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, ollamaKeywords(inner)])),
          ],
        ];
      return [[key, key === "enum" || key === "required" ? value : ollamaKeywords(value)]];
    }),
  );
}
