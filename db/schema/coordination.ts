/**
 * What several briefbot processes on one database agree on: who holds what (leases), how much of each
 * platform limit is left (rate buckets), which fetched updates are still to handle, and questions a person must answer on whichever process they reach.
 */
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import type { InboundProgress } from "../../src/core/domain.ts";
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

/**
 * Updates a poller fetched (Telegram's `getUpdates`) or a webhook received (Telegram's webhook, Slack's
 * events and button presses), stored before the platform is told they arrived, so
 * none is lost when the process dies while handling one: `claimedBy` (a process id) handles it and sets
 * `handledAt`; once that process's lease lapses, the token's next poller reclaims what it left unhandled. A
 * handled row stays a day — as long as Telegram keeps an update it was not told arrived — so an update
 * fetched or delivered again (Slack's retries too) is known and not handled twice.
 * `source` names the platform and bot (`telegram:<fingerprint>`, `slack:<team id>`): ids are per bot.
 */
export const inboundUpdates = pgTable(
  "inbound_updates",
  {
    source: text().notNull(),
    /** The platform's id of the delivery: Telegram's update_id (as digits), Slack's event_id or trigger_id. */
    updateId: text().notNull(),
    /** The update as the platform sent it; emptied once handled, so no message text outlives its handling. */
    payload: jsonb(),
    receivedAt: timestamp({ withTimezone: true }).notNull(),
    claimedBy: text().notNull(),
    handledAt: timestamp({ withTimezone: true }),
    /**
     * What the claimer had posted for it (a placeholder, the answer's message ids), written as soon as the
     * platform accepted each: whoever takes it over edits that placeholder, or, answered, only marks it.
     */
    progress: jsonb().$type<InboundProgress>(),
  },
  (t) => [
    primaryKey({ columns: [t.source, t.updateId] }),
    index("inbound_updates_handled_at_idx").on(t.source, t.handledAt),
  ],
);
export type InboundUpdateRow = typeof inboundUpdates.$inferSelect;
