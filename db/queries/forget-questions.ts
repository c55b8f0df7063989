/** The open /forget question per user: asked, taken once by its answer, or dropped. */
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../client.ts";
import { forgetQuestions } from "../schema/index.ts";

export interface StoredForgetQuestion {
  token: string;
  step: 1 | 2;
  expiresAt: Date;
}

export async function askForgetQuestion(
  db: Database,
  userId: number,
  question: StoredForgetQuestion,
): Promise<void> {
  await db
    .insert(forgetQuestions)
    .values({ userId, ...question })
    .onConflictDoUpdate({
      target: forgetQuestions.userId,
      set: { token: question.token, step: question.step, expiresAt: question.expiresAt },
    });
}

/** Deletes and returns the question in one statement, so of two answers (two replicas) one gets it. */
export async function takeForgetQuestion(
  db: Database,
  userId: number,
  token: string,
): Promise<StoredForgetQuestion | undefined> {
  const [row] = await db
    .delete(forgetQuestions)
    .where(and(eq(forgetQuestions.userId, userId), eq(forgetQuestions.token, token)))
    .returning();
  if (!row) return undefined;
  return { token: row.token, step: row.step === 2 ? 2 : 1, expiresAt: row.expiresAt };
}

export async function dropForgetQuestion(db: Database, userId: number): Promise<boolean> {
  const rows = await db
    .delete(forgetQuestions)
    .where(eq(forgetQuestions.userId, userId))
    .returning({ userId: forgetQuestions.userId });
  return rows.length > 0;
}

export async function expireForgetQuestions(db: Database, before: Date): Promise<number> {
  const rows = await db
    .delete(forgetQuestions)
    .where(lt(forgetQuestions.expiresAt, before))
    .returning({ userId: forgetQuestions.userId });
  return rows.length;
}
