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
   * Files a change for the user's Confirm / Cancel. Absent where nobody can confirm (briefings), which
   * makes such calls refuse.
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
   * Mutating tools: exactly what the call would change, as the user reads it before confirming
   * (`Delete task 12 "Renew passport"`, `Create task "Book dentist" (due 2025-06-06)`); throws when the
   * target does not exist. Every mutating tool has one, since any of them may have to wait for a Confirm.
   */
  describe?(args: z.output<S>, context: ToolContext): Promise<string>;
  /** Deletions: every call waits for the user's Confirm, whatever the context. */
  alwaysConfirm?: boolean;
  /**
   * Whether a result carries text written outside the user's own records (feed items, events of
   * subscribed calendars): once such text is in a turn's context, every change the model proposes waits
   * for the user's Confirm, since the text may be an instruction planted by a stranger.
   */
  untrusted?(result: unknown): boolean;
}

/** What a mutating handler returns: the model's result, the line the user reads, and how to undo it. */
export interface MutationResult {
  readonly [MUTATION]: true;
  /** What the model sees, e.g. `{ created: { id, title } }`. */
  result: unknown;
  /** Past tense, from the stored row: `Created task 12 "Book dentist" (due 2025-06-06)`. */
  report: string;
  /** How to take it back; absent when it cannot be undone. */
  undo?: UndoStep;
}

const MUTATION = Symbol("mutation");

export function mutation(result: unknown, report: string, undo?: UndoStep): MutationResult {
  return { [MUTATION]: true, result, report, ...(undo ? { undo } : {}) };
}

export function isMutationResult(value: unknown): value is MutationResult {
  return typeof value === "object" && value !== null && MUTATION in value;
}

/**
 * The inverse of one executed change, stored with the Undo button: plain JSON (ids, and the earlier values
 * of the fields that changed), run by `chat/undo.ts` as the same user.
 */
export type UndoStep =
  | { op: "delete_task"; id: number }
  | { op: "reopen_task"; id: number }
  | { op: "restore_task"; id: number; fields: UndoTaskFields }
  | { op: "delete_event"; id: number }
  | { op: "restore_event"; id: number; fields: UndoEventFields }
  | { op: "delete_note"; id: number }
  | { op: "delete_project"; id: number }
  | { op: "restore_project"; id: number; fields: UndoProjectFields };

export interface UndoTaskFields {
  title?: string;
  notes?: string;
  dueDate?: string | null;
  dueTime?: string | null;
  priority?: "low" | "normal" | "high";
  projectId?: number | null;
}

export interface UndoEventFields {
  title?: string;
  description?: string;
  location?: string;
  allDay?: boolean;
  /** ISO instants of a timed event, or local dates of an all-day one. */
  startsAt?: string;
  endsAt?: string;
  startDate?: string;
  endDate?: string;
}

export interface UndoProjectFields {
  name?: string;
  summary?: string;
  status?: "active" | "paused" | "done" | "archived";
}

/** A tool of any schema, as the registry holds it; it only calls a handler with what its own schema produced. */
export type AnyTool = ToolDefinition<z.ZodType>;

/** Identity helper: exists so a definition's handler gets its argument type from the schema. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}
