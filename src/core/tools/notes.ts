import { z } from "zod";
import { FIELD_LIMITS } from "../field-limits.ts";
import { daysBefore } from "../local-time.ts";
import { defineTool, mutation } from "./define-tool.ts";
import { clip, noteView } from "./format.ts";
import { searchQuery } from "./schemas.ts";

export const listNotesTool = defineTool({
  name: "list_notes",
  description: "The user's most recent notes.",
  readOnly: true,
  input: z.object({
    recent_days: z.coerce
      .number()
      .int({ error: "must be a whole number of days" })
      .min(1)
      .max(365)
      .optional()
      .describe("Only notes from the last N days"),
  }),
  async handler({ recent_days }, context) {
    const found = await context.records.listNotes(context.user.id, {
      ...(recent_days !== undefined ? { since: daysBefore(context.clock.now(), recent_days) } : {}),
      limit: 20,
    });
    return {
      ...(recent_days !== undefined ? { recent_days } : {}),
      count: found.length,
      notes: found.map((note) => noteView(note, context.user.timeZone)),
      ...(found.length === 0 ? { note: "No notes." } : {}),
    };
  },
});

export const searchNotesTool = defineTool({
  name: "search_notes",
  description: "Find the user's notes whose title or text contains the query (case-insensitive).",
  readOnly: true,
  input: z.object({ query: searchQuery.describe("Words to look for") }),
  async handler({ query }, context) {
    const found = await context.records.searchNotes(context.user.id, query);
    return {
      query,
      count: found.length,
      notes: found.map((note) => noteView(note, context.user.timeZone)),
      ...(found.length === 0 ? { note: `No note matches "${query}".` } : {}),
    };
  },
});

export const createNoteTool = defineTool({
  name: "create_note",
  description: "Save a note for the user.",
  readOnly: false,
  input: z.object({
    body: z.string().trim().min(1, { error: "must not be empty" }).max(FIELD_LIMITS.noteBody),
    title: z.string().trim().max(FIELD_LIMITS.noteTitle).optional(),
  }),
  async describe(args) {
    return `Save a note${args.title ? ` "${args.title}"` : ""}: "${clip(args.body, 120)}"`;
  },
  async handler(args, context) {
    const note = await context.records.createNote({
      userId: context.user.id,
      body: args.body,
      ...(args.title ? { title: args.title } : {}),
      createdAt: context.clock.now(),
    });
    return mutation(
      { created: noteView(note, context.user.timeZone) },
      `Saved note ${note.id} "${clip(note.title || note.body, 80)}"`,
      { op: "delete_note", id: note.id },
    );
  },
});

export const noteTools = [listNotesTool, searchNotesTool, createNoteTool];
