/**
 * `openDatabase` on an embedded folder: the first opener owns it and serves it on a socket; a CLI opener
 * finds the owner and works through it (its writes are the owner's at once); a bot never shares.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DataDirBusyError,
  migrationsFolder,
  type OpenDatabase,
  openDatabase,
  SchemaBehindError,
} from "../../db/client.ts";
import { lockPath } from "../../db/embedded/data-dir-lock.ts";
import { findUserByIdentity, linkIdentity } from "../../db/queries/users.ts";
import { createTestUser } from "../helpers/database.ts";

const folders: string[] = [];
const opened: OpenDatabase[] = [];
afterAll(async () => {
  for (const database of opened.reverse()) await database.close().catch(() => {});
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function freshFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "briefbot-embedded-"));
  folders.push(folder);
  return folder;
}

async function open(dataDir: string, role: "bot" | "cli", extra: { waitForCommandMs?: number } = {}) {
  const database = await openDatabase({
    dataDir,
    role,
    command: role === "bot" ? "start" : "user link",
    ...extra,
  });
  opened.push(database);
  return database;
}

// One folder shared by the first tests: creating a PGlite cluster takes seconds on this machine.
const shared = freshFolder();

describe("embedded database folder, one owner", { timeout: 120_000 }, () => {
  it("lets a CLI work through the bot that owns the folder, and the bot sees the change at once", async () => {
    const bot = await open(shared, "bot");
    await bot.migrate();
    expect(bot.access).toBe("owner");
    expect(existsSync(lockPath(shared))).toBe(true);

    const cli = await open(shared, "cli");
    expect(cli.access).toBe("via-owner");
    expect(cli.owner).toMatchObject({ pid: process.pid, role: "bot" });
    await cli.migrate();
    const user = await createTestUser(cli.db);
    await linkIdentity(cli.db, user.id, { platform: "telegram", externalUserId: "111", chatId: "111" });
    // No restart, no cache: the bot's own session reads what the CLI wrote.
    expect(await findUserByIdentity(bot.db, "telegram", "111")).toMatchObject({ user: { id: user.id } });
    await cli.close();
  });

  it("refuses a second bot on the folder, naming the one that runs", async () => {
    await expect(open(shared, "bot")).rejects.toThrow(DataDirBusyError);
    await expect(open(shared, "bot")).rejects.toThrow(
      /another briefbot \(pid \d+, started .*\) already runs on/,
    );
  });

  it("releases the folder on close: the lock and the socket are gone, and the data stays", async () => {
    const bot = opened.find((database) => database.access === "owner");
    const socket = bot?.socketPath ?? "";
    await bot?.close();
    expect(existsSync(lockPath(shared))).toBe(false);
    expect(existsSync(socket)).toBe(false);
    const again = await open(shared, "cli");
    expect(again.access).toBe("owner");
    await again.migrate();
    expect(await findUserByIdentity(again.db, "telegram", "111")).toBeDefined();
    await again.close();
  });

  it("makes a starting bot wait for a CLI command that holds the folder, and gives up after the bound", async () => {
    const command = await open(shared, "cli");
    await command.migrate();
    const progress: string[] = [];
    await expect(
      openDatabase({
        dataDir: shared,
        role: "bot",
        command: "start",
        waitForCommandMs: 300,
        onProgress: (line) => progress.push(line),
      }),
    ).rejects.toThrow(/`briefbot user link` \(pid \d+\) still holds/);
    expect(progress[0]).toMatch(/^waiting for `briefbot user link`/);

    const waiting = open(shared, "bot", { waitForCommandMs: 20_000 });
    setTimeout(() => void command.close(), 300);
    const bot = await waiting;
    expect(bot.access).toBe("owner");
    await bot.close();
  });

  it("lets a command that owns the folder finish serving another command before it closes", async () => {
    const owner = await open(shared, "cli");
    await owner.migrate();
    const other = await open(shared, "cli");
    expect(other.access).toBe("via-owner");
    const user = await createTestUser(owner.db);
    const working = other.db.transaction(async (tx) => {
      await linkIdentity(tx, user.id, { platform: "telegram", externalUserId: "222", chatId: "222" });
      await new Promise((resolve) => setTimeout(resolve, 400));
      await linkIdentity(tx, user.id, { platform: "slack", externalUserId: "U0222", teamId: null });
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The owner's own command is done; closing waits for the other command instead of cutting it off.
    const closing = owner.close();
    await working;
    await other.close();
    await closing;
    expect(existsSync(lockPath(shared))).toBe(false);
    const after = await open(shared, "cli");
    await after.migrate();
    expect(await findUserByIdentity(after.db, "slack", "U0222")).toMatchObject({ user: { id: user.id } });
    await after.close();
  });

  it("tells a CLI when the running owner has not applied this program's migrations", async () => {
    const folder = freshFolder();
    const older = mkdtempSync(join(tmpdir(), "briefbot-migrations-"));
    folders.push(older);
    cpSync(migrationsFolder, older, { recursive: true });
    const journalPath = join(older, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: unknown[] };
    journal.entries = journal.entries.slice(0, 1);
    writeFileSync(journalPath, JSON.stringify(journal));

    const bot = await open(folder, "bot");
    await bot.migrate({ migrationsFolder: older });
    const cli = await open(folder, "cli");
    await expect(cli.migrate()).rejects.toThrow(SchemaBehindError);
    await expect(cli.migrate()).rejects.toThrow(/has not applied 0001_calendar_body, 0002_/);
    await cli.close();
    await bot.close();
  });
});
