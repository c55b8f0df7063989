/**
 * Todoist accounts end to end: the core as the app builds it (`buildCore` over PGlite, the Ollama test
 * server behind the real client, a fixed clock) with the real Todoist provider, and the official SDK
 * talking to the Todoist test server. What a user sees in a briefing and in chat, and what the server
 * holds afterwards, are both asserted.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { createAccounts } from "../../db/stores/index.ts";
import { buildCore } from "../../src/build-core.ts";
import { accountCommands } from "../../src/cli/commands/account.ts";
import { loadConfig } from "../../src/config/config.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { User } from "../../src/core/domain.ts";
import { taskQuery } from "../../src/core/tasks.ts";
import { createTodoistProvider } from "../../src/sources/accounts/todoist/todoist-provider.ts";
import { MODEL, modelClientFor, recordingLogger, startModelServer } from "../core/fixture.ts";
import { cliHarness } from "../helpers/cli.ts";
import { writeConfigFile } from "../helpers/config-file.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "../helpers/database.ts";
import type { OllamaTestServer, ScriptedReply } from "../servers/ollama-server.ts";
import { startTodoistServer, type TodoistServer } from "../servers/todoist-server.ts";
import { LOOPBACK } from "../sources/accounts/todoist/todoist-fixture.ts";

/** 08:00 on Thursday 3 December 2026 in Berlin. */
const clock = fixedClock("2026-12-03T07:00:00Z");
const TODAY = "2026-12-03";
const KEY = randomBytes(32).toString("base64");

let database: TestDatabase;
let ollama: OllamaTestServer;
/** One Todoist account per test: an account sees every project of its token. */
let todoist: TodoistServer;
const db = (): Database => database.open.db;

beforeAll(async () => {
  [database, ollama] = await Promise.all([createTestDatabase("pglite"), startModelServer()]);
});
afterAll(async () => {
  await Promise.all([database?.dispose(), ollama?.close()]);
});
beforeEach(async () => {
  todoist = await startTodoistServer();
});
afterEach(() => todoist.close());

function core() {
  const logger = recordingLogger();
  const built = buildCore({
    db: db(),
    config: loadConfig({ BRIEFBOT_SECRET_KEY: KEY }, (path) => readFileSync(path, "utf8")),
    clock,
    fetch: globalThis.fetch,
    logger,
    model: modelClientFor(ollama.url),
    owner: "todoist-flows",
    providers: [createTodoistProvider(LOOPBACK)],
  });
  return { ...built, logger };
}

/** A user with a Todoist account whose projects are `names` (all enabled unless `choose` says which). */
async function connected(names: string[], choose?: string[]) {
  const built = core();
  const user = await createTestUser(db(), { timeZone: "Europe/Berlin" });
  const projects = names.map((name) => todoist.addProject(`${name} ${user.id}`));
  const { account } = await built.accounts.addAccount({
    userId: user.id,
    kind: "todoist",
    label: "Todoist",
    url: todoist.url,
    username: null,
    secret: todoist.token,
    ...(choose ? { choose: choose.map((name) => `${name} ${user.id}`) } : {}),
  });
  return { ...built, user, account, projects };
}

function chat(
  built: ReturnType<typeof core>,
  user: User,
  text: string,
  replies: ScriptedReply[],
  thread = "chat",
) {
  ollama.script(MODEL, replies);
  return built.assistant.reply(user.id, { platform: "cli", threadKey: `cli:${user.id}:${thread}` }, text);
}

async function accountTask(built: ReturnType<typeof core>, user: User, title: string) {
  const tasks = await built.ports.records.listTasks(user.id, taskQuery("open", user.timeZone, clock.now()));
  const task = tasks.find((entry) => entry.title === title);
  if (!task) throw new Error(`no task "${title}" mirrored`);
  return task;
}

describe("Todoist accounts through the real core", () => {
  it("shows a task made on the server in the next briefing, with its source, p1 as high priority", async () => {
    const built = await connected(["Personal"]);
    const [personal] = built.projects;
    todoist.addTask(String(personal), {
      content: "Renew passport",
      priority: 4,
      due: { date: TODAY, datetime: null, timezone: null, string: TODAY, lang: "en", is_recurring: false },
    });
    ollama.script(MODEL, { content: 'Good morning. "Renew passport" is due today.' });

    const outcome = await built.assistant.brief(built.user.id, { slot: "morning" });

    const receipt = (filter: string) =>
      outcome.receipts.find((entry) => entry.toolName === "list_tasks" && entry.arguments.filter === filter)
        ?.result as { tasks: Array<Record<string, unknown>> } | undefined;
    const source = `Todoist · Personal ${built.user.id}`;
    expect(receipt("due_today")?.tasks).toEqual([
      expect.objectContaining({ title: "Renew passport", from: source, priority: "high" }),
    ]);
    expect(receipt("high_priority")?.tasks).toEqual([
      expect.objectContaining({ title: "Renew passport", from: source }),
    ]);
  });

  it("completes a task on the server from chat, and Undo reopens it there", async () => {
    const built = await connected(["Personal"]);
    const made = todoist.addTask(String(built.projects[0]), { content: "Pay rent" });
    await built.accounts.syncAccount(built.account);
    const task = await accountTask(built, built.user, "Pay rent");

    const reply = await chat(built, built.user, "mark pay rent done", [
      { toolCalls: [{ name: "complete_task", arguments: { id: task.id } }] },
      { content: "Marked it done." },
    ]);

    expect(reply.pending).toEqual([]);
    expect(reply.text).toContain(
      `Completed task ${task.id} "Pay rent" on Todoist · Personal ${built.user.id}`,
    );
    expect(todoist.task(String(made.id))?.checked).toBe(true);
    const undo = reply.changes[0]?.undo;
    if (!undo) throw new Error("no Undo offered");
    expect((await built.assistant.undo(built.user.id, undo.id)).kind).toBe("done");
    expect(todoist.task(String(made.id))?.checked).toBe(false);
    expect((await accountTask(built, built.user, "Pay rent")).status).toBe("open");
  });

  it("holds a completion the user did not ask for until Confirm, which then writes to the server", async () => {
    const built = await connected(["Personal"]);
    const made = todoist.addTask(String(built.projects[0]), { content: "File expenses" });
    ollama.script(MODEL, { content: 'Good morning. "File expenses" is open.' });
    const morning = await built.assistant.brief(built.user.id, { slot: "morning" });
    const task = await accountTask(built, built.user, "File expenses");

    ollama.script(MODEL, [
      { toolCalls: [{ name: "complete_task", arguments: { id: task.id } }] },
      { content: "It is waiting for your Confirm." },
    ]);
    const asked = await built.assistant.reply(
      built.user.id,
      { platform: "cli", threadKey: `cli:${built.user.id}:follow-up`, runId: morning.runId },
      "what is the expenses one about?",
    );
    expect(asked.changes).toEqual([]);
    expect(asked.pending.map((pending) => pending.summary)).toEqual([
      `Mark task ${task.id} "File expenses" done?`,
    ]);
    expect(todoist.task(String(made.id))?.checked).toBe(false);

    const pending = asked.pending[0];
    if (!pending) throw new Error("nothing pending");
    const done = await built.assistant.resolveConfirmation(built.user.id, pending.id, true);
    expect(done.kind).toBe("done");
    expect(todoist.task(String(made.id))?.checked).toBe(true);
  });

  it("asks again with fresh buttons when Confirm is pressed after an edit on the server; one more press does it", async () => {
    const built = await connected(["Personal"]);
    const made = todoist.addTask(String(built.projects[0]), { content: "Call the vet" });
    ollama.script(MODEL, { content: 'Good morning. "Call the vet" is open.' });
    const morning = await built.assistant.brief(built.user.id, { slot: "morning" });
    const task = await accountTask(built, built.user, "Call the vet");
    ollama.script(MODEL, [
      { toolCalls: [{ name: "complete_task", arguments: { id: task.id } }] },
      { content: "It is waiting for your Confirm." },
    ]);
    const asked = await built.assistant.reply(
      built.user.id,
      { platform: "cli", threadKey: `cli:${built.user.id}:vet`, runId: morning.runId },
      "what is the vet one about?",
    );
    const first = asked.pending[0];
    if (!first) throw new Error("nothing pending");
    todoist.editTask(String(made.id), { content: "Call the vet about the cat" });

    const stale = await built.assistant.resolveConfirmation(built.user.id, first.id, true);
    if (stale.kind !== "asked-again") throw new Error(`not asked again: ${stale.kind} ${stale.text}`);
    expect(stale.text).toContain('title "Call the vet" → "Call the vet about the cat"');
    expect(stale.text).toContain("nothing was written.");
    expect(stale.pending.map((pending) => pending.summary)).toEqual([
      `Mark task ${task.id} "Call the vet about the cat" done?`,
    ]);
    expect(todoist.task(String(made.id))?.checked).toBe(false);

    const done = await built.assistant.resolveConfirmation(built.user.id, stale.pending[0]?.id ?? 0, true);
    expect(done.kind).toBe("done");
    expect(todoist.task(String(made.id))).toMatchObject({
      content: "Call the vet about the cat",
      checked: true,
    });
  });

  it("writes nothing when the Confirm asked again is cancelled, and asks nothing for a task deleted there", async () => {
    const built = await connected(["Personal"]);
    const bins = todoist.addTask(String(built.projects[0]), { content: "Put the bins out" });
    const tyres = todoist.addTask(String(built.projects[0]), { content: "Change the tyres" });
    ollama.script(MODEL, { content: "Good morning." });
    const morning = await built.assistant.brief(built.user.id, { slot: "morning" });
    const binsTask = await accountTask(built, built.user, "Put the bins out");
    const tyresTask = await accountTask(built, built.user, "Change the tyres");
    ollama.script(MODEL, [
      {
        toolCalls: [
          { name: "update_task", arguments: { id: binsTask.id, priority: "high" } },
          { name: "complete_task", arguments: { id: tyresTask.id } },
        ],
      },
      { content: "Both wait for your Confirm." },
    ]);
    const asked = await built.assistant.reply(
      built.user.id,
      { platform: "cli", threadKey: `cli:${built.user.id}:two`, runId: morning.runId },
      "anything about the bins or the tyres?",
    );
    const [update, complete] = asked.pending;
    if (!update || !complete) throw new Error("not both pending");
    todoist.editTask(String(bins.id), { content: "Put the bins and the glass out" });
    todoist.deleteTask(String(tyres.id));

    const stale = await built.assistant.resolveConfirmation(built.user.id, update.id, true);
    if (stale.kind !== "asked-again") throw new Error(`not asked again: ${stale.kind} ${stale.text}`);
    const edited = todoist.task(String(bins.id));
    const cancelled = await built.assistant.resolveConfirmation(
      built.user.id,
      stale.pending[0]?.id ?? 0,
      false,
    );
    expect(cancelled.kind).toBe("cancelled");
    expect(todoist.task(String(bins.id))).toEqual(edited);
    expect(edited).toMatchObject({ content: "Put the bins and the glass out", priority: 1 });

    const gone = await built.assistant.resolveConfirmation(built.user.id, complete.id, true);
    expect(gone).toEqual({
      kind: "done",
      text: `Could not do it: task ${tyresTask.id} "Change the tyres" was deleted on Todoist · Personal ${built.user.id} since it was read; nothing was written.`,
    });
  });

  it("on an edit made on the server between read and write tells what changed, keeps it, and asks again", async () => {
    const built = await connected(["Personal"]);
    const made = todoist.addTask(String(built.projects[0]), { content: "Book flights" });
    await built.accounts.syncAccount(built.account);
    const task = await accountTask(built, built.user, "Book flights");
    todoist.editTask(String(made.id), { content: "Book flights and hotel" });

    const first = await chat(
      built,
      built.user,
      "make the flights task high priority",
      [
        // The refusal carries what the server holds now, so the model can say it without looking again.
        { toolCalls: [{ name: "update_task", arguments: { id: task.id, priority: "high" } }] },
        { content: 'It is now called "Book flights and hotel". Still make it high priority?' },
      ],
      "conflict",
    );

    const told = ollama
      .chatRequests(MODEL)
      .at(-1)
      ?.messages.filter((message) => message.role === "tool")
      .map((message) => JSON.parse(String(message.content)) as { error?: string })
      .map((result) => result.error)
      .join("\n");
    expect(told).toContain(
      `changed on Todoist · Personal ${built.user.id} since it was read (title "Book flights" → "Book flights and hotel")`,
    );
    expect(first.changes).toEqual([]);
    expect(first.text).toContain("Still make it high priority?");
    expect(todoist.task(String(made.id))).toMatchObject({ content: "Book flights and hotel", priority: 1 });
    expect((await built.ports.records.getTask(built.user.id, task.id))?.title).toBe("Book flights and hotel");

    const second = await chat(
      built,
      built.user,
      "yes",
      [
        { toolCalls: [{ name: "update_task", arguments: { id: task.id, priority: "high" } }] },
        { content: "Done." },
      ],
      "conflict",
    );
    expect(second.changes).toHaveLength(1);
    expect(todoist.task(String(made.id))).toMatchObject({ content: "Book flights and hotel", priority: 4 });
  });

  it("sends a due time set in chat as the instant of the user's wall time in their zone", async () => {
    const built = await connected(["Personal"]);
    const made = todoist.addTask(String(built.projects[0]), {
      content: "Pick up the glasses",
      due: {
        date: "2026-12-07",
        datetime: null,
        timezone: null,
        string: "2026-12-07",
        lang: "en",
        is_recurring: false,
      },
    });
    await built.accounts.syncAccount(built.account);
    const task = await accountTask(built, built.user, "Pick up the glasses");
    todoist.resetCounts();
    const reply = await chat(built, built.user, "change the glasses task to 14:30", [
      { toolCalls: [{ name: "update_task", arguments: { id: task.id, due_time: "14:30" } }] },
      { content: "Moved." },
    ]);
    expect(reply.changes).toHaveLength(1);
    const update = todoist.requests.find((request) => request.method === "POST");
    // 14:30 in Berlin in December is 13:30 UTC, whatever zone the Todoist account is set to.
    expect(JSON.parse(update?.body ?? "{}")).toEqual({ due_datetime: "2026-12-07T13:30:00Z" });
    expect(todoist.task(String(made.id))?.due).toMatchObject({ datetime: "2026-12-07T13:30:00Z" });
    expect(await built.ports.records.getTask(built.user.id, task.id)).toMatchObject({
      dueDate: "2026-12-07",
      dueTime: "14:30",
    });
  });

  it("creates a task asked for in chat on the server, in the first enabled project", async () => {
    const built = await connected(["Inbox", "Work", "Home"], ["Work", "Home"]);
    const [, work] = built.projects;
    const reply = await chat(built, built.user, "add a task to call the plumber tomorrow", [
      {
        toolCalls: [
          { name: "create_task", arguments: { title: "Call the plumber", due_date: "2026-12-04" } },
        ],
      },
      { content: 'Added "Call the plumber" for tomorrow.' },
    ]);
    expect(reply.changes).toHaveLength(1);
    const created = await accountTask(built, built.user, "Call the plumber");
    expect(created.sourceName).toBe(`Todoist · Work ${built.user.id}`);
    const body = await fetch(`${todoist.url}/api/v1/tasks?project_id=${work}`, {
      headers: { authorization: `Bearer ${todoist.token}` },
    }).then((response) => response.json() as Promise<{ results: Array<Record<string, unknown>> }>);
    expect(body.results).toEqual([
      expect.objectContaining({
        content: "Call the plumber",
        due: expect.objectContaining({ date: "2026-12-04" }),
      }),
    ]);
  });

  it("makes one request for the whole account and fetches no object on a second sync with nothing changed", async () => {
    // Todoist's sync token is the account's: one answer holds every project's changes.
    const built = await connected(["Inbox", "Work", "Home"]);
    const [inbox, work] = built.projects;
    for (const content of ["One", "Two"]) todoist.addTask(String(inbox), { content });
    todoist.addTask(String(work), { content: "Three" });
    todoist.resetCounts();
    const first = await built.accounts.syncAccount(built.account);
    expect(first.collections.map((line) => [line.changed, line.full])).toEqual([
      [2, true],
      [1, true],
      [0, true],
    ]);
    expect(todoist.requests).toHaveLength(1);
    todoist.resetCounts();

    const [stored] = await createAccounts(db()).list(built.user.id);
    if (!stored) throw new Error("no account stored");
    const second = await built.accounts.syncAccount(stored);

    expect(second.error).toBeUndefined();
    expect(todoist.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /api/v1/sync",
    ]);
    expect(second.collections.map((line) => [line.changed, line.removed, line.full])).toEqual([
      [0, 0, false],
      [0, 0, false],
      [0, 0, false],
    ]);
    expect(second.collections.reduce((sum, line) => sum + line.requests, 0)).toBe(1);

    todoist.addTask(String(work), { content: "Four" });
    todoist.resetCounts();
    const [again] = await createAccounts(db()).list(built.user.id);
    if (!again) throw new Error("no account stored");
    const third = await built.accounts.syncAccount(again);
    expect(todoist.requests).toHaveLength(1);
    expect(third.collections.map((line) => line.changed)).toEqual([0, 1, 0]);
  });

  it("syncs a 500-task project in the refresh before a briefing, and waits out a 429", async () => {
    const built = await connected(["Big"]);
    for (let index = 1; index <= 500; index++)
      todoist.addTask(String(built.projects[0]), { content: `Chore ${index}` });
    todoist.throttle(1, 1);
    todoist.resetCounts();
    const events: Array<{ source: string; status: string }> = [];
    ollama.script(MODEL, { content: "Good morning." });

    await built.assistant.brief(built.user.id, {
      slot: "morning",
      onEvent: (event) => {
        if (event.type === "refresh-end") events.push({ source: event.source, status: event.status });
      },
    });

    expect(events).toContainEqual({ source: "accounts", status: "refreshed" });
    expect(todoist.requests[0]?.status).toBe(429);
    expect(todoist.requests.slice(1).every((request) => request.status === 200)).toBe(true);
    const open = await built.ports.records.listTasks(
      built.user.id,
      taskQuery("open", built.user.timeZone, clock.now(), 1000),
    );
    const mine = open.filter((task) => task.sourceName === `Todoist · Big ${built.user.id}`);
    expect(mine).toHaveLength(500);
  });

  it("shows a task's parent_id as a subtask in the briefing, and completing the parent leaves its subtasks open", async () => {
    const built = await connected(["Moving"]);
    const project = String(built.projects[0]);
    const today = {
      date: TODAY,
      datetime: null,
      timezone: null,
      string: TODAY,
      lang: "en",
      is_recurring: false,
    };
    // The subtasks were made first and moved under the parent later: the sync lists them before it.
    const books = todoist.addTask(project, { content: "Pack the books", due: today });
    const tape = todoist.addTask(project, { content: "Buy packing tape", due: today });
    const move = todoist.addTask(project, { content: "Move the flat", due: today });
    todoist.editTask(String(books.id), { parent_id: String(move.id) });
    todoist.editTask(String(tape.id), { parent_id: String(move.id) });
    const prose =
      'Moving day: "Move the flat" has two subtasks today, "Pack the books" and "Buy packing tape".';
    ollama.script(MODEL, { content: prose });

    const outcome = await built.assistant.brief(built.user.id, { slot: "morning" });

    const listed = (
      outcome.receipts.find(
        (entry) => entry.toolName === "list_tasks" && entry.arguments.filter === "due_today",
      )?.result as { tasks: Array<Record<string, unknown>> } | undefined
    )?.tasks;
    const parent = listed?.find((task) => task.title === "Move the flat");
    expect(listed?.map(({ title, parent, subtasks }) => ({ title, parent, subtasks }))).toEqual([
      { title: "Move the flat", parent: undefined, subtasks: 2 },
      { title: "Pack the books", parent: parent?.id, subtasks: undefined },
      { title: "Buy packing tape", parent: parent?.id, subtasks: undefined },
    ]);
    expect(outcome.grounding?.unbacked).toEqual([]);
    expect(outcome.prose).toContain(prose);

    await chat(built, built.user, "the move is done", [
      { toolCalls: [{ name: "complete_task", arguments: { id: parent?.id } }] },
      { content: "Marked it done." },
    ]);
    expect(todoist.task(String(move.id))?.checked).toBe(true);
    expect(todoist.task(String(books.id))).toMatchObject({ checked: false, parent_id: String(move.id) });
    expect((await accountTask(built, built.user, "Pack the books")).parentId).toBe(parent?.id);
  });
});

describe("briefbot account with Todoist", () => {
  const folder = mkdtempSync(join(tmpdir(), "briefbot-todoist-flows-"));
  const tokenFile = join(folder, "token");
  const wrongFile = join(folder, "wrong");
  writeFileSync(wrongFile, "not-the-token\n");
  // The test server is on loopback, which accounts may reach only when the operator says so.
  const config = writeConfigFile("sources:\n  allow_private_networks: true\n");
  const run = cliHarness(db, {
    env: { BRIEFBOT_SECRET_KEY: KEY, BRIEFBOT_CONFIG: config },
    families: [accountCommands()],
    clock,
  });

  it("adds an account with the build's provider, lists it without the token, and syncs with counts", async () => {
    writeFileSync(tokenFile, `${todoist.token}\n`);
    const user = await createTestUser(db(), { name: "ann", timeZone: "Europe/Berlin" });
    const inbox = todoist.addProject("Inbox");
    todoist.addProject("Errands");
    todoist.addTask(inbox, { content: "Renew passport" });

    const added = await run(
      "account",
      "add",
      "todoist",
      "--user",
      "ann",
      "--token-file",
      tokenFile,
      "--url",
      todoist.url,
    );
    expect(added.stderr).toBe(`discovering collections at ${todoist.url}/…\n`);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/added account \d+ \(Todoist\)/);
    expect(added.stdout).toContain("[x] Inbox (tasks); [x] Errands (tasks)");

    const listed = await run("account", "list", "--user", "ann");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(todoist.url);

    const synced = await run("account", "sync", "--user", "ann");
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(/1 changed in 2 collections, 1 request, \d+ bytes/);
    expect(synced.stderr).toMatch(/ {2}Inbox: 1 changed, 0 removed \(full\), 1 request, [1-9]\d* bytes/);
    expect(synced.stderr).toMatch(/ {2}Errands: 0 changed, 0 removed \(full\), 0 requests, 0 bytes/);
    const open = await createAccounts(db()).list(user.id);
    expect(open[0]?.lastSyncAt?.toISOString()).toBe(clock.now().toISOString());

    for (const output of [added, listed, synced])
      expect(output.stdout + output.stderr).not.toContain(todoist.token);
  });

  it("refuses a wrong token in one clear line, storing nothing", async () => {
    const user = await createTestUser(db(), { timeZone: "Europe/Berlin" });
    todoist.addProject("Inbox");
    const result = await run(
      "account",
      "add",
      "todoist",
      "--user",
      user.name,
      "--token-file",
      wrongFile,
      "--url",
      todoist.url,
    );
    expect(result.code).toBe(2);
    // After the progress line, one line: what was refused and where to find the right token.
    expect(result.stderr.trim().split("\n")).toEqual([
      `discovering collections at ${todoist.url}/…`,
      expect.stringMatching(
        /^briefbot: could not add the account: Todoist refused the API token .*\(401 Invalid token, AUTH_INVALID_TOKEN\): check the account's personal token/,
      ),
    ]);
    expect(result.stderr).not.toContain("not-the-token");
    expect(await createAccounts(db()).list(user.id)).toEqual([]);
  });
});
