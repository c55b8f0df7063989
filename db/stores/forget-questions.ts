/** The `ForgetQuestions` port over `forget_questions`: the one writer of that table. */
import type { Database } from "../client.ts";
import {
  askForgetQuestion,
  dropForgetQuestion,
  expireForgetQuestions,
  type StoredForgetQuestion,
  takeForgetQuestion,
} from "../queries/forget-questions.ts";

export function createForgetQuestions(db: Database) {
  return {
    ask: (userId: number, question: StoredForgetQuestion) => askForgetQuestion(db, userId, question),
    answer: (userId: number, token: string) => takeForgetQuestion(db, userId, token),
    cancel: (userId: number) => dropForgetQuestion(db, userId),
    expire: (before: Date) => expireForgetQuestions(db, before),
  };
}
