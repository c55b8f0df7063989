import type { Database } from "../client.ts";
import { readUserData, removeUserData } from "../queries/user-data.ts";

export function createUserData(db: Database) {
  return {
    read: (userId: number) => readUserData(db, userId),
    remove: (userId: number) => removeUserData(db, userId),
  };
}
