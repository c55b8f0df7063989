import { afterAll, beforeAll, expect, it } from "vitest";
import { registerBriefCommands } from "../../src/cli/commands/brief.ts";
import { registerReceiptsCommands } from "../../src/cli/commands/receipts.ts";
import { fixedClock } from "../../src/core/clock.ts";
import {
  LONDON,
  MODEL,
  MORNING_COVERAGE,
  MORNING_STATUS_ROW,
  START,
  seedTasks,
  seedWeather,
  startModelServer,
} from "../core/fixture.ts";
import { cliHarness } from "../helpers/cli.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type OllamaTestServer, refusedUrl } from "../servers/ollama-server.ts";

let server: OllamaTestServer;
/** Nothing listens here: a refresh that tried the network would fail, and say so. */
let noWeatherService: string;
beforeAll(async () => {
  server = await startModelServer();
  noWeatherService = await refusedUrl();
});
afterAll(async () => {
  await server.close();
});

describeEachDatabase("briefbot brief / receipts", (getDb) => {
  const cli = () =>
    cliHarness(getDb, {
      env: { OLLAMA_HOST: server.url, BRIEFBOT_MODEL: MODEL, OPEN_METEO_URL: noWeatherService },
      clock: fixedClock(START),
      families: [registerBriefCommands, registerReceiptsCommands],
    });

  it("prints the prose, the status row, the grounding verdict and timings, then the receipts", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    // Fetched 20 minutes ago: fresh, so the refresh step fetches nothing.
    await seedWeather(db);
    server.script(MODEL, [
      {
        content: 'Nothing on your calendar today. "Renew passport" is due at 14:30. A meeting at 10:30 too.',
      },
      { content: 'Nothing on your calendar today. "Renew passport" is due at 14:30.' },
    ]);
    const run = cli();
    const brief = await run("brief", "--user", user.name, "--slot", "morning");
    expect(brief.code).toBe(0);
    const lines = brief.stdout.split("\n");
    expect(lines[0]).toBe('Nothing on your calendar today. "Renew passport" is due at 14:30.');
    expect(brief.stdout).toContain(MORNING_STATUS_ROW);
    expect(brief.stdout).toMatch(/grounding: \d+ claims checked, unbacked: "10:30" → corrected/);
    expect(brief.stdout).toMatch(
      new RegExp(
        `run \\d+ · agentic · qwen2\\.5:7b on default · 2 model turns · ${MORNING_COVERAGE.length} tool calls`,
      ),
    );
    expect(brief.stdout).toMatch(
      /timings: total \d+ ms, refresh \d+ ms, model \d+ ms, tools \d+ ms, storage \d+ ms/,
    );
    expect(brief.stderr).toContain("✓ list_events");
    expect(brief.stderr).not.toContain("refreshing");

    const receipts = await run("receipts", "--user", user.name);
    expect(receipts.code).toBe(0);
    expect(receipts.stdout).toMatch(
      new RegExp(`^run \\d+ · morning of 2025-06-02 · ${MORNING_COVERAGE.length} tool calls`),
    );
    expect(receipts.stdout).toContain('07:00:00  ✓ list_tasks({"filter":"due_today"})');
    expect(receipts.stdout).toContain("          • Renew passport · id ");
    const json = await run("receipts", "--user", user.name, "--json");
    expect(JSON.parse(json.stdout).receipts).toHaveLength(MORNING_COVERAGE.length);
  });

  it("prints JSON for scripts and refuses bad input with one line", async () => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    server.script(MODEL, [{ content: "Nothing on your calendar today." }]);
    const run = cli();
    const result = await run("brief", "--user", user.name, "--slot", "midday", "--json");
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout);
    expect(parsed).toMatchObject({ slot: "midday", mode: "agentic", model: { route: "briefing", turns: 1 } });
    // A check-in starts from what changed since the morning and its coverage, all made by the runner.
    expect(parsed.receipts.map((receipt: { toolName: string }) => receipt.toolName)).toEqual([
      "changes_since_morning",
      "list_tasks",
      "list_tasks",
      "list_tasks",
      "list_events",
      "get_weather",
    ]);
    expect(parsed.timings.refreshMs).toBeGreaterThanOrEqual(0);

    const badSlot = await run("brief", "--user", user.name, "--slot", "noon");
    expect(badSlot.code).toBe(2);
    expect(badSlot.stderr.trim().split("\n")).toHaveLength(1);
    expect((await run("receipts", "--user", user.name, "--run", "999999")).stderr).toMatch(
      /has no run 999999/,
    );
    // An id beyond any row's is simply not there: one line, exit 2, no SQL error.
    const huge = await run("receipts", "--user", user.name, "--run", "99999999999999999999");
    expect(huge.code).toBe(2);
    expect(huge.stderr).toBe(`briefbot: ${user.name} has no run 99999999999999999999 (no such run)\n`);
    const nobody = await createTestUser(db, LONDON);
    expect((await run("receipts", "--user", nobody.name)).stderr).toMatch(/has no briefing yet/);
  });
});
