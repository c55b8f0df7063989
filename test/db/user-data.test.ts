/**
 * Forgetting a user leaves no row of theirs in any table, and every row of everyone else. The tables come
 * from the catalog at test time, so a table added later fails here until it gets an ownership rule below
 * (and rows in `seedUserData`).
 *
 * Shared caches are not user rows and stay: `weather_cache` holds forecasts keyed by rounded coordinates,
 * shared by everyone at that place; `leases` and `rate_buckets` coordinate processes, not people.
 */
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { createUserData } from "../../db/stores/index.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { seedUserData } from "../helpers/seed-user-data.ts";

/** How a table's rows belong to a user: its own column, or its parent's key (taken before the delete). */
type Ownership =
  | { kind: "owned"; paths: Array<{ column: string; parent?: { table: string; key: string } }> }
  | { kind: "shared"; why: string };

const byUser = (...parents: Array<[column: string, table: string]>): Ownership => ({
  kind: "owned",
  paths: [
    { column: "user_id" },
    ...parents.map(([column, table]) => ({ column, parent: { table, key: "id" } })),
  ],
});

const OWNERSHIP: Record<string, Ownership> = {
  users: { kind: "owned", paths: [{ column: "id" }] },
  identities: byUser(),
  projects: byUser(),
  tasks: byUser(["project_id", "projects"], ["account_id", "accounts"]),
  accounts: byUser(),
  // The mirror of an account's server goes with the account.
  account_objects: {
    kind: "owned",
    paths: [{ column: "account_id", parent: { table: "accounts", key: "id" } }],
  },
  notes: byUser(),
  calendars: byUser(),
  // Events of the user's subscriptions go with the subscription.
  events: byUser(["calendar_id", "calendars"], ["account_id", "accounts"]),
  feeds: byUser(),
  feed_items: byUser(["feed_id", "feeds"]),
  briefing_runs: byUser(),
  conversations: byUser(["run_id", "briefing_runs"]),
  messages: byUser(["run_id", "briefing_runs"], ["conversation_id", "conversations"]),
  run_archives: byUser(["run_id", "briefing_runs"]),
  deliveries: byUser(["run_id", "briefing_runs"]),
  pending_actions: byUser(["conversation_id", "conversations"]),
  platform_messages: byUser(["run_id", "briefing_runs"]),
  invites: byUser(),
  // Keyed by the person's platform account only: theirs through their identities.
  link_attempts: {
    kind: "owned",
    paths: [{ column: "external_user_id", parent: { table: "identities", key: "external_user_id" } }],
  },
  forget_questions: byUser(),
  weather_cache: { kind: "shared", why: "forecasts by place, shared by everyone there" },
  leases: {
    kind: "shared",
    why: "which process holds what (its heartbeat, a poller, a source fetch); no user",
  },
  rate_buckets: { kind: "shared", why: "the pace of a bot token and its chats, shared by every process" },
  inbound_updates: {
    kind: "shared",
    why: "received updates until handled (then only their id, for a day); keyed by update, not by user",
  },
};

async function rows<ROW>(db: Database, query: ReturnType<typeof sql>): Promise<ROW[]> {
  const result: unknown = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: ROW[] }).rows) as ROW[];
}

async function everyTable(db: Database): Promise<string[]> {
  const found = await rows<{ table_name: string }>(
    db,
    sql`select table_name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> '__drizzle_migrations'
        order by table_name`,
  );
  return found.map((row) => row.table_name);
}

/** The keys by which each ownership path of `table` finds `userId`'s rows, read now. */
async function keysOf(db: Database, userId: number): Promise<Map<string, Array<number | string>>> {
  const keys = new Map<string, Array<number | string>>();
  for (const ownership of Object.values(OWNERSHIP)) {
    if (ownership.kind !== "owned") continue;
    for (const path of ownership.paths) {
      if (!path.parent) continue;
      const name = `${path.parent.table}.${path.parent.key}`;
      if (keys.has(name)) continue;
      const found = await rows<{ key: number | string }>(
        db,
        sql`select ${sql.identifier(path.parent.key)} as key from ${sql.identifier(path.parent.table)} where user_id = ${userId}`,
      );
      keys.set(
        name,
        found.map((row) => row.key),
      );
    }
  }
  return keys;
}

/** Rows of `table` that belong to the user along any of its paths. */
async function ownedRows(
  db: Database,
  table: string,
  userId: number,
  parentKeys: Map<string, Array<number | string>>,
): Promise<number> {
  const ownership = OWNERSHIP[table];
  if (ownership?.kind !== "owned") throw new Error(`${table} has no ownership rule`);
  const conditions = ownership.paths.map((path) => {
    const keys = path.parent ? (parentKeys.get(`${path.parent.table}.${path.parent.key}`) ?? []) : [userId];
    if (keys.length === 0) return sql`false`;
    return sql`${sql.identifier(path.column)} in (${sql.join(
      keys.map((key) => sql`${key}`),
      sql`, `,
    )})`;
  });
  const [row] = await rows<{ count: string | number }>(
    db,
    sql`select count(*) as count from ${sql.identifier(table)} where ${sql.join(conditions, sql` or `)}`,
  );
  return Number(row?.count ?? 0);
}

async function allRows(db: Database, table: string): Promise<number> {
  const [row] = await rows<{ count: string | number }>(
    db,
    sql`select count(*) as count from ${sql.identifier(table)}`,
  );
  return Number(row?.count ?? 0);
}

describeEachDatabase("removing a user", (getDb) => {
  it("has an ownership rule for every table in the schema", async () => {
    const unruled = (await everyTable(getDb())).filter((table) => OWNERSHIP[table] === undefined);
    expect(unruled, "tables without an ownership rule in test/db/user-data.test.ts").toEqual([]);
  });

  it("leaves zero rows of the removed user in every table and every row of the other user", async () => {
    const db = getDb();
    const ann = await seedUserData(db);
    const bob = await seedUserData(db);
    const tables = await everyTable(db);
    const owned = tables.filter((table) => OWNERSHIP[table]?.kind === "owned");
    const shared = tables.filter((table) => OWNERSHIP[table]?.kind === "shared");
    expect(owned.length).toBeGreaterThan(10);

    const annKeys = await keysOf(db, ann.user.id);
    const bobKeys = await keysOf(db, bob.user.id);
    const annBefore: Record<string, number> = {};
    const bobBefore: Record<string, number> = {};
    const sharedBefore: Record<string, number> = {};
    for (const table of owned) {
      annBefore[table] = await ownedRows(db, table, ann.user.id, annKeys);
      bobBefore[table] = await ownedRows(db, table, bob.user.id, bobKeys);
    }
    for (const table of shared) sharedBefore[table] = await allRows(db, table);
    // The seed reaches every table, or "zero rows after" would prove nothing for it.
    const unseeded = owned.filter((table) => !annBefore[table] || !bobBefore[table]);
    expect(unseeded, "tables seedUserData leaves empty").toEqual([]);

    const counts = await createUserData(db).remove(ann.user.id);

    for (const table of owned) {
      expect({ table, rows: await ownedRows(db, table, ann.user.id, annKeys) }).toEqual({ table, rows: 0 });
      expect({ table, rows: await ownedRows(db, table, bob.user.id, bobKeys) }).toEqual({
        table,
        rows: bobBefore[table],
      });
    }
    for (const table of shared)
      expect({ table, rows: await allRows(db, table) }).toEqual({ table, rows: sharedBefore[table] });
    // What it reports deleting is what was there, table by table.
    for (const table of owned) {
      if (OWNERSHIP[table]?.kind === "owned" && table !== "users")
        expect({ table, count: counts[table] }).toEqual({ table, count: annBefore[table] });
    }
    expect(counts.users).toBe(1);
  });

  it("removes nothing for an unknown user", async () => {
    const db = getDb();
    await seedUserData(db);
    const before = await allRows(db, "tasks");
    expect(await createUserData(db).remove(987_654_321)).toEqual({});
    expect(await allRows(db, "tasks")).toBe(before);
  });
});
