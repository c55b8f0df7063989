import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, realBriefbot } from "../helpers/real-briefbot.ts";

const dataDir = mkdtempSync(join(tmpdir(), "briefbot-start-"));
const briefbot = realBriefbot(dataDir);
afterAll(() => {
  // A failed assertion must not leave a bot running.
  briefbot.killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

// Each test spawns real processes (a new PGlite folder on the first start): slow on a loaded two-core machine.
describe("briefbot start", { timeout: 240_000 }, () => {
  it("starts on embedded PGlite with no configuration, says what runs, and stops cleanly on SIGINT", async () => {
    const bot = briefbot.run(["start"], { PORT: String(await freePort()), OLLAMA_HOST: "127.0.0.1:9" });
    await bot.waitForStdout((stdout) => stdout.includes("  syncs      "), "the start-up summary");
    expect(bot.stdout()).toContain(`embedded PGlite in ${dataDir}`);
    expect(bot.stdout()).toContain("telegram   off (set TELEGRAM_BOT_TOKEN to enable)");
    // Nothing listens on the port we point OLLAMA_HOST at: the operator is told at start, not at 07:00.
    expect(bot.stdout()).toMatch(
      /models {5}interactive qwen2\.5:7b on default \(http:\/\/127\.0\.0\.1:9\) — UNREACHABLE/,
    );
    expect(bot.stdout()).toContain("slack      off (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to enable)");
    bot.child.kill("SIGINT");
    expect(await bot.exitCode()).toBe(0);
    expect(bot.stdout()).toContain("stopped cleanly");
  });

  it("refuses a broken configuration with one line per problem and exit code 2", async () => {
    const run = briefbot.run(["start"], {
      PORT: "eighty",
      TELEGRAM_WEBHOOK_URL: "https://x.example/telegram/webhook",
    });
    expect(await run.exitCode()).toBe(2);
    expect(run.stderr().trim().split("\n")).toEqual([
      "briefbot: PORT: must be a port number",
      "briefbot: TELEGRAM_BOT_TOKEN: required when TELEGRAM_WEBHOOK_URL is set",
      "briefbot: TELEGRAM_WEBHOOK_SECRET: required in webhook mode, so forged updates are refused",
    ]);
  });

  it("migrates on request and the data survives a restart", async () => {
    const migrate = await briefbot.command("migrate");
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain(`database is up to date (PGlite in ${dataDir})`);
    expect((await briefbot.command("user", "add", "kim", "--tz", "Asia/Seoul")).code).toBe(0);
    const list = await briefbot.command("user", "list");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("kim  Asia/Seoul");
  });
});
