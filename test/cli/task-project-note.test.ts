import { expect, it } from "vitest";
import { fixedClock } from "../../src/core/clock.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("briefbot task, project and note", (getDb) => {
  // 23:30 in Los Angeles on 30 November is already 1 December in UTC.
  const run = cliHarness(getDb, { clock: fixedClock("2026-12-01T07:30:00Z") });

  it("adds tasks with due dates in the user's zone, lists them by filter and completes one", async () => {
    await run("user", "add", "lou", "--tz", "America/Los_Angeles");
    await run("project", "add", "Travel", "--user", "lou", "--summary", "Trip to Lisbon");
    const added = await run(
      "task",
      "add",
      "Renew",
      "passport",
      "--user",
      "lou",
      "--due",
      "today",
      "--priority",
      "high",
      "--project",
      "travel",
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^added task \d+: Renew passport · due 2026-11-30 · high priority\n$/);
    await run("task", "add", "Book flights", "--user", "lou", "--due", "2026-11-28", "--at", "9:00");
    const today = await run("task", "list", "--user", "lou", "--filter", "due_today", "--json");
    expect((JSON.parse(today.stdout) as { title: string }[]).map((task) => task.title)).toEqual([
      "Renew passport",
    ]);
    const overdue = await run("task", "list", "--user", "lou", "--filter", "overdue");
    expect(overdue.stdout).toMatch(/Book flights · due 2026-11-28 09:00/);
    const id = /added task (\d+)/.exec(added.stdout)?.[1] ?? "";
    expect(await run("task", "done", id, "--user", "lou")).toEqual({
      code: 0,
      stdout: "done: Renew passport\n",
      stderr: "",
    });
    expect((await run("task", "done", id, "--user", "lou")).stderr).toBe(
      `briefbot: task ${id} is already done\n`,
    );
    expect((await run("task", "list", "--user", "lou", "--filter", "completed_recently")).stdout).toContain(
      "Renew passport",
    );
  });

  it("refuses bad task input with one line and writes nothing", async () => {
    await run("user", "add", "max", "--tz", "Europe/Berlin");
    const cases: [string[], string][] = [
      [
        ["task", "add", "X", "--user", "nobody"],
        'briefbot: no user named "nobody" (see: briefbot user list)\n',
      ],
      [
        ["task", "add", "X", "--user", "max", "--due", "31/12/2026"],
        'briefbot: --due "31/12/2026" is not a date (use YYYY-MM-DD, today or tomorrow)\n',
      ],
      [
        ["task", "add", "X", "--user", "max", "--due", "2026-02-30"],
        'briefbot: --due "2026-02-30" is not a date (use YYYY-MM-DD, today or tomorrow)\n',
      ],
      [
        ["task", "add", "X", "--user", "max", "--priority", "urgent"],
        'briefbot: --priority "urgent" must be one of low, normal, high\n',
      ],
      [
        ["task", "add", "X", "--user", "max", "--project", "Nope"],
        'briefbot: max has no project "Nope" (see: briefbot project list)\n',
      ],
      [
        ["task", "list", "--user", "max", "--filter", "soon"],
        'briefbot: --filter "soon" must be one of due_today, overdue, high_priority, open, completed_recently\n',
      ],
      [["task", "done", "abc", "--user", "max"], 'briefbot: task id "abc" is not a positive whole number\n'],
      [["task", "done", "999999", "--user", "max"], "briefbot: max has no task 999999\n"],
      [
        ["task", "done", "99999999999999999999", "--user", "max"],
        "briefbot: max has no task 99999999999999999999\n",
      ],
      [
        ["task", "add", "x".repeat(100_000), "--user", "max"],
        "briefbot: the title is 100,000 characters long; at most 300 are allowed\n",
      ],
      [
        ["task", "add", "X", "--user", "max", "--notes", "n".repeat(2001)],
        "briefbot: --notes is 2,001 characters long; at most 2,000 are allowed\n",
      ],
    ];
    for (const [argv, stderr] of cases) expect(await run(...argv)).toEqual({ code: 2, stdout: "", stderr });
    expect((await run("task", "list", "--user", "max")).stdout).toBe("no open tasks\n");
    const missing = await run("task", "add", "--user", "max");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'title'");
  });

  it("adds and lists projects and notes, refusing bad input", async () => {
    await run("user", "add", "ned", "--tz", "Asia/Tokyo");
    expect((await run("project", "add", "Garden", "--user", "ned", "--status", "paused")).stdout).toMatch(
      /added project \d+: Garden \(paused\)/,
    );
    expect((await run("project", "add", "garden", "--user", "ned")).stderr).toBe(
      'briefbot: ned already has a project "garden"\n',
    );
    expect((await run("project", "add", "Shed", "--user", "ned", "--status", "someday")).stderr).toBe(
      'briefbot: --status "someday" must be one of active, paused, done, archived\n',
    );
    expect((await run("project", "list", "--user", "ned", "--status", "paused")).stdout).toMatch(
      /Garden \(paused\)\n$/,
    );
    expect(
      (await run("note", "add", "Call", "the", "plumber", "--user", "ned", "--title", "House")).stdout,
    ).toMatch(/^added note \d+\n$/);
    const notes = await run("note", "list", "--user", "ned");
    expect(notes.stdout).toContain("Tue 1 Dec, 16:30  House: Call the plumber");
    expect((await run("note", "list", "--user", "ned", "--recent-days", "0")).stderr).toBe(
      'briefbot: --recent-days "0" is not a positive whole number\n',
    );
    expect((await run("note", "add", "--user", "ned")).code).toBe(2);
    const tooLong: [string[], string][] = [
      [
        ["note", "add", "n".repeat(10_001), "--user", "ned"],
        "briefbot: the note is 10,001 characters long; at most 10,000 are allowed\n",
      ],
      [
        ["note", "add", "ok", "--user", "ned", "--title", "t".repeat(201)],
        "briefbot: --title is 201 characters long; at most 200 are allowed\n",
      ],
      [
        ["project", "add", "p".repeat(201), "--user", "ned"],
        "briefbot: the name is 201 characters long; at most 200 are allowed\n",
      ],
      [
        ["project", "add", "Shed", "--user", "ned", "--summary", "s".repeat(2001)],
        "briefbot: --summary is 2,001 characters long; at most 2,000 are allowed\n",
      ],
      [
        ["user", "set", "ned", "--profile", "p".repeat(4001)],
        "briefbot: --profile is 4,001 characters long; at most 4,000 are allowed\n",
      ],
    ];
    for (const [argv, stderr] of tooLong) expect(await run(...argv)).toEqual({ code: 2, stdout: "", stderr });
    // Nothing was written.
    expect((await run("project", "list", "--user", "ned")).stdout).not.toContain("ppp");
    expect((await run("note", "list", "--user", "ned")).stdout.split("\n").filter(Boolean)).toHaveLength(1);
  });
});
