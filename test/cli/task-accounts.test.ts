/**
 * `briefbot task add` and `task done` for a user with a CalDAV account go where chat's create_task and
 * complete_task go: to the account's task list on the server (a real Radicale), the mirror taking what
 * the server answered; `task list` says where each task lives; a refusal by the server is one line and
 * stores nothing here. The account is added with the CLI too, as a user would.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { countTasks, listTasks } from "../../db/queries/tasks.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { User } from "../../src/core/domain.ts";
import { taskQuery } from "../../src/core/tasks.ts";
import { cliHarness } from "../helpers/cli.ts";
import { writeConfigFile } from "../helpers/config-file.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type Radicale, radicaleMissing, startRadicale } from "../servers/radicale.ts";
import { todo, unfold } from "../sources/accounts/caldav/caldav-fixtures.ts";

const LOGIN = "ann";
const PASSWORD = `pw-${randomBytes(6).toString("hex")}`;
const KEY = randomBytes(32).toString("base64");
const folder = mkdtempSync(join(tmpdir(), "briefbot-task-accounts-"));
const passwordFile = join(folder, "password");
writeFileSync(passwordFile, `${PASSWORD}\n`);
const clock = fixedClock("2026-12-03T07:00:00Z");
/** iCalendar unfolded, for matching a property whatever line length the server folded it at. */
const missing = radicaleMissing !== undefined;

describeEachDatabase("briefbot task for a user with a CalDAV account", (getDb) => {
  let radicale: Radicale;
  const configFile = writeConfigFile("sources:\n  allow_private_networks: true\n");
  const run = cliHarness(getDb, { env: { BRIEFBOT_SECRET_KEY: KEY, BRIEFBOT_CONFIG: configFile }, clock });

  beforeAll(async () => {
    if (missing) return;
    radicale = await startRadicale({ users: { [LOGIN]: PASSWORD } });
    await radicale.makeCalendar(LOGIN, "tasks", { name: "Tasks", components: ["VTODO"] });
    await radicale.makeCalendar(LOGIN, "calendar", { name: "Personal", components: ["VEVENT"] });
    await radicale.put(LOGIN, "tasks", "milk.ics", todo("milk", "Buy milk", ["DUE;VALUE=DATE:20261203"]));
  }, 60_000);
  afterAll(() => radicale?.stop());

  /** The objects of the tasks collection as Radicale stores them. */
  const onServer = () => {
    const collection = join(radicale.storage, "collection-root", LOGIN, "tasks");
    return readdirSync(collection)
      .filter((file) => file.endsWith(".ics"))
      .map((file) => unfold(readFileSync(join(collection, file), "utf8")));
  };
  const connected = async (): Promise<User> => {
    const user = await createTestUser(getDb(), { timeZone: "UTC" });
    const added = await run(
      "account",
      "add",
      "caldav",
      "--user",
      user.name,
      `${radicale.url}/`,
      "--username",
      LOGIN,
      "--password-file",
      passwordFile,
      "--label",
      "Radicale",
    );
    expect(added.stderr.split("\n").filter((line) => line.startsWith("briefbot:"))).toEqual([]);
    expect(added.code).toBe(0);
    expect((await run("account", "sync", "--user", user.name)).code).toBe(0);
    return user;
  };

  it.skipIf(missing)(
    "adds the task on the account's server and completes it there; the list says where each lives",
    async () => {
      const user = await connected();
      radicale.proxy.reset();
      const added = await run(
        "task",
        "add",
        "Call",
        "the",
        "plumber",
        "--user",
        user.name,
        "--due",
        "2026-12-04",
        "--priority",
        "high",
      );
      expect(added.stderr).toBe("");
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(
        /^added task \d+: Call the plumber · due 2026-12-04 · high priority · on Radicale · Tasks\n$/,
      );
      // Created with If-None-Match: * on the server, and nothing written anywhere else.
      expect(radicale.proxy.requests.filter((request) => request.method === "PUT")).toEqual([
        expect.objectContaining({ status: 201 }),
      ]);
      const plumber = onServer().find((body) => /^SUMMARY:Call the plumber\r$/m.test(body));
      expect(plumber).toMatch(/^DUE;VALUE=DATE:20261204\r$/m);
      expect(plumber).toMatch(/^PRIORITY:[1-4]\r$/m);

      const listed = await run("task", "list", "--user", user.name);
      expect(listed.stdout).toMatch(/^ +\d+ {2}Buy milk · due 2026-12-03 · on Radicale · Tasks$/m);
      expect(listed.stdout).toMatch(
        /^ +\d+ {2}Call the plumber · due 2026-12-04 · high priority · on Radicale · Tasks$/m,
      );

      const id = /added task (\d+)/.exec(added.stdout)?.[1] ?? "";
      const done = await run("task", "done", id, "--user", user.name);
      expect(done).toMatchObject({ code: 0, stdout: "done: Call the plumber\n" });
      const completed = onServer().find((body) => /^SUMMARY:Call the plumber\r$/m.test(body));
      expect(completed).toMatch(/^STATUS:COMPLETED\r$/m);
      for (const output of [added, listed, done])
        expect(output.stdout + output.stderr).not.toContain(PASSWORD);
    },
    60_000,
  );

  it.skipIf(missing)("a user without an account keeps a local task", async () => {
    const user = await createTestUser(getDb(), { timeZone: "UTC" });
    const before = onServer().length;
    const added = await run("task", "add", "Local", "chore", "--user", user.name);
    expect(added.stdout).toMatch(/^added task \d+: Local chore\n$/);
    const [task] = await listTasks(getDb(), user.id, taskQuery("open", user.timeZone, clock.now()));
    expect(task).toMatchObject({ title: "Local chore", accountId: null, sourceName: null });
    expect(onServer()).toHaveLength(before);
  });

  it.skipIf(missing)(
    "a refusal by the server is one line, and nothing is stored here",
    async () => {
      const user = await connected();
      const open = taskQuery("open", user.timeZone, clock.now());
      const before = await countTasks(getDb(), user.id, open);

      const project = await run("project", "add", "Home", "--user", user.name);
      expect(project.code).toBe(0);
      const inProject = await run(
        "task",
        "add",
        "Fix",
        "the",
        "tap",
        "--user",
        user.name,
        "--project",
        "Home",
      );
      expect(inProject.code).not.toBe(0);
      expect(inProject.stderr).toBe(
        "briefbot: could not add the task: tasks on an account cannot be put in a project here\n",
      );

      // Another client removed the task list: the server refuses the new object.
      await radicale.delete(LOGIN, "tasks", "");
      const refused = await run("task", "add", "Water", "the", "plants", "--user", user.name);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toMatch(/^briefbot: could not add the task: .+/);
      expect(refused.stderr).not.toContain(PASSWORD);
      expect(await countTasks(getDb(), user.id, open)).toBe(before);
    },
    60_000,
  );
});
