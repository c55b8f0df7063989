import type { Database } from "../client.ts";
import { getUser } from "../queries/users.ts";

export function createUsers(db: Database) {
  return { get: (userId: number) => getUser(db, userId) };
}
