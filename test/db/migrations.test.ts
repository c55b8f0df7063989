/**
 * Migration 0002 turns status-like text columns into enums and moves Telegram's message links into
 * `platform_messages`; 0003 gives scheduled runs still on their way the window the outbox used to work out.
 * Data written under 0001 must survive them on both engines: a database migrated up to 0001 gets rows, then
 * the rest of the migrations run over them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "../../db/client.ts";
import { findConversation } from "../../db/queries/conversations.ts";
import { getPendingAction } from "../../db/queries/pending-actions.ts";
import { getTask } from "../../db/queries/tasks.ts";
import { findUserByIdentity, getUser } from "../../db/queries/users.ts";
import { deliveries, events, messages, projects } from "../../db/schema/index.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

/** A copy of the migrations folder whose journal stops after `lastIndex`. */
function migrationsUpTo(lastIndex: number): string {
  const folder = mkdtempSync(join(tmpdir(), "briefbot-migrations-"));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ idx: number }> };
  journal.entries = journal.entries.filter((entry) => entry.idx <= lastIndex);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

for (const kind of ["pglite", "postgres"] as const) {
  describe(`migrations 0002 and 0003 over existing data [${kind}]`, () => {
    let testDb: TestDatabase;
    let before: string;
    beforeAll(async () => {
      testDb = await createTestDatabase(kind, { migrated: false });
      before = migrationsUpTo(1);
      await testDb.open.migrate({ migrationsFolder: before });
      const db = testDb.open.db;
      // Rows as the 0001 schema (text columns) holds them.
      await db.execute(sql`
        insert into users (id, name, time_zone, briefing_mode) values (1, 'ann', 'Europe/London', 'legacy')`);
      await db.execute(sql`
        insert into identities (user_id, platform, external_user_id, chat_id) values (1, 'telegram', '42', '42')`);
      await db.execute(
        sql`insert into projects (id, user_id, name, status) values (1, 1, 'Garden', 'paused')`,
      );
      await db.execute(sql`
        insert into tasks (id, user_id, title, priority, status, completed_at)
        values (1, 1, 'Prune roses', 'high', 'done', '2025-06-01T10:00:00Z')`);
      await db.execute(sql`
        insert into events (user_id, uid, title, starts_at, ends_at, status)
        values (1, 'chat-1', 'Maybe lunch', '2025-06-02T11:00:00Z', '2025-06-02T12:00:00Z', 'tentative')`);
      await db.execute(sql`
        insert into briefing_runs (id, user_id, slot, local_date, trigger, state, mode, prose)
        values (1, 1, 'morning', '2025-06-02', 'schedule', 'delivered', 'digest', 'Your morning briefing'),
               (2, 1, 'midday', '2025-06-02', 'manual', 'generated', null, 'Your midday check-in')`);
      await db.execute(sql`
        insert into briefing_runs (id, user_id, slot, local_date, trigger, state, prose, claimed_at)
        values (3, 1, 'afternoon', '2025-06-02', 'schedule', 'generated', 'Your afternoon check-in',
                '2025-06-02T15:30:00Z')`);
      await db.execute(sql`
        insert into conversations (id, user_id, platform, thread_key, run_id)
        values (1, 1, 'telegram', 'telegram:42:100', 1), (2, 1, 'telegram', 'telegram:42:101', 1),
               (3, 1, 'telegram', 'telegram:42', null), (4, 1, 'slack', 'slack:D1:1.2', 2),
               (5, 1, 'cli', 'cli:1:x', null)`);
      await db.execute(sql`
        insert into messages (user_id, run_id, role, content, tool_name, metadata)
        values (1, 1, 'tool', '{"count":0}', 'list_events', '{"kind":"receipt","arguments":{"range":"today"}}')`);
      await db.execute(sql`
        insert into deliveries (run_id, user_id, platform, target, state, platform_message_id)
        values (1, 1, 'telegram', '42', 'sent', '100')`);
      await db.execute(sql`
        insert into pending_actions (id, user_id, tool_name, arguments, summary, state, expires_at)
        values (1, 1, 'delete_task', '{"id":1}', 'Delete task 1?', 'confirmed', '2025-06-02T07:00:00Z')`);
      // The rows above chose their ids; later inserts must not collide with them.
      await db.execute(sql`select setval(pg_get_serial_sequence('briefing_runs', 'id'), 10)`);

      await testDb.open.migrate();
    });
    afterAll(async () => {
      await testDb?.dispose();
      rmSync(before, { recursive: true, force: true });
    });

    it("keeps every status as it was, now typed by the enums", async () => {
      const db = testDb.open.db;
      expect((await getUser(db, 1))?.briefingMode).toBe("legacy");
      expect((await findUserByIdentity(db, "telegram", "42"))?.identity.chatId).toBe("42");
      expect((await db.select().from(projects))[0]?.status).toBe("paused");
      expect(await getTask(db, 1, 1)).toMatchObject({ priority: "high", status: "done" });
      expect((await db.select().from(events))[0]?.status).toBe("tentative");
      const ports = createDbPorts(db);
      expect(await ports.runs.ofUser(1, 1)).toMatchObject({
        slot: "morning",
        trigger: "schedule",
        state: "delivered",
        mode: "digest",
      });
      expect((await ports.runs.ofUser(1, 2))?.mode).toBeNull();
      expect((await db.select().from(messages))[0]?.role).toBe("tool");
      expect(await ports.receipts.runReceipts(1)).toMatchObject([
        { toolName: "list_events", arguments: { range: "today" }, result: { count: 0 } },
      ]);
      expect((await db.select().from(deliveries))[0]).toMatchObject({ platform: "telegram", state: "sent" });
      expect((await getPendingAction(db, 1))?.state).toBe("confirmed");
      expect((await findConversation(db, "cli", "cli:1:x"))?.userId).toBe(1);
    });

    it("gives a scheduled run still on its way the default window, and finished or manual runs none", async () => {
      const ports = createDbPorts(testDb.open.db);
      expect((await ports.runs.ofUser(1, 3))?.notAfter).toEqual(new Date("2025-06-02T17:00:00Z"));
      expect((await ports.runs.ofUser(1, 1))?.notAfter).toBeNull();
      expect((await ports.runs.ofUser(1, 2))?.notAfter).toBeNull();
    });

    it("keeps defaults and the claim-once index working on the enum columns", async () => {
      const db = testDb.open.db;
      const { lifecycle } = createDbPorts(db);
      const claim = { userId: 1, slot: "morning" as const, localDate: "2025-06-02", notAfter: new Date() };
      expect(await lifecycle.claim(claim, "t", new Date())).toBeUndefined();
      const fresh = await lifecycle.claim({ ...claim, localDate: "2025-06-03" }, "t", new Date());
      expect(fresh).toMatchObject({ state: "claimed", trigger: "schedule" });
      await expect(
        db.execute(sql`update briefing_runs set state = 'exploded' where id = 1`),
      ).rejects.toThrow();
    });

    it("moves the Telegram chain links into platform_messages, each with its thread's root", async () => {
      const { platformState } = createDbPorts(testDb.open.db);
      expect(await platformState.findMessage("telegram", "telegram:42:101", 1)).toEqual({
        userId: 1,
        runId: 1,
        threadKey: "telegram:42:100",
      });
      expect(await platformState.findMessage("telegram", "telegram:42:100", 1)).toMatchObject({
        threadKey: "telegram:42:100",
      });
      expect(await platformState.findMessage("slack", "slack:D1:1.2", 1)).toEqual({
        userId: 1,
        runId: 2,
        threadKey: "slack:D1:1.2",
      });
      // A DM's rolling conversation belongs to no run and is not a message link.
      expect(await platformState.findMessage("telegram", "telegram:42", 1)).toBeUndefined();
    });
  });
}
