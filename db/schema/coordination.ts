/**
 * What several briefbot processes on one database agree on: who holds what (leases), how much of each
 * platform limit is left (rate buckets), and questions a person must answer on whichever process they reach.
 */
import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users.ts";

/**
 * One holder per name until `expiresAt`: a process's own heartbeat (`process:<id>`), the one long poller of
 * a bot token, the one fetcher of a source. A holder renews before expiry; a lapsed lease is anyone's.
 */
export const leases = pgTable("leases", {
  name: text().primaryKey(),
  holder: text().notNull(),
  acquiredAt: timestamp({ withTimezone: true }).notNull(),
  expiresAt: timestamp({ withTimezone: true }).notNull(),
});
export type Lease = typeof leases.$inferSelect;

/**
 * One rate-limited scope (a bot token, a chat, a Slack method or channel), shared by every process sending
 * on the token: `theoreticalArrival` is when the scope's next send is due at its pace (the generic cell
 * rate algorithm keeps one instant per scope); `pausedUntil`, on a row of its own named `pause:<scope>`,
 * when a 429's `retry_after` ends — apart, so a pause never waits behind the takes that lock the scope's
 * row. Times are the database's clock, so processes on different hosts agree.
 */
export const rateBuckets = pgTable("rate_buckets", {
  scope: text().primaryKey(),
  theoreticalArrival: timestamp({ withTimezone: true, precision: 6 }).notNull(),
  pausedUntil: timestamp({ withTimezone: true, precision: 6 }),
});

/** The open /forget question of a user (asked twice; only the second Confirm deletes). */
export const forgetQuestions = pgTable(
  "forget_questions",
  {
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    token: text().notNull(),
    step: integer().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId] })],
);
