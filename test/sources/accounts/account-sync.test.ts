/**
 * The accounts part of the refresh before a briefing: stale accounts are synced, fresh ones are not, an
 * account another process is syncing is not synced twice, and a failure keeps what the mirror showed.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type AccountService,
  createAccountService,
  providerRegistry,
} from "../../../src/core/accounts/service.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createAccountRefresher } from "../../../src/sources/accounts/account-sync.ts";
import { createSecretCipher } from "../../../src/sources/accounts/secret-cipher.ts";
import { createSourceLeases, sourceLeaseName } from "../../../src/sources/source-lease.ts";
import { createMemoryPorts, createMemoryTables } from "../../helpers/memory-ports/index.ts";
import { insertMemoryUser } from "../../helpers/memory-ports/users.ts";
import { taskListProvider } from "../../helpers/task-list-provider.ts";
import { startTaskListServer, type TaskListServer } from "../../servers/task-list-server.ts";

const TOKEN = "refresh-token";
const clock = fixedClock("2026-03-02T07:00:00Z");
let server: TaskListServer;
beforeAll(async () => {
  server = await startTaskListServer({
    token: TOKEN,
    collections: [{ id: "inbox", name: "Inbox", holds: ["tasks"] }],
  });
  server.put("inbox", "1", JSON.stringify({ title: "Renew passport" }));
});
afterAll(() => server?.close());

/** `maxAgeMinutes` 0: every account is due, as one is when its sync interval has passed. */
async function setup(maxAgeMinutes = 15) {
  const tables = createMemoryTables({ now: () => clock.now() });
  const ports = createMemoryPorts(tables);
  const user = insertMemoryUser(tables, {
    name: `u${randomBytes(3).toString("hex")}`,
    timeZone: "Europe/London",
  });
  const service = createAccountService({
    accounts: ports.accounts,
    users: ports.users,
    providers: providerRegistry([taskListProvider()]),
    cipher: createSecretCipher(randomBytes(32).toString("base64")),
    clock,
    logger: silentLogger,
  });
  const leases = createSourceLeases(ports.leases, { owner: "this-process", clock });
  const refresh = createAccountRefresher({
    service,
    listAccounts: (userId) => ports.accounts.list(userId),
    maxAgeMinutes,
    now: () => clock.now(),
    leases,
  });
  return { ports, user, service, refresh, leases };
}

/** The task-list test server as the user's Todoist-kind account. */
function addTodoist(service: AccountService, userId: number) {
  return service.addAccount({
    userId,
    kind: "todoist",
    label: "Todoist",
    url: server.url,
    username: null,
    secret: TOKEN,
  });
}

const soon = () => new Date(clock.now().getTime() + 2_000);

it("skips a user without accounts, syncs a stale one, and leaves a fresh one alone", async () => {
  const { user, service, refresh, ports } = await setup();
  expect(await refresh(user, soon())).toEqual({ source: "accounts", status: "skipped" });
  await addTodoist(service, user.id);
  expect(await refresh(user, soon())).toEqual({ source: "accounts", status: "refreshed" });
  const before = server.requests.length;
  expect(await refresh(user, soon())).toEqual({ source: "accounts", status: "fresh" });
  expect(server.requests.length).toBe(before);
  expect((await ports.records.getTask(user.id, 1))?.title).toBe("Renew passport");
});

it("does not sync an account another process is syncing", async () => {
  const { user, service, refresh, ports } = await setup();
  const { account } = await addTodoist(service, user.id);
  await ports.leases.acquire(sourceLeaseName.account(account.id), "other-process", 60_000, clock.now());
  const before = server.requests.length;
  // The holder never finishes here, so the refresh gives up at its deadline rather than fetch twice.
  const result = await refresh(user, new Date(clock.now().getTime() + 300));
  expect(server.requests.length).toBe(before);
  expect(result.status).not.toBe("refreshed");
});

it("says which account failed, without its secret, and keeps the mirror", async () => {
  const { user, service, refresh, ports } = await setup();
  const { account } = await addTodoist(service, user.id);
  await service.syncAccount(account);
  clock.advance(20 * 60_000);
  server.failNext(500);
  const result = await refresh(user, soon());
  expect(result).toMatchObject({
    source: "accounts",
    status: "failed",
    detail: expect.stringContaining("could not sync Todoist"),
  });
  expect(JSON.stringify(result)).not.toContain(TOKEN);
  expect((await ports.accounts.list(user.id))[0]?.lastError).toMatch(/HTTP 500/);
  expect(
    (
      await ports.records.listTasks(user.id, {
        filter: "open",
        today: "2026-03-02",
        completedSince: clock.now(),
      })
    ).length,
  ).toBe(1);
});

it("syncs from where the last sync left off, even when handed the account as it was listed before it", async () => {
  const { user, service, ports } = await setup();
  await addTodoist(service, user.id);
  const [listed] = await ports.accounts.list(user.id);
  if (!listed) throw new Error("test bug: no account listed");
  const first = await service.syncAccount(listed);
  expect(first.collections.map((entry) => entry.full)).toEqual([true]);
  // The same listed row again, as a refresh that read the accounts before the background sync ran holds it.
  const second = await service.syncAccount(listed);
  expect(second.collections.map((entry) => ({ full: entry.full, changed: entry.changed }))).toEqual([
    { full: false, changed: 0 },
  ]);
});

it("does not sync an account side by side with a sync of its own process, and waits for it", async () => {
  const { user, service, refresh, leases } = await setup(0);
  const { account } = await addTodoist(service, user.id);
  let finish = () => {};
  const background = leases.exclusive(
    sourceLeaseName.account(account.id),
    () => new Promise<void>((resolve) => (finish = resolve)),
  );
  const before = server.requests.length;
  const refreshing = refresh(user, new Date(clock.now().getTime() + 5_000));
  await new Promise((resolve) => setTimeout(resolve, 300));
  // The lease is re-entrant for its holder in the store; in one process the second sync still waits.
  expect(server.requests.length).toBe(before);
  finish();
  expect((await background).ran).toBe(true);
  expect(await refreshing).toEqual({ source: "accounts", status: "refreshed" });
  expect(server.requests.length).toBe(before);
});
