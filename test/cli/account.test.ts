import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listTasks } from "../../db/queries/tasks.ts";
import { createAccounts, createLeases } from "../../db/stores/index.ts";
import { accountCommands } from "../../src/cli/commands/account.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { taskQuery } from "../../src/core/tasks.ts";
import { cliHarness } from "../helpers/cli.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { taskListProvider } from "../helpers/task-list-provider.ts";
import { startTaskListServer, type TaskListServer } from "../servers/task-list-server.ts";

const TOKEN = "cli-t0ken-s3cr3t";
const folder = mkdtempSync(join(tmpdir(), "briefbot-account-cli-"));
const tokenFile = join(folder, "token");
writeFileSync(tokenFile, `${TOKEN}\n`);
const keyA = randomBytes(32).toString("base64");
const keyFileB = join(folder, "new-key");
const keyB = randomBytes(32).toString("hex");
writeFileSync(keyFileB, keyB);
const clock = fixedClock("2026-03-02T08:00:00Z");

describeEachDatabase("briefbot account", (getDb) => {
  let server: TaskListServer;
  beforeAll(async () => {
    server = await startTaskListServer({
      token: TOKEN,
      collections: [
        { id: "inbox", name: "Inbox", holds: ["tasks"] },
        { id: "home", name: "Home", holds: ["tasks"] },
      ],
    });
    server.put("inbox", "1", JSON.stringify({ title: "Renew passport", due: "2026-03-02" }));
  });
  afterAll(() => server?.close());
  const families = [accountCommands([taskListProvider("todoist")])];
  const run = cliHarness(getDb, { env: { BRIEFBOT_SECRET_KEY: keyA }, families, clock });
  const keyless = cliHarness(getDb, { families, clock });

  it("adds, lists, syncs with request counts, and removes an account, never printing the token", async () => {
    const user = await createTestUser(getDb());
    const added = await run(
      "account",
      "add",
      "todoist",
      "--user",
      user.name,
      "--token-file",
      tokenFile,
      "--url",
      server.url,
      "--collections",
      "Inbox",
    );
    expect(added.stderr).not.toContain(TOKEN);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/added account \d+ \(Todoist\)/);
    expect(added.stdout).toContain("[x] Inbox (tasks); [ ] Home (tasks)");

    const synced = await run("account", "sync", "--user", user.name);
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(/1 changed in 1 collection, 1 request, \d+ bytes/);
    expect(synced.stderr).toMatch(/Inbox: 1 changed, 0 removed \(full\), 1 request, /);
    const tasks = await listTasks(getDb(), user.id, taskQuery("open", user.timeZone, clock.now()));
    expect(tasks.map((task) => [task.title, task.sourceName])).toEqual([
      ["Renew passport", "Todoist · Inbox"],
    ]);

    const again = await run("account", "sync", "--user", user.name);
    expect(again.stdout).toMatch(/0 changed in 1 collection, 1 request, /);

    const listed = await run("account", "list", "--user", user.name);
    expect(listed.stdout).toMatch(/todoist {2}Todoist/);
    expect(listed.stdout).toMatch(/last sync: 2026-03-02 08:00 UTC/);
    for (const output of [added, synced, again, listed])
      expect(output.stdout + output.stderr).not.toContain(TOKEN);

    const [account] = await createAccounts(getDb()).list(user.id);
    const removed = await run("account", "remove", String(account?.id), "--user", user.name);
    expect(removed.stdout).toContain(`removed account ${account?.id}`);
    expect(await listTasks(getDb(), user.id, taskQuery("open", user.timeZone, clock.now()))).toEqual([]);
  });

  it("refuses without a key, in one line naming the variable, and stores nothing", async () => {
    const user = await createTestUser(getDb());
    const result = await keyless(
      "account",
      "add",
      "todoist",
      "--user",
      user.name,
      "--token-file",
      tokenFile,
      "--url",
      server.url,
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("BRIEFBOT_SECRET_KEY");
    expect(await createAccounts(getDb()).list(user.id)).toEqual([]);
  });

  it("refuses a token the server does not take, storing nothing", async () => {
    const user = await createTestUser(getDb());
    const wrong = join(folder, "wrong");
    writeFileSync(wrong, "nope");
    const result = await run(
      "account",
      "add",
      "todoist",
      "--user",
      user.name,
      "--token-file",
      wrong,
      "--url",
      server.url,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/could not add the account: server answered HTTP 401/);
    expect(await createAccounts(getDb()).list(user.id)).toEqual([]);
  });

  it("rotates the key: every secret re-sealed, the old key no longer opens them, the new one does", async () => {
    const user = await createTestUser(getDb());
    await run(
      "account",
      "add",
      "todoist",
      "--user",
      user.name,
      "--token-file",
      tokenFile,
      "--url",
      server.url,
    );
    const rotated = await run("account", "rotate-key", "--new-key-file", keyFileB);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/re-sealed \d+ secrets with key [0-9a-f]{12}/);
    const withOld = await run("account", "sync", "--user", user.name);
    expect(withOld.stdout).toMatch(/failed: this secret was sealed with key/);
    const withNew = cliHarness(getDb, { env: { BRIEFBOT_SECRET_KEY: keyB }, families, clock });
    const synced = await withNew("account", "sync", "--user", user.name);
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(/1 changed/);
  });

  it("skips an account another process is syncing, fetching nothing", async () => {
    const user = await createTestUser(getDb());
    await run(
      "account",
      "add",
      "todoist",
      "--user",
      user.name,
      "--token-file",
      tokenFile,
      "--url",
      server.url,
    );
    const [account] = await createAccounts(getDb()).list(user.id);
    await createLeases(getDb()).acquire(
      `source:account:${account?.id}`,
      "bot-elsewhere",
      60_000,
      clock.now(),
    );
    const before = server.requests.length;
    const result = await run("account", "sync", "--account", String(account?.id));
    expect(result.stdout).toContain("skipped, another process (bot-elsewhere) is syncing it");
    expect(server.requests.length).toBe(before);
  });
});
