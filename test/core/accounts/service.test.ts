/**
 * The account service over the memory ports, with a provider that speaks HTTP to a local task-list
 * server: discovery, incremental sync (request counts), per-object isolation, failures that keep the
 * mirror, and write-through with conflicts, through the same `Records` the tools and Undo use.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountService, providerRegistry } from "../../../src/core/accounts/service.ts";
import { writeThroughRecords } from "../../../src/core/accounts/write-through.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import type { User } from "../../../src/core/domain.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { taskQuery } from "../../../src/core/tasks.ts";
import { isMutationResult } from "../../../src/core/tools/define-tool.ts";
import { completeTaskTool, listTasksTool } from "../../../src/core/tools/tasks.ts";
import { createSecretCipher } from "../../../src/sources/accounts/secret-cipher.ts";
import { createMemoryPorts, createMemoryTables } from "../../helpers/memory-ports/index.ts";
import { insertMemoryUser } from "../../helpers/memory-ports/users.ts";
import { taskListProvider } from "../../helpers/task-list-provider.ts";
import { startTaskListServer, type TaskListServer } from "../../servers/task-list-server.ts";

const TOKEN = "tok-s3cr3t";
const clock = fixedClock("2026-03-02T08:00:00Z");

let server: TaskListServer;
beforeAll(async () => {
  server = await startTaskListServer({
    token: TOKEN,
    collections: [
      { id: "personal", name: "Personal", holds: ["tasks"] },
      { id: "work", name: "Work", holds: ["tasks"] },
    ],
  });
});
afterAll(() => server?.close());

function world(options: { key?: boolean } = {}) {
  const tables = createMemoryTables({ now: () => clock.now() });
  const ports = createMemoryPorts(tables);
  const user: User = insertMemoryUser(tables, {
    name: `ann${randomBytes(3).toString("hex")}`,
    timeZone: "Europe/London",
  });
  const cipher = options.key === false ? undefined : createSecretCipher(randomBytes(32).toString("base64"));
  const warnings: string[] = [];
  const service = createAccountService({
    accounts: ports.accounts,
    users: ports.users,
    providers: providerRegistry([taskListProvider("todoist")]),
    cipher,
    clock,
    logger: { ...silentLogger, warn: (details) => warnings.push(JSON.stringify(details)) },
    noKeyText: "account commands need BRIEFBOT_SECRET_KEY",
  });
  const records = writeThroughRecords(ports.records, service, ports.users);
  const add = (choose?: string[]) =>
    service.addAccount({
      userId: user.id,
      kind: "todoist",
      label: "Todoist",
      url: server.url,
      username: null,
      secret: TOKEN,
      ...(choose ? { choose } : {}),
    });
  const open = () => records.listTasks(user.id, taskQuery("open", user.timeZone, clock.now()));
  return { ports, user, service, records, add, open, warnings };
}

/** A collection of its own per test, so tests do not see each other's objects. */
let serial = 0;
function body(title: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ title, due: "2026-03-02", ...extra });
}

describe("account service", () => {
  it("discovers collections, seals the token, and enables the chosen ones", async () => {
    const { ports, add } = world();
    const { account } = await add(["Personal"]);
    expect(account.collections.map((c) => [c.name, c.enabled])).toEqual([
      ["Personal", true],
      ["Work", false],
    ]);
    const secret = await ports.accounts.secretOf(account.id);
    expect(secret.sealed).not.toContain(TOKEN);
    await expect(add(["Garden"])).rejects.toThrow(
      /no collection named "garden"; the server has "Personal", "Work"/,
    );
  });

  it("refuses without a key, in the one line the edge gave", async () => {
    const { add } = world({ key: false });
    await expect(add()).rejects.toThrow(
      expect.objectContaining({ code: "secret_key", message: "account commands need BRIEFBOT_SECRET_KEY" }),
    );
  });

  it("syncs tasks with where they come from; a second sync with nothing changed fetches no object", async () => {
    serial += 1;
    const { service, ports, user, add, open } = world();
    server.put("personal", `a${serial}`, body(`Buy milk ${serial}`));
    const { account } = await add(["Personal"]);
    const first = await service.syncAccount(account);
    expect(first.error).toBeUndefined();
    const tasks = await open();
    expect(tasks.find((t) => t.title === `Buy milk ${serial}`)).toMatchObject({
      sourceName: "Todoist · Personal",
    });

    const before = server.requests.length;
    const again = await service.syncAccount((await ports.accounts.get(user.id, account.id)) ?? account);
    expect(server.requests.length - before).toBe(1);
    expect(again.collections).toMatchObject([{ changed: 0, removed: 0, full: false, requests: 1 }]);
  });

  it("moves a task edited on the server, keeping its id; drops one deleted there", async () => {
    serial += 1;
    const { service, ports, user, add, open } = world();
    server.put("personal", `b${serial}`, body(`Call Bea ${serial}`));
    server.put("personal", `c${serial}`, body(`Post letter ${serial}`));
    const { account } = await add(["Personal"]);
    await service.syncAccount(account);
    const bea = (await open()).find((t) => t.title === `Call Bea ${serial}`);
    server.put("personal", `b${serial}`, body(`Call Bea ${serial}`, { due: "2026-03-05", priority: "high" }));
    server.remove("personal", `c${serial}`);
    const stored = await ports.accounts.get(user.id, account.id);
    await service.syncAccount(stored ?? account);
    const after = await open();
    expect(after.find((t) => t.id === bea?.id)).toMatchObject({ dueDate: "2026-03-05", priority: "high" });
    expect(after.some((t) => t.title === `Post letter ${serial}`)).toBe(false);
  });

  it("skips an object it cannot read, with the reason logged, and keeps the rest", async () => {
    serial += 1;
    const { service, add, open, warnings } = world();
    server.put("work", `ok${serial}`, body(`Readable ${serial}`));
    server.put("work", `bad${serial}`, JSON.stringify({ notes: "no title" }));
    const { account } = await add(["Work"]);
    const report = await service.syncAccount(account);
    expect(report.collections[0]?.skipped).toEqual([`work/bad${serial}: a task without a title`]);
    expect((await open()).some((t) => t.title === `Readable ${serial}`)).toBe(true);
    expect(warnings.join("\n")).toContain(`work/bad${serial}`);
    server.remove("work", `bad${serial}`);
  });

  it("derives the mirror again once the window has moved on, and not before", async () => {
    serial += 1;
    const tables = createMemoryTables({ now: () => clock.now() });
    const ports = createMemoryPorts(tables);
    const user = insertMemoryUser(tables, { name: `win${serial}`, timeZone: "Europe/London" });
    const base = taskListProvider("todoist");
    const windows: string[] = [];
    const service = createAccountService({
      accounts: ports.accounts,
      users: ports.users,
      // The test provider, noting the window each derive was asked for.
      providers: providerRegistry([
        {
          ...base,
          derive: (object, options) => {
            windows.push(`${object.remoteId}@${options.windowStart.toISOString()}`);
            return base.derive(object, options);
          },
        },
      ]),
      cipher: createSecretCipher(randomBytes(32).toString("base64")),
      clock,
      logger: silentLogger,
    });
    server.put("work", `win${serial}`, body(`Windowed ${serial}`));
    const { account } = await service.addAccount({
      userId: user.id,
      kind: "todoist",
      label: "Todoist",
      url: server.url,
      username: null,
      secret: TOKEN,
      choose: ["Work"],
    });
    await service.syncAccount(account);
    const mine = () => windows.filter((entry) => entry.startsWith(`work/win${serial}@`));
    expect(mine()).toHaveLength(1);
    const stored = async () => (await ports.accounts.get(user.id, account.id)) ?? account;
    await service.syncAccount(await stored());
    expect(mine()).toHaveLength(1);
    const start = clock.now();
    clock.advance(24 * 60 * 60_000);
    try {
      await service.syncAccount(await stored());
      expect(mine()).toHaveLength(2);
      expect(mine()[1]).not.toBe(mine()[0]);
    } finally {
      clock.set(start);
    }
  });

  it("records a failed sync and keeps the mirror", async () => {
    serial += 1;
    const { service, ports, user, add, open } = world();
    server.put("personal", `d${serial}`, body(`Keep me ${serial}`));
    const { account } = await add(["Personal"]);
    await service.syncAccount(account);
    server.failNext(503);
    const report = await service.syncAccount((await ports.accounts.get(user.id, account.id)) ?? account);
    expect(report.error).toMatch(/HTTP 503/);
    expect((await ports.accounts.get(user.id, account.id))?.lastError).toMatch(/HTTP 503/);
    expect((await open()).some((t) => t.title === `Keep me ${serial}`)).toBe(true);
  });
});

describe("write-through", () => {
  async function synced(title: string) {
    serial += 1;
    const w = world();
    const id = `w${serial}`;
    server.put("personal", id, body(`${title} ${serial}`));
    const { account } = await w.add(["Personal"]);
    await w.service.syncAccount(account);
    const task = (await w.open()).find((t) => t.title === `${title} ${serial}`);
    if (!task) throw new Error("task did not sync");
    return { ...w, task, id };
  }

  it("completes a task on the server, and Undo's reopen writes back too", async () => {
    const { records, user, task, id } = await synced("Pay rent");
    const done = await records.completeTask(user.id, task.id, clock.now());
    expect(done).toMatchObject({ id: task.id, status: "done" });
    expect(JSON.parse(server.body("personal", id) ?? "{}").done).toBe(clock.now().toISOString());
    const reopened = await records.reopenTask(user.id, task.id, clock.now());
    expect(reopened.status).toBe("open");
    expect(JSON.parse(server.body("personal", id) ?? "{}").done).toBeNull();
  });

  it("on a conflict stores the server's copy, says what changed, overwrites nothing; asking again works", async () => {
    const { records, user, task, id } = await synced("Book dentist");
    const theirs = body(`Book dentist ${serial} at 9`, { due: "2026-03-04" });
    server.put("personal", id, theirs);
    const attempt = records.updateTask(user.id, task.id, { priority: "high" }, clock.now());
    await expect(attempt).rejects.toThrow(
      new RegExp(
        `changed on Todoist · Personal since it was read \\(title "Book dentist ${serial}" → "Book dentist ${serial} at 9"; due date "2026-03-02" → "2026-03-04"\\); nothing was written`,
      ),
    );
    expect(server.body("personal", id)).toBe(theirs);
    expect(await records.getTask(user.id, task.id)).toMatchObject({
      title: `Book dentist ${serial} at 9`,
      priority: "normal",
    });
    const second = await records.updateTask(user.id, task.id, { priority: "high" }, clock.now());
    expect(second).toMatchObject({ id: task.id, priority: "high", title: `Book dentist ${serial} at 9` });
    expect(JSON.parse(server.body("personal", id) ?? "{}")).toMatchObject({
      priority: "high",
      due: "2026-03-04",
    });
  });

  it("creates a new task on the account, and deletes one there", async () => {
    const { records, user } = await synced("Anchor");
    const created = await records.createTask({
      userId: user.id,
      title: "Water plants",
      dueDate: "2026-03-03",
    });
    expect(created).toMatchObject({
      title: "Water plants",
      sourceName: "Todoist · Personal",
      accountId: expect.any(Number),
    });
    const deleted = await records.deleteTask(user.id, created.id);
    expect(deleted.id).toBe(created.id);
    expect(await records.getTask(user.id, created.id)).toBeUndefined();
  });

  it("leaves a local task local", async () => {
    const { records, user } = world();
    const local = await records.createTask({ userId: user.id, title: "Local only" });
    expect(local.accountId ?? null).toBeNull();
    const before = server.requests.length;
    await records.completeTask(user.id, local.id, clock.now());
    expect(server.requests.length).toBe(before);
  });

  it("tells in the tool's receipt and report where the task lives, and offers an Undo that writes back", async () => {
    const { records, ports, user, task, id } = await synced("Return library book");
    const context = { user, clock, records, sources: ports.sources };
    const listed = (await listTasksTool.handler({ filter: "open" }, context)) as {
      tasks: Array<Record<string, unknown>>;
    };
    expect(listed.tasks.find((entry) => entry.id === task.id)).toMatchObject({ from: "Todoist · Personal" });
    const result = await completeTaskTool.handler({ id: task.id }, context);
    if (!isMutationResult(result)) throw new Error("not a mutation");
    expect(result.report).toBe(
      `Completed task ${task.id} "Return library book ${serial}" on Todoist · Personal`,
    );
    expect(result.undo).toEqual({ op: "reopen_task", id: task.id });
    // What chat/undo.ts runs for that step, through the same Records.
    await records.reopenTask(user.id, task.id, clock.now());
    expect(JSON.parse(server.body("personal", id) ?? "{}").done).toBeNull();
  });
});
