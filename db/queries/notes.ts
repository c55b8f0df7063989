import { and, desc, eq, gte, or, sql } from "drizzle-orm";
import { NotFoundError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type Note, notes } from "../schema/index.ts";
import { escapeLike } from "./projects.ts";

/** The user's notes, newest first; only those written since `since` when given. */
export async function listNotes(
  db: Database,
  userId: number,
  options: { since?: Date | undefined; limit?: number },
): Promise<Note[]> {
  const mine = eq(notes.userId, userId);
  const { since } = options;
  return db
    .select()
    .from(notes)
    .where(since ? and(mine, gte(notes.createdAt, since)) : mine)
    .orderBy(desc(notes.createdAt), desc(notes.id))
    .limit(options.limit ?? 20);
}

export async function searchNotes(db: Database, userId: number, query: string, limit = 10): Promise<Note[]> {
  const pattern = `%${escapeLike(query)}%`;
  return db
    .select()
    .from(notes)
    .where(
      and(
        eq(notes.userId, userId),
        or(sql`${notes.title} ilike ${pattern}`, sql`${notes.body} ilike ${pattern}`),
      ),
    )
    .orderBy(desc(notes.createdAt))
    .limit(limit);
}

export async function createNote(
  db: Database,
  values: { userId: number; body: string; title?: string; createdAt?: Date },
): Promise<Note> {
  const [note] = await db.insert(notes).values(values).returning();
  if (!note) throw new Error("note insert returned nothing");
  return note;
}

export async function deleteNote(db: Database, userId: number, id: number): Promise<Note> {
  const [note] = await db
    .delete(notes)
    .where(and(eq(notes.userId, userId), eq(notes.id, id)))
    .returning();
  if (!note) throw new NotFoundError(`no note ${id}`);
  return note;
}
