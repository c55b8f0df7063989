/**
 * Runs a suite against both engines the product supports: embedded PGlite (in memory) and the real
 * PostgreSQL server (a throwaway database per suite, dropped afterwards). Both get the committed migrations.
 *
 *   describeEachDatabase("tasks", (getDb) => {
 *     it("…", async () => { const db = getDb(); … });
 *   });
 *
 * Suites share one database across their tests: create your own users (`createTestUser`) rather than
 * assuming an empty table.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { type Database, type OpenDatabase, openDatabase } from "../../db/client.ts";
import { type NewUser, type User, users } from "../../db/schema/index.ts";

export const TEST_POSTGRES_URL =
  process.env.BRIEFBOT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type DatabaseKind = "pglite" | "postgres";

export interface TestDatabase {
  open: OpenDatabase;
  url: string | undefined;
  dispose(): Promise<void>;
}

/** A throwaway database with the committed migrations applied, or none with `migrated: false`. */
export async function createTestDatabase(
  kind: DatabaseKind,
  options: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  if (kind === "pglite") {
    const template = migrated ? inject("pgliteTemplate") : undefined;
    const open = await openDatabase({
      dataDir: "memory://",
      pgliteTemplate: template ? new Blob([readFileSync(template)]) : undefined,
    });
    if (migrated) await open.migrate();
    return { open, url: undefined, dispose: () => open.close() };
  }
  const name = `briefbot_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(TEST_POSTGRES_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  const open = await openDatabase({ databaseUrl: url.toString(), dataDir: "" });
  if (migrated) await open.migrate();
  return {
    open,
    url: url.toString(),
    async dispose() {
      await open.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export function describeEachDatabase(
  name: string,
  suite: (getDb: () => Database, kind: DatabaseKind) => void,
): void {
  for (const kind of ["pglite", "postgres"] as const) {
    describe(`${name} [${kind}]`, () => {
      let testDb: TestDatabase | undefined;
      beforeAll(async () => {
        testDb = await createTestDatabase(kind);
      });
      afterAll(async () => {
        await testDb?.dispose();
      });
      suite(() => {
        if (!testDb) throw new Error("test database not ready");
        return testDb.open.db;
      }, kind);
    });
  }
}

let userCounter = 0;

export async function createTestUser(db: Database, overrides: Partial<NewUser> = {}): Promise<User> {
  userCounter += 1;
  const [user] = await db
    .insert(users)
    .values({
      name: `user${userCounter}_${randomBytes(3).toString("hex")}`,
      timeZone: "Europe/London",
      ...overrides,
    })
    .returning();
  if (!user) throw new Error("user insert returned nothing");
  return user;
}
