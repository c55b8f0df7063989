import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { expect, it } from "vitest";
import { findUserByName } from "../../db/queries/users.ts";
import { createUserDataCommands } from "../../src/cli/commands/user-data.ts";
import type { RegisterCommands } from "../../src/cli/context.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { type ExportedJson, expectOwnRedactedExport, seedUserData } from "../helpers/seed-user-data.ts";

interface Exported extends ExportedJson {
  format: string;
  version: number;
  exportedAt: string;
  secretsIncluded: boolean;
  calendars: Array<{ source: string; lastError: string }>;
  feeds: Array<{ url: string }>;
  runs: Array<{ id: number; receipts: Array<{ content: string }>; archivedReceipts: unknown }>;
  conversations: Array<{ messages: Array<{ content: string }> }>;
  [section: string]: unknown;
}

/** `user remove` as at a terminal where the person types `typed`. */
function atTerminal(typed: string): RegisterCommands {
  return (program, context) =>
    createUserDataCommands({ input: Readable.from([`${typed}\n`]), isTTY: true })(
      program.command("user"),
      context,
    );
}

describeEachDatabase("briefbot user export / remove", (getDb) => {
  const clock = fixedClock("2025-06-02T09:30:00Z");
  const run = cliHarness(getDb, { clock });

  it("exports every section of one user's data, addresses redacted, none of another user's", async () => {
    const ann = await seedUserData(getDb());
    const bob = await seedUserData(getDb());
    const result = await run("user", "export", ann.user.name);
    expect(result.code).toBe(0);
    const document = expectOwnRedactedExport<Exported>(result.stdout, ann, bob);
    expect(document).toMatchObject({
      format: "briefbot-user-export",
      version: 1,
      exportedAt: "2025-06-02T09:30:00.000Z",
      secretsIncluded: false,
    });
    const [seededRun] = document.runs;
    expect(JSON.stringify(seededRun?.archivedReceipts)).toContain(`archived ${ann.marker}`);
    expect(document.conversations[0]?.messages.map((message) => message.content)).toEqual([
      `question ${ann.marker}`,
      `answer ${ann.marker}`,
    ]);
    expect(document.calendars[0]?.source).toBe("https://calendar.example.com/ical/mk…");
    expect(document.calendars[0]?.lastError).toBe("fetching https://calendar.example.com/ical/mk… failed");
    expect(document.feeds[0]?.url).toBe(`https://feeds.example.com/${ann.marker.slice(0, 7)}…`);
    expect(document.feeds[0]?.url).not.toContain("key=");
    // Every section holds the seeded rows.
    for (const section of [
      "identities",
      "projects",
      "tasks",
      "notes",
      "calendars",
      "events",
      "feeds",
      "feedItems",
      "runs",
      "conversations",
      "deliveries",
      "pendingActions",
      "platformMessages",
    ]) {
      expect({ section, empty: (document[section] as unknown[]).length === 0 }).toEqual({
        section,
        empty: false,
      });
    }
  });

  it("includes subscription addresses in full with --include-secrets, and writes a file with --out", async () => {
    const ann = await seedUserData(getDb());
    const folder = mkdtempSync(join(tmpdir(), "briefbot-export-"));
    const out = join(folder, "ann.json");
    try {
      const result = await run("user", "export", ann.user.name, "--include-secrets", "--out", out);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`^wrote ${ann.user.name}'s data to ${out} \\([\\d.]+ kB, secrets included\\)\\n$`),
      );
      const document = JSON.parse(readFileSync(out, "utf8")) as Exported;
      expect(document.secretsIncluded).toBe(true);
      expect(document.calendars[0]?.source).toBe(ann.calendarSource);
      expect(document.feeds[0]?.url).toBe(ann.feedUrl);
      expect(statSync(out).mode & 0o777).toBe(0o600);
      const again = await run("user", "export", ann.user.name, "--out", out);
      expect(again).toMatchObject({
        code: 2,
        stderr: `briefbot: ${out} already exists; choose another --out\n`,
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses to remove without --yes when not at a terminal, removing nothing", async () => {
    const ann = await seedUserData(getDb());
    const families = [
      ((program, context) =>
        createUserDataCommands({ input: Readable.from([]), isTTY: false })(
          program.command("user"),
          context,
        )) as RegisterCommands,
    ];
    const result = await cliHarness(getDb, { families })("user", "remove", ann.user.name);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `briefbot: not removing ${ann.user.name}: not at a terminal to confirm; add --yes to remove anyway\n`,
    });
    expect(await findUserByName(getDb(), ann.user.name)).toBeDefined();
  });

  it("removes with --yes and says what it deleted; the other user stays", async () => {
    const ann = await seedUserData(getDb());
    const bob = await seedUserData(getDb());
    const result = await run("user", "remove", ann.user.name, "--yes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`removed ${ann.user.name}\n`);
    expect(result.stdout).toMatch(/ {2}tasks +1\n/);
    expect(result.stdout).toMatch(/ {2}messages +4\n/);
    expect(await findUserByName(getDb(), ann.user.name)).toBeUndefined();
    expect(await findUserByName(getDb(), bob.user.name)).toBeDefined();
    expect(JSON.parse((await run("user", "export", bob.user.name)).stdout).tasks).toHaveLength(1);
    expect((await run("user", "remove", ann.user.name, "--yes")).stderr).toContain(
      `no user named "${ann.user.name}"`,
    );
  });

  it("at a terminal removes only when the name is typed back", async () => {
    const ann = await seedUserData(getDb());
    const wrong = await cliHarness(getDb, { families: [atTerminal("bob")] })("user", "remove", ann.user.name);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain("It cannot be undone.");
    expect(wrong.stderr).toBe(`briefbot: nothing removed: "bob" is not ${ann.user.name}\n`);
    expect(await findUserByName(getDb(), ann.user.name)).toBeDefined();
    const right = await cliHarness(getDb, { families: [atTerminal(ann.user.name)] })(
      "user",
      "remove",
      ann.user.name,
    );
    expect(right.code).toBe(0);
    expect(right.stdout).toContain(`removed ${ann.user.name}\n`);
    expect(await findUserByName(getDb(), ann.user.name)).toBeUndefined();
  });
});
