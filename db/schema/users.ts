import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import {
  DEFAULT_SLOT_TIMES,
  type Platform,
  type ProjectStatus,
  type SlotName,
  type SlotTimes,
  type TaskPriority,
} from "../../src/core/domain.ts";
import { accounts } from "./accounts.ts";
import {
  briefingModeEnum,
  platformEnum,
  projectStatusEnum,
  taskPriorityEnum,
  taskStatusEnum,
} from "./enums.ts";

export type { Platform, ProjectStatus, SlotName, SlotTimes, TaskPriority };

export const users = pgTable("users", {
  id: serial().primaryKey(),
  name: text().notNull().unique(),
  timeZone: text().notNull(),
  locationName: text(),
  latitude: doublePrecision(),
  longitude: doublePrecision(),
  profile: text().notNull().default(""),
  slots: jsonb().$type<SlotTimes>().notNull().default(DEFAULT_SLOT_TIMES),
  briefingMode: briefingModeEnum().notNull().default("agentic"),
  preferredModel: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
export type User = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

/** Maps a platform account to a briefbot user; the only way a platform message reaches user data. */
export const identities = pgTable(
  "identities",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    platform: platformEnum().notNull(),
    /** Telegram numeric user id, or Slack user id (U…). */
    externalUserId: text().notNull(),
    /** Telegram private chat id, or Slack DM channel (D…) once known. */
    chatId: text(),
    /** Slack team (T…); null on Telegram. */
    teamId: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("identities_platform_external_idx").on(t.platform, t.externalUserId),
    index("identities_user_idx").on(t.userId),
  ],
);
export type Identity = typeof identities.$inferSelect;

export const projects = pgTable(
  "projects",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    status: projectStatusEnum().notNull().default("active"),
    summary: text().notNull().default(""),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("projects_user_name_idx").on(t.userId, sql`lower(${t.name})`)],
);
export type Project = typeof projects.$inferSelect;
export const tasks = pgTable(
  "tasks",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: integer().references(() => projects.id, { onDelete: "set null" }),
    title: text().notNull(),
    notes: text().notNull().default(""),
    /**
     * Due date as the user's local calendar date ("YYYY-MM-DD"): "due Friday" means Friday
     * wherever the user is, so it is not stored as an instant.
     */
    dueDate: text(),
    /** Optional local "HH:MM" on the due date. */
    dueTime: text(),
    priority: taskPriorityEnum().notNull().default("normal"),
    status: taskStatusEnum().notNull().default("open"),
    completedAt: timestamp({ withTimezone: true }),
    /**
     * A task derived from an account's object (CalDAV VTODO, Todoist item): the account, the collection's
     * remote id, the object's remote id, and the collection as receipts name it ("Nextcloud · Personal").
     * Null for tasks that live only here. Deleting the account deletes its tasks.
     */
    accountId: integer().references(() => accounts.id, { onDelete: "cascade" }),
    accountCollectionId: text(),
    remoteId: text(),
    sourceName: text(),
    /**
     * A derived subtask: its parent's remote id as the object says it (RELATED-TO, parent_id), and that
     * parent's task here once it is stored. The store links them whichever arrives first; when the parent
     * goes the link is cleared and the remote id stays, so the parent coming back links it again.
     */
    parentRemoteId: text(),
    parentId: integer().references((): AnyPgColumn => tasks.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("tasks_user_status_due_idx").on(t.userId, t.status, t.dueDate),
    index("tasks_account_remote_idx").on(t.accountId, t.accountCollectionId, t.remoteId),
    // Deleting a parent clears its children's link: without this every deleted task scans the table.
    index("tasks_parent_idx").on(t.parentId),
  ],
);
export type Task = typeof tasks.$inferSelect;
export type NewTask = typeof tasks.$inferInsert;

export const notes = pgTable(
  "notes",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text().notNull().default(""),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("notes_user_created_idx").on(t.userId, t.createdAt)],
);
export type Note = typeof notes.$inferSelect;
