import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { registerCalendarCommands, registerEventCommands } from "../../src/cli/commands/calendar.ts";
import { type CliContext, CliError } from "../../src/cli/context.ts";
import { loadConfig } from "../../src/config/config.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { loopbackSourcesConfig } from "../helpers/config-file.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type StaticHttpServer, startStaticHttpServer } from "../servers/static-http-server.ts";

const FILE = fileURLToPath(new URL("../fixtures/ics/outlook-work.ics", import.meta.url));
const CONFIG = loopbackSourcesConfig();

describeEachDatabase("briefbot calendar and event commands", (getDb) => {
  let server: StaticHttpServer;
  beforeAll(async () => {
    server = await startStaticHttpServer({ "/work.ics": { body: readFileSync(FILE, "utf8"), etag: '"w"' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Runs one command on a fresh program; returns what it printed. CliErrors reject. */
  async function run(db: Database, ...argv: string[]) {
    const output = { lines: [] as string[], json: [] as unknown[], progress: [] as string[] };
    const context = async (): Promise<CliContext> => ({
      db,
      database: {
        db,
        kind: "pglite",
        access: "memory",
        location: "test",
        migrate: async () => {},
        ping: async () => {},
        close: async () => {},
      },
      config: loadConfig({ BRIEFBOT_CONFIG: CONFIG }, (path) => readFileSync(path, "utf8")),
      clock: fixedClock("2026-03-30T12:00:00Z"),
      out: {
        line: (text) => output.lines.push(text),
        json: (value) => output.json.push(value),
        progress: (text) => output.progress.push(text),
      },
      fetch,
    });
    const program = new Command().exitOverride();
    registerCalendarCommands(program, context);
    registerEventCommands(program, context);
    await program.parseAsync(argv, { from: "user" });
    return output;
  }

  it("adds a file and an http calendar, syncing each right away, then lists and syncs them", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const added = await run(db, "calendar", "add", "--user", user.name, FILE);
    expect(added.lines[0]).toMatch(new RegExp(`^added calendar \\d+ for ${user.name}: ${FILE}$`));
    expect(added.lines[1]).toMatch(/^synced: \d+ events in the next two weeks$/);
    const web = await run(db, "calendar", "add", "--user", user.name, `${server.url}/work.ics`);
    expect(web.lines[1]).toMatch(/^synced: /);

    const listed = await run(db, "calendar", "list", "--user", user.name);
    expect(listed.lines).toHaveLength(2);
    expect(listed.lines[0]).toContain('"Calendar"');
    expect(listed.lines[0]).toContain("last sync 2026-03-30 13:00");
    const json = await run(db, "calendar", "list", "--user", user.name, "--json");
    expect(
      (json.json[0] as { eventCount: number; lastError: string | null }[]).map((row) => row.lastError),
    ).toEqual([null, null]);

    const synced = await run(db, "calendar", "sync", "--user", user.name);
    expect(synced.progress).toEqual([
      expect.stringMatching(/^\[1\/2\] .* · .*outlook-work\.ics: synced: /),
      expect.stringMatching(/^\[2\/2\] .*\/work\.ic…: unchanged since the last sync/),
    ]);
    expect(synced.lines).toEqual(["synced 2/2 calendars"]);

    const today = await run(db, "event", "list", "--user", user.name);
    expect(today.lines.map((line) => line.replace(/^\s*\d+\s+/, ""))).toEqual([
      "2026-03-30 all day  Office closed",
      "2026-03-30 all day  Office closed",
    ]);
  });

  it("adds and lists hand-made events in the user's zone", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "America/New_York" });
    const added = await run(
      db,
      "event",
      "add",
      "--user",
      user.name,
      "--title",
      "Dentist",
      "--start",
      "2026-03-30 10:00",
      "--location",
      "Main St",
    );
    expect(added.lines[0]).toMatch(/^added event \d+: Dentist · 2026-03-30 10:00$/);
    await run(
      db,
      "event",
      "add",
      "--user",
      user.name,
      "--title",
      "Trip",
      "--all-day",
      "--date",
      "2026-03-31",
      "--end-date",
      "2026-04-02",
    );
    const upcoming = await run(db, "event", "list", "--user", user.name, "--range", "upcoming", "--json");
    expect(
      (upcoming.json[0] as { title: string; start: string; end: string }[]).map((event) => [
        event.title,
        event.start,
        event.end,
      ]),
    ).toEqual([
      ["Dentist", "2026-03-30 10:00", "2026-03-30 11:00"],
      ["Trip", "2026-03-31", "2026-04-02"],
    ]);
    const text = await run(db, "event", "list", "--user", user.name, "--range", "tomorrow");
    expect(text.lines[0]).toMatch(/2026-03-31 – 2026-04-02 all day {2}Trip · added by hand$/);
  });

  it("refuses bad input with a CliError and writes nothing", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const cases: [string[], string][] = [
      [["calendar", "add", "--user", "nobody", FILE], 'no user named "nobody" (see: briefbot user list)'],
      [["calendar", "list", "--user", "nobody"], 'no user named "nobody" (see: briefbot user list)'],
      [["calendar", "sync", "--user", "nobody"], 'no user named "nobody" (see: briefbot user list)'],
      [
        ["calendar", "add", "--user", user.name, "/no/such/file.ics"],
        '"/no/such/file.ics" is neither an http(s) address nor an existing file',
      ],
      [
        ["calendar", "add", "--user", user.name, "ftp://example.com/x.ics"],
        '"ftp://example.com/x.ics" is neither an http(s) address nor a file (only http, https and webcal are supported)',
      ],
      [
        ["event", "add", "--user", user.name, "--title", "X", "--start", "tomorrow 10am"],
        '--start "tomorrow 10am" is not a local time like "2026-12-01 10:00"',
      ],
      [
        ["event", "add", "--user", user.name, "--title", "X", "--all-day"],
        "--all-day needs --date YYYY-MM-DD",
      ],
      [
        ["event", "add", "--user", user.name, "--title", " ", "--start", "2026-03-30 10:00"],
        "an event needs a title",
      ],
      [
        ["event", "list", "--user", user.name, "--range", "soon"],
        '--range "soon" must be one of today, tomorrow, upcoming',
      ],
    ];
    for (const [argv, message] of cases) {
      const attempt = run(db, ...argv);
      await expect(attempt, argv.join(" ")).rejects.toBeInstanceOf(CliError);
      await expect(attempt, argv.join(" ")).rejects.toThrow(message);
    }
    await run(db, "calendar", "add", "--user", user.name, FILE);
    await expect(run(db, "calendar", "add", "--user", user.name, FILE)).rejects.toThrow(
      `${user.name} is already subscribed to ${FILE}`,
    );
    expect((await run(db, "calendar", "list", "--user", user.name)).lines).toHaveLength(1);
    expect(
      (await run(db, "event", "list", "--user", user.name, "--range", "upcoming")).lines.some((line) =>
        line.includes(" X"),
      ),
    ).toBe(false);
  });
});
