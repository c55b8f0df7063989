/**
 * Runs one contract suite against every implementation of the core's ports: the in-memory ones the core's
 * unit tests use, and the database stores on PGlite and on PostgreSQL. A suite is written once against
 * `Ports`; what it seeds (a user, a linked account) goes through `StoreWorld`, the only part that knows
 * which implementation it is.
 *
 *   describeEachStore("leases", (world) => {
 *     it("…", async () => { const { ports } = world(); … });
 *   });
 *
 * Like the database suites, a suite shares one store across its tests: make your own users.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import type { Identity, Platform, User } from "../../src/core/domain.ts";
import type { Ports } from "../../src/core/ports.ts";
import {
  createTestDatabase,
  createTestUser,
  type DatabaseKind,
  type TestDatabase,
} from "../helpers/database.ts";
import { insertMemoryUser, linkMemoryIdentity } from "../helpers/memory-ports/users.ts";
import { createMemoryStore, type TestStore } from "../helpers/test-store.ts";

export type StoreKind = "memory" | DatabaseKind;

export interface StoreWorld {
  kind: StoreKind;
  ports: Ports;
  /** For what only the syncs and the CLI write (feeds, forecasts): `test/helpers/test-store.ts` takes it. */
  store: TestStore;
  /** A new user with a unique name (and the defaults `briefbot user add` gives). */
  addUser: (values?: Partial<Pick<User, "name" | "timeZone">>) => Promise<User>;
  /** Links a platform account to a user, as the CLI's `user link` does. */
  linkAccount: (
    userId: number,
    account: { platform: Platform; externalUserId: string; chatId?: string | null },
  ) => Promise<Identity>;
}

export function describeEachStore(name: string, suite: (world: () => StoreWorld) => void): void {
  for (const kind of ["memory", "pglite", "postgres"] as const) {
    describe(`${name} [${kind}]`, () => {
      let world: StoreWorld | undefined;
      let database: TestDatabase | undefined;
      beforeAll(async () => {
        if (kind === "memory") {
          world = memoryWorld();
          return;
        }
        database = await createTestDatabase(kind);
        world = databaseWorld(kind, database);
      });
      afterAll(async () => {
        await database?.dispose();
      });
      suite(() => {
        if (!world) throw new Error("store not ready");
        return world;
      });
    });
  }
}

function memoryWorld(): StoreWorld {
  const store = createMemoryStore();
  const { tables } = store;
  let counter = 0;
  return {
    kind: "memory",
    ports: store.ports,
    store,
    addUser: async (values = {}) => {
      counter += 1;
      return insertMemoryUser(tables, {
        name: values.name ?? `user${counter}_${randomBytes(3).toString("hex")}`,
        timeZone: values.timeZone ?? "Europe/London",
      });
    },
    linkAccount: async (userId, account) => linkMemoryIdentity(tables, userId, account),
  };
}

function databaseWorld(kind: DatabaseKind, database: TestDatabase): StoreWorld {
  const db = database.open.db;
  return {
    kind,
    ports: createDbPorts(db),
    store: db,
    addUser: (values = {}) => createTestUser(db, values),
    linkAccount: (userId, account) => linkIdentity(db, userId, account),
  };
}
