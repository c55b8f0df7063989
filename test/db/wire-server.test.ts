/**
 * The embedded database's socket server: clients reach the owner's one PGlite session through postgres.js,
 * and a client's transaction never interleaves with the owner's own queries — in either direction. (The
 * published @electric-sql/pglite-socket 0.2.17 fails the first test: the owner's write runs inside the
 * client's transaction and is rolled back with it.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listenWireServer, type WireServer } from "../../db/embedded/wire-server.ts";

const folder = mkdtempSync(join(tmpdir(), "briefbot-wire-"));
let db: PGlite;
let server: WireServer;
const clients: postgres.Sql[] = [];

function client(options: postgres.Options<Record<string, never>> = {}): postgres.Sql {
  const sql = postgres({ path: server.socketPath, max: 1, prepare: false, onnotice: () => {}, ...options });
  clients.push(sql);
  return sql;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const values = async () =>
  (await db.query<{ v: number }>("select v from t order by v")).rows.map((row) => row.v);

beforeAll(async () => {
  db = await PGlite.create("memory://");
  await db.exec("create table t (v int, tags text[], at timestamptz default now())");
  server = await listenWireServer({ socketPath: join(folder, "socket"), holdTimeoutMs: 1_500 });
  await server.serve(db);
});
afterAll(async () => {
  await server?.close();
  await db?.close();
  rmSync(folder, { recursive: true, force: true });
});
beforeEach(async () => {
  await db.exec("delete from t");
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((sql) => sql.end({ timeout: 1 }).catch(() => {})));
});

describe("embedded database socket server", () => {
  it("runs a client's whole transaction before the owner's next query, so a client rollback loses no owner write", async () => {
    const sql = client();
    let ownerWroteDuringTransaction = false;
    const transaction = sql
      .begin(async (tx) => {
        await tx`insert into t (v) values (1)`;
        await sleep(300);
        ownerWroteDuringTransaction = (await tx`select count(*)::int as n from t where v = 99`)[0]?.n === 1;
        throw new Error("rolled back on purpose");
      })
      .catch((error: Error) => error.message);
    await sleep(100);
    await db.query("insert into t (v) values (99)");
    expect(await transaction).toBe("rolled back on purpose");
    expect(ownerWroteDuringTransaction).toBe(false);
    expect(await values()).toEqual([99]);
  });

  it("keeps a client's statement out of an owner transaction that rolls back", async () => {
    const sql = client();
    const ownerTransaction = db.transaction(async (tx) => {
      await tx.query("insert into t (v) values (2)");
      await sleep(300);
      await tx.rollback();
    });
    await sleep(50);
    await sql`insert into t (v, tags) values (3, ${["x", "y"]})`;
    await ownerTransaction;
    expect(await values()).toEqual([3]);
    // Types survive the trip: arrays and timestamps come back as postgres.js parses them from a server.
    const [row] = await sql`select v, tags, at from t`;
    expect(row).toMatchObject({ v: 3, tags: ["x", "y"] });
    expect(row?.at).toBeInstanceOf(Date);
  });

  it("rolls back a client that vanishes mid-transaction, and the owner carries on", async () => {
    const sql = client();
    const reserved = await sql.reserve();
    await reserved`begin`;
    await reserved`insert into t (v) values (5)`;
    // Cut the connection without COMMIT: the owner's query waits only until the server notices.
    reserved.release();
    await sql.end({ timeout: 0 });
    await db.query("insert into t (v) values (6)");
    expect(await values()).toEqual([6]);
  });

  it("cuts off a client that holds the session idle past the hold timeout, rolling its work back", async () => {
    const sql = client();
    const reserved = await sql.reserve();
    await reserved`begin`;
    await reserved`insert into t (v) values (7)`;
    // The owner's write waits for the client, which never finishes: the server ends it.
    await db.query("insert into t (v) values (8)");
    expect(await values()).toEqual([8]);
    await expect(reserved`select 1`).rejects.toThrow();
    reserved.release();
  });

  it("serves several clients and the owner at once without losing or mixing a row", async () => {
    const writers = [client(), client(), client()].map((sql, index) =>
      sql.begin(async (tx) => {
        for (let row = 0; row < 15; row += 1) await tx`insert into t (v) values (${index * 100 + row})`;
      }),
    );
    const owner = (async () => {
      for (let row = 0; row < 15; row += 1) await db.query("insert into t (v) values ($1)", [900 + row]);
    })();
    await Promise.all([...writers, owner]);
    const rows = await values();
    expect(rows).toHaveLength(60);
    expect(new Set(rows).size).toBe(60);
  });

  it("lets a later client reuse statement names an earlier one prepared (postgres.js with prepare: true)", async () => {
    const first = client({ prepare: true });
    expect(await first`select ${1}::int as x`).toEqual([{ x: 1 }]);
    await first.end();
    const second = client({ prepare: true });
    expect(await second`select ${2}::int as x`).toEqual([{ x: 2 }]);
  });
});
