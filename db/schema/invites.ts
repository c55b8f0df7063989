import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { platformEnum } from "./enums.ts";
import { users } from "./users.ts";

/**
 * One-time link codes (`briefbot user invite`). Only a hash of the code is kept, so a copy of the database
 * cannot be used to link an account; a code is spent by setting `usedAt`, exactly once.
 */
export const invites = pgTable(
  "invites",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** sha256 (hex) of the normalised code. */
    codeHash: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    /** Set when redeemed, or when a newer invite for the same user replaced this one. */
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex("invites_code_hash_idx").on(t.codeHash), index("invites_user_idx").on(t.userId)],
);
export type Invite = typeof invites.$inferSelect;

/**
 * Failed link attempts per platform account, for the rate limit; in the database so every replica counts
 * the same attempts. Keyed by the sender's platform id only: no user data, and cleared on success.
 */
export const linkAttempts = pgTable(
  "link_attempts",
  {
    id: serial().primaryKey(),
    platform: platformEnum().notNull(),
    externalUserId: text().notNull(),
    attemptedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("link_attempts_sender_idx").on(t.platform, t.externalUserId, t.attemptedAt)],
);
