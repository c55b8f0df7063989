import { eq, sql } from "drizzle-orm";
import { NotFoundError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { getUser, listUsers } from "../queries/users.ts";
import { type NewUser, type SlotTimes, users } from "../schema/index.ts";

/** What the settings may change; `slots` merges into the stored slots. */
type UserSettingsChanges = Partial<
  Pick<NewUser, "timeZone" | "locationName" | "latitude" | "longitude" | "briefingMode">
> & { slots?: Partial<SlotTimes> };

export function createUsers(db: Database) {
  return {
    get: (userId: number) => getUser(db, userId),
    list: () => listUsers(db),
    async update(userId: number, changes: UserSettingsChanges) {
      const { slots, ...rest } = changes;
      // Merged in the database, so two slot changes racing each other both land.
      const merged =
        slots && Object.keys(slots).length > 0
          ? { slots: sql`${users.slots} || ${JSON.stringify(slots)}::jsonb` }
          : {};
      const [user] = await db
        .update(users)
        .set({ ...rest, ...merged })
        .where(eq(users.id, userId))
        .returning();
      if (!user) throw new NotFoundError(`no user with id ${userId}`);
      return user;
    },
  };
}
