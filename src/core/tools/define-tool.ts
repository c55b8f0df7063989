/**
 * What a tool is: a snake_case name the model calls, a description, a zod argument schema (its JSON schema is
 * what Ollama sees), a handler and whether it only reads. Handlers learn who is acting from the
 * {@link ToolContext} the runner builds from the platform identity or the scheduler's claim, never from
 * arguments: a `user_id` the model writes is stripped by the schema and reaches nothing.
 */
import type { z } from "zod";
import type { Clock } from "../clock.ts";
import type { User } from "../domain.ts";
import type { Records, Sources } from "../ports.ts";

export interface PendingRequest {
  toolName: string;
  arguments: Record<string, unknown>;
  summary: string;
}

export interface PendingHandle {
  id: number;
  summary: string;
  expiresAt: Date;
}

export interface ToolContext {
  /** The acting user: the only user whose rows a handler may read or change. */
  user: User;
  clock: Clock;
  /** The user's tasks, projects, notes and chat-created events. */
  records: Records;
  /** Cached calendars, feeds and weather. */
  sources: Sources;
  /**
   * Files a destructive call for the user's Confirm / Cancel. Absent where nobody can confirm (briefings),
   * which makes destructive tools refuse.
   */
  requestConfirmation?: (request: PendingRequest) => Promise<PendingHandle>;
}

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  /** snake_case; the model's interface, keep it stable. */
  name: string;
  description: string;
  input: S;
  /** True when the handler never changes stored data: the only tools a briefing may be given. */
  readOnly: boolean;
  // Method syntax on purpose: it lets a registry hold tools of different schemas as `AnyTool`.
  handler(args: z.output<S>, context: ToolContext): Promise<unknown>;
  /**
   * Present on destructive tools: describes the target (`Delete task 12 "Renew passport"?`) and throws when
   * there is none, so a call first becomes a pending action and runs only after the user confirms.
   */
  confirm?(args: z.output<S>, context: ToolContext): Promise<string>;
}

/** A tool of any schema, as the registry holds it; it only calls a handler with what its own schema produced. */
export type AnyTool = ToolDefinition<z.ZodType>;

/** Identity helper: exists so a definition's handler gets its argument type from the schema. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}
