/**
 * The composed bot with Slack on (the Slack test server as the Web API): the start-up summary names the
 * team channels from BRIEFBOT_CONFIG, where answers are read by everyone, and only when there are some.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { systemClock } from "../src/core/clock.ts";
import { silentLogger } from "../src/logger.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "./servers/ollama-server.ts";
import { type SlackServer, startSlackServer } from "./servers/slack-server.ts";

let database: TestDatabase;
let ollama: OllamaTestServer;
let slack: SlackServer;
beforeAll(async () => {
  database = await createTestDatabase("pglite");
  ollama = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
  slack = await startSlackServer({ signingSecret: "s3cret" });
});
afterAll(async () => {
  await slack?.close();
  await ollama?.close();
  await database?.dispose();
});

async function slackLine(file: string): Promise<string | undefined> {
  const config = {
    ...loadConfig(
      {
        OLLAMA_HOST: ollama.url,
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: "s3cret",
        SLACK_API_URL: slack.apiUrl,
        BRIEFBOT_CONFIG: "briefbot.yml",
      },
      () => file,
    ),
    port: 0,
  };
  const app = await startApp({
    db: database.open.db,
    database: database.open,
    config,
    clock: systemClock,
    fetch: globalThis.fetch,
    logger: silentLogger,
  });
  try {
    return app.summary.find((line) => line.startsWith("  slack"));
  } finally {
    await app.stop();
  }
}

it("lists the team channels in the start-up summary, and says nothing of them when there are none", async () => {
  expect(await slackLine("slack:\n  team_channels: [C0TEAM, C0ALL]\n")).toBe(
    "  slack      on (HTTP at /slack/events); team channels (answers read by all): C0TEAM, C0ALL",
  );
  expect(await slackLine("")).toBe("  slack      on (HTTP at /slack/events)");
});
