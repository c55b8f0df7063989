/**
 * The composed bot end to end: `startApp` with a user whose morning slot is due, the Ollama test server as
 * the model and the Telegram test server as the platform. The first scheduler tick claims the slot, the
 * runner writes the briefing from tool receipts, and the outbox posts it to Telegram — once.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { listRunsWithDeliveries } from "../db/queries/schedule.ts";
import { createTask } from "../db/queries/tasks.ts";
import { linkIdentity } from "../db/queries/users.ts";
import { startApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { fixedClock } from "../src/core/clock.ts";
import { silentLogger } from "../src/logger.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "./helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "./servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "./servers/telegram-server.ts";

let database: TestDatabase;
let ollama: OllamaTestServer;
let telegram: TelegramTestServer;

beforeAll(async () => {
  database = await createTestDatabase("pglite");
  ollama = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
  telegram = await startTelegramServer();
});
afterAll(async () => {
  await telegram?.close();
  await ollama?.close();
  await database?.dispose();
});

it("delivers a due morning briefing to Telegram once, built from receipts, and stops cleanly", async () => {
  const db = database.open.db;
  // 07:00:30 in London on 1 December.
  const clock = fixedClock("2026-12-01T07:00:30Z");
  const user = await createTestUser(db, { timeZone: "Europe/London" });
  await linkIdentity(db, user.id, { platform: "telegram", externalUserId: "4242", chatId: "4242" });
  telegram.addChat({ id: 4242, first_name: "Ann" });
  await createTask(db, { userId: user.id, title: "Renew passport", dueDate: "2026-12-01", priority: "high" });
  ollama.script("qwen2.5:7b", [
    {
      toolCalls: [
        { name: "list_tasks", arguments: { filter: "due_today" } },
        { name: "list_events", arguments: { range: "today" } },
      ],
    },
    {
      toolCalls: [
        { name: "list_tasks", arguments: { filter: "overdue" } },
        { name: "get_weather", arguments: {} },
      ],
    },
    { content: "Morning! Renew passport is due today, and your calendar is clear." },
  ]);

  const config = {
    ...loadConfig(
      {
        OLLAMA_HOST: ollama.url,
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.url,
        PORT: "1",
      },
      () => "",
    ),
    port: 0,
  };
  const app = await startApp({
    db,
    database: database.open,
    config,
    clock,
    fetch: globalThis.fetch,
    logger: silentLogger,
  });
  try {
    expect(app.summary).toContain("  telegram   on (long polling)");
    expect(app.summary.find((line) => line.includes("briefing"))).toMatch(
      /qwen2\.5:7b on default .* — ready$/,
    );
    const post = await telegram.waitFor(() => telegram.chat(4242).botMessages()[0]);
    expect(post.text).toContain("Renew passport is due today");
    expect(JSON.stringify(post.replyMarkup)).toContain("Receipts");
    const health = await fetch(`http://127.0.0.1:${app.port}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
    expect(metrics).toMatch(/briefbot_/);
  } finally {
    await app.stop();
  }
  const runs = await listRunsWithDeliveries(db, { userId: user.id, localDate: "2026-12-01" });
  expect(runs.map(({ run }) => [run.slot, run.state])).toEqual([["morning", "delivered"]]);
  expect(
    telegram
      .chat(4242)
      .botMessages()
      .filter((message) => message.text.includes("Renew passport")),
  ).toHaveLength(1);
});
