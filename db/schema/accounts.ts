import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { AccountCollection } from "../../src/core/domain.ts";
import { users } from "./users.ts";

/** A person's CalDAV or Todoist account; the password or token only as ciphertext with its key id. */
export const accounts = pgTable(
  "accounts",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "caldav" | "todoist"; text, so a new kind needs no enum migration (the core checks the value). */
    kind: text().notNull(),
    label: text().notNull(),
    url: text().notNull(),
    username: text(),
    secretKeyId: text().notNull(),
    secretSealed: text().notNull(),
    /** Every collection discovery found, whether the user chose it, and its sync position. */
    collections: jsonb().$type<AccountCollection[]>().notNull().default([]),
    lastSyncAt: timestamp({ withTimezone: true }),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("accounts_user_idx").on(t.userId)],
);
export type AccountRow = typeof accounts.$inferSelect;

/** The mirror: one row per object the server holds, as it last sent it. */
export const accountObjects = pgTable(
  "account_objects",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    collectionId: text().notNull(),
    remoteId: text().notNull(),
    etag: text().notNull(),
    format: text().$type<"icalendar" | "todoist-json">().notNull(),
    body: text().notNull(),
  },
  (t) => [uniqueIndex("account_objects_remote_idx").on(t.accountId, t.collectionId, t.remoteId)],
);
export type AccountObjectRow = typeof accountObjects.$inferSelect;
