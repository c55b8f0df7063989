/**
 * A model reply is data from outside, validated like any other input before anything runs or is stored:
 * its text cleaned of what PostgreSQL and the platforms refuse, its tool names and ids cut to a sane length,
 * its arguments bounded in depth and size, and its calls per turn capped. A reply that breaks a limit is
 * answered with errors the model reads next turn; it never crashes the run.
 */
import type { ToolCall } from "../domain.ts";
import type { ChatResult } from "../model.ts";
import { storableJson, storableSnippet, storableText } from "../storable-text.ts";

export interface ToolCallLimits {
  /** Calls run per model turn; the rest are answered with one error. */
  maxCallsPerTurn: number;
  /** Nesting levels of an arguments object (the object itself is level 1). */
  maxArgumentDepth: number;
  /** Characters of an arguments object's keys and values together. */
  maxArgumentChars: number;
  /** Characters of a tool name or a call id. */
  maxNameLength: number;
}

/** Every real tool takes a flat object of a few short fields; these leave room and nothing more. */
export const TOOL_CALL_LIMITS: ToolCallLimits = {
  maxCallsPerTurn: 16,
  maxArgumentDepth: 6,
  maxArgumentChars: 20_000,
  maxNameLength: 64,
};

/**
 * Why these arguments are refused, or undefined when they are within the limits. Walks the value with its
 * own stack and stops at the first limit crossed, so a value 100,000 levels deep or megabytes long costs
 * no more than the limit itself.
 */
export function argumentProblem(
  args: unknown,
  limits: ToolCallLimits = TOOL_CALL_LIMITS,
): string | undefined {
  let chars = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: args, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth } = item;
    if (typeof value === "string") chars += value.length;
    else if (value !== null && typeof value === "object") {
      if (depth > limits.maxArgumentDepth) {
        return `arguments are nested more than ${limits.maxArgumentDepth} levels deep`;
      }
      for (const [key, inner] of Object.entries(value)) {
        chars += key.length;
        stack.push({ value: inner, depth: depth + 1 });
        if (chars > limits.maxArgumentChars) break;
      }
    } else chars += 8;
    if (chars > limits.maxArgumentChars) {
      return `arguments are longer than ${limits.maxArgumentChars.toLocaleString("en")} characters`;
    }
  }
  return undefined;
}

/** A turn's calls, ready to run and to store: at most one more than the cap, each refused one marked. */
export interface ScreenedCalls {
  calls: ToolCall[];
  /** Why the call at that index is not run. */
  refusals: Map<number, string>;
}

/**
 * The calls of one model turn as they may be run and stored. Beyond `maxCallsPerTurn`, one more call
 * stands for all the rest: it is kept (so the model's turn still pairs with its results) and answered
 * with one error saying how many were not run. Refused calls keep their name and id but not their
 * arguments, which would otherwise reach the database and the next prompt.
 */
export function screenToolCalls(
  raw: readonly ToolCall[],
  limits: ToolCallLimits = TOOL_CALL_LIMITS,
): ScreenedCalls {
  const calls: ToolCall[] = [];
  const refusals = new Map<number, string>();
  const kept = Math.min(raw.length, limits.maxCallsPerTurn);
  for (let index = 0; index < kept; index += 1) {
    const call = raw[index];
    if (call === undefined) continue;
    const problem = argumentProblem(call.function.arguments, limits);
    const name = cleanName(call.function.name, limits);
    if (problem !== undefined) refusals.set(calls.length, `Not run: ${problem}.`);
    else if (name !== call.function.name) refusals.set(calls.length, "Not run: the tool name is not valid.");
    const args = problem === undefined ? storableJson(call.function.arguments) : {};
    calls.push(cleanCall(call, calls.length, isRecord(args) ? args : {}, limits));
  }
  const over = raw[kept];
  if (over !== undefined) {
    const extra = raw.length - kept;
    refusals.set(
      calls.length,
      `Not run: ${extra.toLocaleString("en")} tool calls (this one and ${(extra - 1).toLocaleString("en")} more) ` +
        `went over the limit of ${limits.maxCallsPerTurn} calls per turn. Call fewer tools at once.`,
    );
    calls.push(cleanCall(over, calls.length, {}, limits));
  }
  return { calls, refusals };
}

/**
 * A model reply as the core may keep it: its prose cleaned. Its tool calls are screened per turn by
 * {@link screenToolCalls}, which also caps how many are kept.
 */
export function cleanModelReply(result: ChatResult): ChatResult {
  return { ...result, content: storableText(result.content) };
}

function cleanCall(
  call: ToolCall,
  index: number,
  args: Record<string, unknown>,
  limits: ToolCallLimits,
): ToolCall {
  const id = typeof call.id === "string" ? storableSnippet(call.id, limits.maxNameLength) : undefined;
  return {
    ...(id ? { id } : {}),
    function: { index, name: cleanName(call.function.name, limits), arguments: args },
  };
}

function cleanName(name: unknown, limits: ToolCallLimits): string {
  return typeof name === "string" ? storableSnippet(name, limits.maxNameLength) : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
