/**
 * The CalDAV flows of issue 23 end to end: the real core (`buildCore` over PGlite, the account service,
 * write-through, the refresh before a briefing), the official `ollama` client talking to the scripted Ollama
 * server, and a real Radicale behind the counting proxy. Radicale's helpers play another client (Nextcloud
 * Tasks, Thunderbird) changing things behind the bot's back; the raw objects are read back from Radicale.
 * The store's contract suite covers PostgreSQL; these flows are about the wire, so PGlite is enough.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { countTasks, listTasks } from "../../db/queries/tasks.ts";
import { createAccounts } from "../../db/stores/index.ts";
import { buildCore } from "../../src/build-core.ts";
import { loadConfig } from "../../src/config/config.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { Account, Receipt, User } from "../../src/core/domain.ts";
import type { BriefingEvent } from "../../src/core/events.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { taskQuery } from "../../src/core/tasks.ts";
import { call, MODEL, modelClientFor, startModelServer } from "../core/fixture.ts";
import { cliHarness } from "../helpers/cli.ts";
import { writeConfigFile } from "../helpers/config-file.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { type Radicale, radicaleMissing, startRadicale } from "../servers/radicale.ts";
import {
  event,
  loopbackProvider,
  PASSWORD,
  todo,
  USER,
  unfold,
} from "../sources/accounts/caldav/caldav-fixtures.ts";
import { seedTasks } from "../sources/accounts/caldav/seed-tasks.ts";
import { receiptOf } from "./receipt-of.ts";

/** 08:00 on Thursday 3 December 2026 in Berlin. */
const START = "2026-12-03T07:00:00Z";
const BERLIN = { timeZone: "Europe/Berlin" };
const KEY = randomBytes(32).toString("base64");
const LABEL = "Radicale";

describe.skipIf(radicaleMissing !== undefined)("CalDAV accounts end to end against Radicale", () => {
  let radicale: Radicale;
  let ollama: OllamaTestServer;
  let database: TestDatabase;
  let db: Database;
  const clock = fixedClock(START);
  const config = loadConfig({ BRIEFBOT_SECRET_KEY: KEY }, (path) => readFileSync(path, "utf8"));
  const coreOver = (over: Database) =>
    buildCore({
      db: over,
      config,
      clock,
      fetch: globalThis.fetch,
      logger: silentLogger,
      model: modelClientFor(ollama.url),
      owner: "caldav-flows",
      // Radicale listens on loopback, which only an operator's allow_private_networks opens.
      providers: [loopbackProvider()],
    });
  let core: ReturnType<typeof coreOver>;

  beforeAll(async () => {
    [radicale, ollama, database] = await Promise.all([
      startRadicale({ users: { [USER]: PASSWORD } }),
      startModelServer(),
      createTestDatabase("pglite"),
    ]);
    db = database.open.db;
    await radicale.makeCalendar(USER, "tasks", { name: "Tasks", components: ["VTODO"] });
    await radicale.makeCalendar(USER, "calendar", { name: "Personal", components: ["VEVENT"] });
    core = coreOver(db);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([radicale?.stop(), ollama?.close(), database?.dispose()]);
  });

  /** A briefbot user with an account on ann's Radicale (all collections, or the ones named). */
  async function connected(choose?: string[]): Promise<{ user: User; account: Account }> {
    const user = await createTestUser(db, BERLIN);
    const { account } = await core.accounts.addAccount({
      userId: user.id,
      kind: "caldav",
      label: LABEL,
      url: `${radicale.url}/`,
      username: USER,
      secret: PASSWORD,
      ...(choose ? { choose } : {}),
    });
    return { user, account };
  }

  const reload = async (account: Account): Promise<Account> => {
    const [found] = (await createAccounts(db).list(account.userId)).filter((row) => row.id === account.id);
    if (!found) throw new Error(`account ${account.id} is gone`);
    return found;
  };

  /** The next briefing once the accounts are stale again, as the morning after the last sync would be. */
  async function nextBriefing(user: User) {
    clock.advance(config.sync.calendarMinutes * 60_000);
    ollama.script(MODEL, { content: "Good morning." });
    return core.assistant.brief(user.id, { slot: "morning" });
  }

  const receipt = receiptOf;

  const openTask = async (user: User, title: string) => {
    const tasks = await listTasks(db, user.id, taskQuery("open", user.timeZone, clock.now()));
    const found = tasks.find((task) => task.title === title);
    if (!found) throw new Error(`no open task "${title}": ${tasks.map((task) => task.title).join(", ")}`);
    return found;
  };

  it("a task created on the server appears in the next briefing, named by where it comes from", async () => {
    const { user, account } = await connected();
    expect((await core.accounts.syncAccount(account)).error).toBeUndefined();

    await radicale.put(
      USER,
      "tasks",
      "passport.ics",
      todo("passport", "Renew passport", ["DUE;VALUE=DATE:20261203", "PRIORITY:1"]),
    );
    const briefing = await nextBriefing(user);

    const dueToday = receipt(briefing.receipts, "list_tasks", "due_today");
    expect(dueToday?.tasks).toContainEqual(
      expect.objectContaining({ title: "Renew passport", from: `${LABEL} · Tasks`, priority: "high" }),
    );
    expect((await reload(account)).lastSyncAt?.toISOString()).toBe(clock.now().toISOString());
  });

  it("a task completed in chat is COMPLETED on the server, and Undo reopens it there", async () => {
    const { user } = await connected();
    await radicale.put(USER, "tasks", "tax.ics", todo("tax", "File taxes", ["DUE;VALUE=DATE:20261210"]));
    await nextBriefing(user);
    const tax = await openTask(user, "File taxes");

    ollama.script(MODEL, [
      { toolCalls: [call("complete_task", { id: tax.id })] },
      { content: "Marked it done." },
    ]);
    const reply = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:tax` },
      "mark the taxes task done",
    );
    expect(reply.pending).toEqual([]);
    expect(reply.text).toContain(`✓ Completed task ${tax.id} "File taxes" on ${LABEL} · Tasks.`);
    const done = unfold((await radicale.get(USER, "tasks", "tax.ics"))?.body);
    expect(done).toMatch(/^STATUS:COMPLETED\r$/m);
    expect(done).toMatch(/^COMPLETED:20261203T\d{6}Z\r$/m);

    const undo = reply.changes[0]?.undo;
    expect(undo).toBeDefined();
    expect((await core.assistant.undo(user.id, undo?.id ?? 0)).kind).toBe("done");
    const reopened = unfold((await radicale.get(USER, "tasks", "tax.ics"))?.body);
    expect(reopened).toMatch(/^STATUS:NEEDS-ACTION\r$/m);
    expect(reopened).not.toMatch(/^COMPLETED:/m);
    expect((await openTask(user, "File taxes")).status).toBe("open");
  });

  it("an update in chat changes only what it names on the server, and Undo puts the old values back there", async () => {
    const { user } = await connected(["Tasks"]);
    await radicale.put(
      USER,
      "tasks",
      "car.ics",
      todo("car", "Wash the car", ["DUE;TZID=Europe/Berlin:20261205T100000", "CATEGORIES:home"]),
    );
    await nextBriefing(user);
    const car = await openTask(user, "Wash the car");
    ollama.script(MODEL, [
      {
        toolCalls: [
          call("update_task", { id: car.id, title: "Wash the car, inside too", due_date: "2026-12-06" }),
        ],
      },
      { content: "Updated." },
    ]);
    const reply = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:car` },
      "rename the car task and move it to Sunday",
    );
    const updated = unfold((await radicale.get(USER, "tasks", "car.ics"))?.body);
    // The comma escaped, as RFC 5545 has TEXT values.
    expect(updated).toMatch(/^SUMMARY:Wash the car\\, inside too\r$/m);
    expect(updated).toMatch(/^DUE;TZID=Europe\/Berlin:20261206T100000\r$/m);
    expect(updated).toMatch(/^CATEGORIES:home\r$/m);

    expect((await core.assistant.undo(user.id, reply.changes[0]?.undo?.id ?? 0)).kind).toBe("done");
    const restored = unfold((await radicale.get(USER, "tasks", "car.ics"))?.body);
    expect(restored).toMatch(/^SUMMARY:Wash the car\r$/m);
    expect(restored).toMatch(/^DUE;TZID=Europe\/Berlin:20261205T100000\r$/m);
    expect(await openTask(user, "Wash the car")).toMatchObject({
      id: car.id,
      dueDate: "2026-12-05",
      dueTime: "10:00",
    });
  });

  it("an edit made on the server between read and write gets a 412: the user is asked again, nothing is overwritten", async () => {
    const { user } = await connected();
    await radicale.put(USER, "tasks", "plants.ics", todo("plants", "Water the plants"));
    await nextBriefing(user);
    const plants = await openTask(user, "Water the plants");
    // Another client renames it after the bot read it.
    await radicale.put(USER, "tasks", "plants.ics", todo("plants", "Water the plants and the garden"));
    const onServer = await radicale.get(USER, "tasks", "plants.ics");

    ollama.script(MODEL, [
      { toolCalls: [call("complete_task", { id: plants.id })] },
      { content: "Someone changed that task on the server. Should I still mark it done?" },
    ]);
    radicale.proxy.reset();
    const first = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:plants` },
      "mark the plants task done",
    );
    expect(radicale.proxy.requests.some((request) => request.status === 412)).toBe(true);
    expect(first.changes).toEqual([]);
    // The model was told what changed there, and to ask again.
    const told = ollama
      .chatRequests(MODEL)
      .at(-1)
      ?.messages.filter((message) => message.role === "tool");
    const error = String((JSON.parse(String(told?.at(-1)?.content)) as { error?: string }).error);
    expect(error).toContain('title "Water the plants" → "Water the plants and the garden"');
    expect(error).toMatch(/nothing was written/);
    expect(first.text).toContain("Should I still mark it done?");
    expect(await radicale.get(USER, "tasks", "plants.ics")).toEqual(onServer);
    // The mirror now holds the server's copy.
    expect((await openTask(user, "Water the plants and the garden")).id).toBe(plants.id);

    ollama.script(MODEL, [{ toolCalls: [call("complete_task", { id: plants.id })] }, { content: "Done." }]);
    const second = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:plants` },
      "yes, mark it done",
    );
    expect(second.text).toContain(`✓ Completed task ${plants.id} "Water the plants and the garden"`);
    const written = unfold((await radicale.get(USER, "tasks", "plants.ics"))?.body);
    expect(written).toMatch(/^STATUS:COMPLETED\r$/m);
    expect(written).toMatch(/^SUMMARY:Water the plants and the garden\r$/m);
  });

  it("a due time set in chat is written in the user's zone, stamped by the core's clock through the build's own provider", async () => {
    // The providers buildCore makes itself (not the suite's), with loopback opened as an operator would.
    const own = buildCore({
      db,
      config: { ...config, sources: { allowPrivateNetworks: true, allowHosts: [] } },
      clock,
      fetch: globalThis.fetch,
      logger: silentLogger,
      model: modelClientFor(ollama.url),
      owner: "caldav-flows-own-providers",
    });
    const user = await createTestUser(db, BERLIN);
    const { account } = await own.accounts.addAccount({
      userId: user.id,
      kind: "caldav",
      label: LABEL,
      url: `${radicale.url}/`,
      username: USER,
      secret: PASSWORD,
      choose: ["Tasks"],
    });
    await radicale.put(
      USER,
      "tasks",
      "glasses.ics",
      todo("glasses", "Pick up the glasses", ["DUE;VALUE=DATE:20261207"]),
    );
    expect((await own.accounts.syncAccount(account)).error).toBeUndefined();
    const glasses = await openTask(user, "Pick up the glasses");
    clock.advance(37_000);
    ollama.script(MODEL, [
      { toolCalls: [call("update_task", { id: glasses.id, due_time: "14:30" })] },
      { content: "Moved." },
    ]);
    const reply = await own.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:glasses` },
      "change the glasses task to 14:30",
    );
    expect(reply.changes).toHaveLength(1);

    const stored = unfold((await radicale.get(USER, "tasks", "glasses.ics"))?.body);
    expect(stored).toMatch(/^DUE;TZID=Europe\/Berlin:20261207T143000\r$/m);
    expect(stored).toMatch(/^BEGIN:VTIMEZONE\r\nTZID:Europe\/Berlin\r$/m);
    const stamp = clock
      .now()
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d+Z$/, "Z");
    expect(stamp).toMatch(/^\d{8}T\d{6}Z$/);
    expect(stored).toMatch(new RegExp(`^DTSTAMP:${stamp}\r$`, "m"));
    expect(stored).toMatch(new RegExp(`^LAST-MODIFIED:${stamp}\r$`, "m"));
    expect(await openTask(user, "Pick up the glasses")).toMatchObject({
      dueDate: "2026-12-07",
      dueTime: "14:30",
    });
  });

  it("a completion held for Confirm in a follow-up is written to the server when confirmed", async () => {
    const { user } = await connected();
    await radicale.put(
      USER,
      "tasks",
      "bins.ics",
      todo("bins", "Put the bins out", ["DUE;VALUE=DATE:20261203"]),
    );
    const morning = await nextBriefing(user);
    const bins = await openTask(user, "Put the bins out");
    ollama.script(MODEL, [
      { toolCalls: [call("complete_task", { id: bins.id })] },
      { content: "It is due today." },
    ]);
    const asked = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:bins`, runId: morning.runId },
      "what about the bins?",
    );
    expect(asked.pending.map((pending) => pending.summary)).toEqual([
      `Mark task ${bins.id} "Put the bins out" done?`,
    ]);
    expect(unfold((await radicale.get(USER, "tasks", "bins.ics"))?.body)).not.toMatch(/STATUS:COMPLETED/);

    const confirmed = await core.assistant.resolveConfirmation(user.id, asked.pending[0]?.id ?? 0, true);
    expect(confirmed.kind).toBe("done");
    expect(unfold((await radicale.get(USER, "tasks", "bins.ics"))?.body)).toMatch(/^STATUS:COMPLETED\r$/m);
  });

  it("a Confirm pressed after an edit on the server writes nothing, says what changed, and asks again", async () => {
    const { user } = await connected();
    await radicale.put(USER, "tasks", "vet.ics", todo("vet", "Call the vet", ["DUE;VALUE=DATE:20261203"]));
    const morning = await nextBriefing(user);
    const vet = await openTask(user, "Call the vet");
    ollama.script(MODEL, [
      { toolCalls: [call("complete_task", { id: vet.id })] },
      { content: "It is due today." },
    ]);
    const asked = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:vet`, runId: morning.runId },
      "what about the vet?",
    );
    await radicale.put(
      USER,
      "tasks",
      "vet.ics",
      todo("vet", "Call the vet about the cat", ["DUE;VALUE=DATE:20261204"]),
    );
    const onServer = await radicale.get(USER, "tasks", "vet.ics");

    const confirmed = await core.assistant.resolveConfirmation(user.id, asked.pending[0]?.id ?? 0, true);
    expect(confirmed.text).toContain('title "Call the vet" → "Call the vet about the cat"');
    expect(confirmed.text).toContain('due date "2026-12-03" → "2026-12-04"');
    expect(confirmed.text).toContain("nothing was written.");
    expect(await radicale.get(USER, "tasks", "vet.ics")).toEqual(onServer);
    expect(await openTask(user, "Call the vet about the cat")).toMatchObject({
      id: vet.id,
      dueDate: "2026-12-04",
    });
    // Asked again, about the server's version, with fresh buttons: one more press does it.
    if (confirmed.kind !== "asked-again") throw new Error(`not asked again: ${confirmed.kind}`);
    const summary = `Mark task ${vet.id} "Call the vet about the cat" done?`;
    expect(confirmed.pending.map((pending) => pending.summary)).toEqual([summary]);
    expect(confirmed.text.endsWith(` Confirm again if you still want it: ${summary}`)).toBe(true);
    const again = confirmed.pending[0]?.id ?? 0;
    expect(again).not.toBe(asked.pending[0]?.id);

    const done = await core.assistant.resolveConfirmation(user.id, again, true);
    expect(done.kind).toBe("done");
    const written = unfold((await radicale.get(USER, "tasks", "vet.ics"))?.body);
    expect(written).toMatch(/^STATUS:COMPLETED\r$/m);
    // The server's edit survives the write it was asked again for.
    expect(written).toMatch(/^SUMMARY:Call the vet about the cat\r$/m);
    expect(written).toMatch(/^DUE;VALUE=DATE:20261204\r$/m);
    expect((await core.assistant.resolveConfirmation(user.id, again, true)).kind).toBe("already-resolved");
  });

  it("a Cancel on the Confirm asked again after a server edit writes nothing", async () => {
    const { user } = await connected();
    await radicale.put(USER, "tasks", "milk.ics", todo("milk", "Buy milk"));
    const morning = await nextBriefing(user);
    const milk = await openTask(user, "Buy milk");
    ollama.script(MODEL, [{ toolCalls: [call("delete_task", { id: milk.id })] }, { content: "Confirm?" }]);
    const asked = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:milk`, runId: morning.runId },
      "delete the milk task",
    );
    await radicale.put(USER, "tasks", "milk.ics", todo("milk", "Buy oat milk"));
    const confirmed = await core.assistant.resolveConfirmation(user.id, asked.pending[0]?.id ?? 0, true);
    if (confirmed.kind !== "asked-again") throw new Error(`not asked again: ${confirmed.kind}`);
    expect(confirmed.pending.map((pending) => pending.summary)).toEqual([
      `Delete task ${milk.id} "Buy oat milk"?`,
    ]);
    const onServer = await radicale.get(USER, "tasks", "milk.ics");

    const cancelled = await core.assistant.resolveConfirmation(user.id, confirmed.pending[0]?.id ?? 0, false);
    expect(cancelled.kind).toBe("cancelled");
    expect(await radicale.get(USER, "tasks", "milk.ics")).toEqual(onServer);
    expect(await openTask(user, "Buy oat milk")).toMatchObject({ id: milk.id });
  });

  it("a Confirm pressed after the task was deleted on the server says so and asks nothing", async () => {
    const { user } = await connected();
    await radicale.put(USER, "tasks", "tyres.ics", todo("tyres", "Change the tyres"));
    const morning = await nextBriefing(user);
    const tyres = await openTask(user, "Change the tyres");
    ollama.script(MODEL, [{ toolCalls: [call("complete_task", { id: tyres.id })] }, { content: "Confirm?" }]);
    const asked = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:tyres`, runId: morning.runId },
      "what about the tyres?",
    );
    await radicale.delete(USER, "tasks", "tyres.ics");

    const confirmed = await core.assistant.resolveConfirmation(user.id, asked.pending[0]?.id ?? 0, true);
    expect(confirmed.kind).toBe("done");
    expect(confirmed.text).toBe(
      `Could not do it: task ${tyres.id} "Change the tyres" was deleted on ${LABEL} · Tasks since it was read; nothing was written.`,
    );
    expect("pending" in confirmed).toBe(false);
    expect(await radicale.get(USER, "tasks", "tyres.ics")).toBeUndefined();
  });

  it("an Undo after an edit on the server writes nothing and says what changed", async () => {
    const { user } = await connected();
    await radicale.put(USER, "tasks", "keys.ics", todo("keys", "Copy the keys"));
    await nextBriefing(user);
    const keys = await openTask(user, "Copy the keys");
    ollama.script(MODEL, [{ toolCalls: [call("complete_task", { id: keys.id })] }, { content: "Done." }]);
    const done = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:keys` },
      "mark the keys task done",
    );
    const raw = (await radicale.get(USER, "tasks", "keys.ics"))?.body ?? "";
    await radicale.put(
      USER,
      "tasks",
      "keys.ics",
      raw.replace("SUMMARY:Copy the keys", "SUMMARY:Copy both keys"),
    );
    const onServer = await radicale.get(USER, "tasks", "keys.ics");
    const undone = await core.assistant.undo(user.id, done.changes[0]?.undo?.id ?? 0);
    expect(undone.text).toMatch(
      /^Could not undo it: .*title "Copy the keys" → "Copy both keys".*nothing was written/,
    );
    expect(await radicale.get(USER, "tasks", "keys.ics")).toEqual(onServer);
  });

  it("a task created in chat is created on the server, Undo deletes it there, and the bot's own write is not fetched back", async () => {
    const { user, account } = await connected(["Tasks"]);
    expect((await core.accounts.syncAccount(account)).error).toBeUndefined();
    ollama.script(MODEL, [
      { toolCalls: [call("create_task", { title: "Book the flights", due_date: "2026-12-09" })] },
      { content: "Added." },
    ]);
    const reply = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:flights` },
      "add a task to book the flights by the 9th",
    );
    expect(reply.text).toContain('"Book the flights"');
    const flights = await openTask(user, "Book the flights");
    expect(flights.sourceName).toBe(`${LABEL} · Tasks`);
    const stored = await createAccounts(db).objectOfTask(user.id, flights.id);
    const name = stored?.object.remoteId.split("/").at(-1) ?? "";
    const onServer = unfold((await radicale.get(USER, "tasks", name))?.body);
    expect(onServer).toMatch(/^SUMMARY:Book the flights\r$/m);
    expect(onServer).toMatch(/^DUE;VALUE=DATE:20261209\r$/m);

    // The next sync sees the collection moved, but the ETag is the one the bot wrote: nothing is fetched.
    radicale.proxy.reset();
    const after = await core.accounts.syncAccount(await reload(account));
    expect(after.collections).toEqual([expect.objectContaining({ changed: 0, requests: 1 })]);
    expect(radicale.proxy.requests).toHaveLength(1);

    expect((await core.assistant.undo(user.id, reply.changes[0]?.undo?.id ?? 0)).kind).toBe("done");
    expect(await radicale.get(USER, "tasks", name)).toBeUndefined();
    expect(
      (await listTasks(db, user.id, taskQuery("open", user.timeZone, clock.now()))).map((task) => task.title),
    ).not.toContain("Book the flights");
  });

  it("a task deleted on the server is gone from the next briefing", async () => {
    const { user } = await connected();
    await radicale.put(
      USER,
      "tasks",
      "gym.ics",
      todo("gym", "Renew the gym card", ["DUE;VALUE=DATE:20261203"]),
    );
    const before = await nextBriefing(user);
    const titles = (briefing: typeof before) =>
      ((receipt(briefing.receipts, "list_tasks", "due_today")?.tasks ?? []) as Array<{ title: string }>).map(
        (task) => task.title,
      );
    expect(titles(before)).toContain("Renew the gym card");
    await radicale.delete(USER, "tasks", "gym.ics");
    expect(titles(await nextBriefing(user))).not.toContain("Renew the gym card");
  });

  it("a deletion confirmed in chat deletes the object on the server and the task from the mirror", async () => {
    const { user } = await connected(["Tasks"]);
    await radicale.put(
      USER,
      "tasks",
      "boiler.ics",
      todo("boiler", "Service the boiler", ["DUE;VALUE=DATE:20261211", "PRIORITY:1"]),
    );
    await nextBriefing(user);
    const boiler = await openTask(user, "Service the boiler");
    ollama.script(MODEL, [
      { toolCalls: [call("delete_task", { id: boiler.id })] },
      { content: "Shall I delete it?" },
    ]);
    const asked = await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:boiler` },
      "delete the boiler task",
    );
    const pending = asked.pending[0];
    expect(pending?.summary).toBe(`Delete task ${boiler.id} "Service the boiler"?`);
    const done = await core.assistant.resolveConfirmation(user.id, pending?.id ?? 0, true);
    expect(done.kind).toBe("done");
    expect(await radicale.get(USER, "tasks", "boiler.ics")).toBeUndefined();

    expect(done.text).toBe(`Done: Delete task ${boiler.id} "Service the boiler".`);
    expect(
      (await listTasks(db, user.id, taskQuery("open", user.timeZone, clock.now()))).map((task) => task.title),
    ).not.toContain("Service the boiler");
  });

  it("an event moved on the server is moved in the next briefing", async () => {
    const { user } = await connected();
    await radicale.put(
      USER,
      "calendar",
      "dentist.ics",
      event("dentist", "Dentist", "20261203T090000Z", "20261203T100000Z"),
    );
    const before = await nextBriefing(user);
    expect(receipt(before.receipts, "list_events")?.events).toContainEqual(
      expect.objectContaining({
        title: "Dentist",
        start: "10:00",
        end: "11:00",
        from: `${LABEL} · Personal`,
      }),
    );

    await radicale.put(
      USER,
      "calendar",
      "dentist.ics",
      event("dentist", "Dentist", "20261203T140000Z", "20261203T150000Z"),
    );
    const after = await nextBriefing(user);
    const events = (receipt(after.receipts, "list_events")?.events ?? []) as Array<Record<string, unknown>>;
    expect(events.filter((entry) => entry.title === "Dentist")).toEqual([
      expect.objectContaining({ start: "15:00", end: "16:00" }),
    ]);
  });

  // Event writes (create, move, delete, 412, recurring series) are in caldav-event-writes.test.ts.

  it("a second sync with nothing changed makes one request and fetches no object", async () => {
    const { account } = await connected(["Tasks"]);
    const first = await core.accounts.syncAccount(account);
    expect(first.collections.map((line) => [line.name, line.full])).toEqual([["Tasks", true]]);

    radicale.proxy.reset();
    const again = await core.accounts.syncAccount(await reload(account));
    expect(again.collections).toEqual([
      expect.objectContaining({ name: "Tasks", changed: 0, removed: 0, full: false, requests: 1 }),
    ]);
    // Counted at the proxy: one sync-collection REPORT on the collection, nothing addressed to an object.
    expect(radicale.proxy.requests.map((request) => [request.method, request.path])).toEqual([
      ["REPORT", `/${USER}/tasks/`],
    ]);
  });

  it("a VTODO with RELATED-TO is a subtask in list_tasks and the briefing, whichever syncs first; completing the parent leaves it open", async () => {
    await radicale.makeCalendar(USER, "moving", { name: "Moving", components: ["VTODO"] });
    const { user, account } = await connected(["Moving"]);
    expect((await core.accounts.syncAccount(account)).error).toBeUndefined();
    const today = "DUE;VALUE=DATE:20261203";
    // Nextcloud Tasks writes RELTYPE=PARENT; Thunderbird and Tasks.org a bare RELATED-TO. The subtasks
    // reach the server (and the bot) before their parent.
    await radicale.put(
      USER,
      "moving",
      "box.ics",
      todo("box", "Pack the books", [today, "RELATED-TO;RELTYPE=PARENT:move-flat"]),
    );
    await radicale.put(
      USER,
      "moving",
      "tape.ics",
      todo("tape", "Buy packing tape", [today, "RELATED-TO:move-flat"]),
    );
    type Listed = { id: number; title: string; parent?: number; subtasks?: number };
    const dueToday = (briefing: { receipts: Receipt[] }) =>
      (receipt(briefing.receipts, "list_tasks", "due_today")?.tasks ?? []) as Listed[];
    // The server lists objects in no set order, so the subtasks (each other's siblings) are compared by title.
    const mine = (tasks: Listed[]) => {
      const listed = tasks
        .filter((task) => ["Move the flat", "Pack the books", "Buy packing tape"].includes(task.title))
        .map(({ title, parent, subtasks }) => ({ title, parent, subtasks }));
      const [first, ...rest] = listed;
      const byTitle = (all: typeof listed) => [...all].sort((a, b) => a.title.localeCompare(b.title));
      return first?.title === "Move the flat" ? [first, ...byTitle(rest)] : byTitle(listed);
    };
    expect(mine(dueToday(await nextBriefing(user)))).toEqual([
      { title: "Buy packing tape", parent: undefined, subtasks: undefined },
      { title: "Pack the books", parent: undefined, subtasks: undefined },
    ]);

    await radicale.put(USER, "moving", "move-flat.ics", todo("move-flat", "Move the flat", [today]));
    clock.advance(config.sync.calendarMinutes * 60_000);
    const prose =
      'Moving day: "Move the flat" has two subtasks today, "Pack the books" and "Buy packing tape".';
    ollama.script(MODEL, { content: prose });
    const briefing = await core.assistant.brief(user.id, { slot: "morning" });
    const move = dueToday(briefing).find((task) => task.title === "Move the flat");
    expect(mine(dueToday(briefing))).toEqual([
      { title: "Move the flat", parent: undefined, subtasks: 2 },
      { title: "Buy packing tape", parent: move?.id, subtasks: undefined },
      { title: "Pack the books", parent: move?.id, subtasks: undefined },
    ]);
    expect(briefing.grounding?.unbacked).toEqual([]);
    expect(briefing.prose).toContain(prose);

    // As on the server, completing the parent completes it alone.
    ollama.script(MODEL, [
      { toolCalls: [call("complete_task", { id: move?.id ?? 0 })] },
      { content: "Marked it done." },
    ]);
    await core.assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:move` },
      "the move is done",
    );
    expect(unfold((await radicale.get(USER, "moving", "move-flat.ics"))?.body)).toMatch(
      /^STATUS:COMPLETED\r$/m,
    );
    expect(unfold((await radicale.get(USER, "moving", "box.ics"))?.body)).not.toMatch(/^STATUS:COMPLETED/m);

    // The parent deleted on the server: its subtasks stay, as tasks of their own.
    await radicale.delete(USER, "moving", "move-flat.ics");
    expect(mine(dueToday(await nextBriefing(user)))).toEqual([
      { title: "Buy packing tape", parent: undefined, subtasks: undefined },
      { title: "Pack the books", parent: undefined, subtasks: undefined },
    ]);
  });
});

describe.skipIf(radicaleMissing !== undefined)("a 500-task CalDAV list end to end", () => {
  let radicale: Radicale;
  let ollama: OllamaTestServer;
  let database: TestDatabase;
  const clock = fixedClock(START);
  const config = loadConfig({ BRIEFBOT_SECRET_KEY: KEY }, (path) => readFileSync(path, "utf8"));

  beforeAll(async () => {
    [radicale, ollama, database] = await Promise.all([
      startRadicale({ users: { [USER]: PASSWORD } }),
      startModelServer(),
      createTestDatabase("pglite"),
    ]);
    await radicale.makeCalendar(USER, "big", { name: "Big", components: ["VTODO"] });
    await seedTasks(radicale, "big", 500);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([radicale?.stop(), ollama?.close(), database?.dispose()]);
  });

  it("syncs in the refresh before the briefing, within its deadline, and lists all 500", async () => {
    const db = database.open.db;
    const core = buildCore({
      db,
      config,
      clock,
      fetch: globalThis.fetch,
      logger: silentLogger,
      model: modelClientFor(ollama.url),
      owner: "caldav-flows-500",
      providers: [loopbackProvider()],
    });
    const user = await createTestUser(db, BERLIN);
    const { account } = await core.accounts.addAccount({
      userId: user.id,
      kind: "caldav",
      label: LABEL,
      url: `${radicale.url}/`,
      username: USER,
      secret: PASSWORD,
    });
    ollama.script(MODEL, { content: "Good morning." });
    radicale.proxy.reset();

    const events: BriefingEvent[] = [];
    const briefing = await core.assistant.brief(user.id, {
      slot: "morning",
      onEvent: (entry) => events.push(entry),
    });

    // Within the refresh deadline: the refresh step reports the accounts refreshed, not late.
    expect(config.briefing.refreshDeadlineSeconds).toBeGreaterThan(0);
    expect(events.filter((entry) => entry.type === "refresh-end" && entry.source === "accounts")).toEqual([
      { type: "refresh-end", source: "accounts", status: "refreshed" },
    ]);
    // The refresh waited for the sync (it did not give up at the deadline and brief from an empty mirror).
    const [synced] = await createAccounts(db).list(user.id);
    expect(synced).toMatchObject({ id: account.id, lastError: null });
    expect(synced?.lastSyncAt?.toISOString()).toBe(new Date(START).toISOString());
    expect(radicale.proxy.requests.filter((request) => request.status >= 400)).toEqual([]);
    const open = taskQuery("open", user.timeZone, clock.now());
    expect(await countTasks(db, user.id, open)).toBe(500);
    // The briefing was built from the synced list: its receipts hold every task due by today.
    const dueByToday = Array.from({ length: 500 }, (_, index) => 1 + (index % 28)).filter((day) => day <= 3);
    expect(dueCount(briefing.receipts)).toBe(dueByToday.length);
  }, 120_000);
});

/** How many tasks the briefing's overdue and due-today receipts counted. */
function dueCount(receipts: readonly Receipt[]): number {
  return receipts
    .filter(
      (entry) =>
        entry.toolName === "list_tasks" &&
        (entry.arguments.filter === "overdue" || entry.arguments.filter === "due_today"),
    )
    .reduce((sum, entry) => sum + Number((entry.result as { count?: number }).count ?? 0), 0);
}

describe.skipIf(radicaleMissing !== undefined)("a CalDAV server down at briefing time", () => {
  let radicale: Radicale | undefined;
  let ollama: OllamaTestServer;
  let database: TestDatabase;

  beforeAll(async () => {
    [radicale, ollama, database] = await Promise.all([
      startRadicale({ users: { [USER]: PASSWORD } }),
      startModelServer(),
      createTestDatabase("pglite"),
    ]);
    await radicale.makeCalendar(USER, "tasks", { name: "Tasks", components: ["VTODO"] });
    await radicale.put(USER, "tasks", "milk.ics", todo("milk", "Buy milk", ["DUE;VALUE=DATE:20261203"]));
  }, 60_000);
  afterAll(async () => {
    await Promise.all([radicale?.stop(), ollama?.close(), database?.dispose()]);
  });

  it("briefs from the mirror, and the refresh says the account could not be synced", async () => {
    const db = database.open.db;
    const clock = fixedClock(START);
    const config = loadConfig({ BRIEFBOT_SECRET_KEY: KEY }, (path) => readFileSync(path, "utf8"));
    const core = buildCore({
      db,
      config,
      clock,
      fetch: globalThis.fetch,
      logger: silentLogger,
      model: modelClientFor(ollama.url),
      owner: "caldav-flows-down",
      providers: [loopbackProvider()],
    });
    const user = await createTestUser(db, BERLIN);
    const { account } = await core.accounts.addAccount({
      userId: user.id,
      kind: "caldav",
      label: LABEL,
      url: `${radicale?.url}/`,
      username: USER,
      secret: PASSWORD,
    });
    expect((await core.accounts.syncAccount(account)).error).toBeUndefined();
    await radicale?.stop();
    radicale = undefined;
    clock.advance(config.sync.calendarMinutes * 60_000);

    ollama.script(MODEL, { content: "Good morning." });
    const events: BriefingEvent[] = [];
    const briefing = await core.assistant.brief(user.id, {
      slot: "morning",
      onEvent: (entry) => events.push(entry),
    });
    expect(events.filter((entry) => entry.type === "refresh-end" && entry.source === "accounts")).toEqual([
      {
        type: "refresh-end",
        source: "accounts",
        status: "failed",
        detail: `could not sync ${LABEL}; using what it showed last`,
      },
    ]);
    const dueToday = receiptOf(briefing.receipts, "list_tasks", "due_today");
    expect(dueToday?.tasks).toEqual([
      expect.objectContaining({ title: "Buy milk", from: `${LABEL} · Tasks` }),
    ]);
    const [after] = await createAccounts(db).list(user.id);
    expect(after?.lastError).toBeTruthy();
    expect(after?.lastError).not.toContain(PASSWORD);
  });
});

describe.skipIf(radicaleMissing !== undefined)("briefbot account with a CalDAV server", () => {
  let radicale: Radicale;
  let database: TestDatabase;
  const folder = mkdtempSync(join(tmpdir(), "briefbot-caldav-cli-"));
  const passwordFile = join(folder, "password");
  writeFileSync(passwordFile, `${PASSWORD}\n`);
  // Radicale is on loopback: the operator opens it in the config file, as the README says.
  const configFile = writeConfigFile("sources:\n  allow_private_networks: true\n");
  const run = cliHarness(() => database.open.db, {
    env: { BRIEFBOT_SECRET_KEY: KEY, BRIEFBOT_CONFIG: configFile },
    clock: fixedClock(START),
  });

  beforeAll(async () => {
    [radicale, database] = await Promise.all([
      startRadicale({ users: { [USER]: PASSWORD } }),
      createTestDatabase("pglite"),
    ]);
    await radicale.makeCalendar(USER, "tasks", { name: "Tasks", components: ["VTODO"] });
    await radicale.makeCalendar(USER, "calendar", { name: "Personal", components: ["VEVENT"] });
    await radicale.put(USER, "tasks", "milk.ics", todo("milk", "Buy milk", ["DUE;VALUE=DATE:20261203"]));
    await radicale.put(
      USER,
      "calendar",
      "dentist.ics",
      event("dentist", "Dentist", "20261203T090000Z", "20261203T100000Z"),
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([radicale?.stop(), database?.dispose()]);
  });

  it("adds the account through discovery, lists it, and syncs with a line per collection, never printing the password", async () => {
    const user = await createTestUser(database.open.db, BERLIN);
    const added = await run(
      "account",
      "add",
      "caldav",
      "--user",
      user.name,
      `${radicale.url}/`,
      "--username",
      USER,
      "--password-file",
      passwordFile,
      "--label",
      LABEL,
    );
    expect(added.stderr).toContain("discovering collections at");
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/added account \d+ \(Radicale\)/);
    expect(added.stdout).toMatch(
      /\[x\] (Tasks \(tasks\); \[x\] Personal \(events\)|Personal \(events\); \[x\] Tasks \(tasks\))/,
    );

    const listed = await run("account", "list", "--user", user.name);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`caldav {2}${LABEL} {2}.* {2}as ${USER}`));
    expect(listed.stdout).toContain("last sync: never");

    const synced = await run("account", "sync", "--user", user.name);
    expect(synced.code).toBe(0);
    expect(synced.stderr).toMatch(/ {2}Tasks: 1 changed, 0 removed \(full\), 2 requests, \d+ bytes/);
    expect(synced.stderr).toMatch(/ {2}Personal: 1 changed, 0 removed \(full\), 2 requests, \d+ bytes/);
    expect(synced.stdout).toMatch(/\(Radicale\): 2 changed in 2 collections, 4 requests, \d+ bytes/);
    const tasks = await listTasks(
      database.open.db,
      user.id,
      taskQuery("open", user.timeZone, new Date(START)),
    );
    expect(tasks.map((task) => [task.title, task.sourceName])).toEqual([["Buy milk", `${LABEL} · Tasks`]]);

    const again = await run("account", "sync", "--user", user.name);
    expect(again.stdout).toMatch(/0 changed in 2 collections, 2 requests/);
    for (const output of [added, listed, synced, again])
      expect(output.stdout + output.stderr).not.toContain(PASSWORD);
  });
});
