/**
 * The composed bot end to end: `startApp` with a user whose morning slot is due, the Ollama test server as
 * the model and the Telegram test server as the platform. The first scheduler tick claims the slot, the
 * runner writes the briefing from tool receipts, and the outbox posts it to Telegram — once.
 */
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRunsWithDeliveries } from "../db/queries/schedule.ts";
import { createTask } from "../db/queries/tasks.ts";
import { linkIdentity } from "../db/queries/users.ts";
import { startApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { fixedClock, systemClock } from "../src/core/clock.ts";
import { silentLogger } from "../src/logger.ts";
import { StartError } from "../src/runtime/start-error.ts";
import { appSuite } from "./helpers/app-suite.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "./helpers/database.ts";

const suite = appSuite();

it("delivers a due morning briefing to Telegram once, built from receipts, and stops cleanly", async () => {
  const db = suite.database.open.db;
  // 07:00:30 in London on 1 December.
  const clock = fixedClock("2026-12-01T07:00:30Z");
  const user = await createTestUser(db, { timeZone: "Europe/London" });
  await linkIdentity(db, user.id, { platform: "telegram", externalUserId: "4242", chatId: "4242" });
  suite.telegram.addChat({ id: 4242, first_name: "Ann" });
  await createTask(db, { userId: user.id, title: "Renew passport", dueDate: "2026-12-01", priority: "high" });
  suite.ollama.script("qwen2.5:7b", [
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
        OLLAMA_HOST: suite.ollama.url,
        TELEGRAM_BOT_TOKEN: suite.telegram.token,
        TELEGRAM_API_ROOT: suite.telegram.url,
        PORT: "1",
      },
      () => "",
    ),
    port: 0,
  };
  const app = await startApp({
    db,
    database: suite.database.open,
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
    const post = await suite.telegram.waitFor(() => suite.telegram.chat(4242).botMessages()[0]);
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
    suite.telegram
      .chat(4242)
      .botMessages()
      .filter((message) => message.text.includes("Renew passport")),
  ).toHaveLength(1);
});

describe("starting fails fast, or starts degraded and says so", () => {
  // A database of its own: nobody is due, so no briefing is in flight toward an API that never answers.
  let quiet: TestDatabase;
  beforeAll(async () => {
    quiet = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await quiet?.dispose();
  });
  const baseConfig = (env: Record<string, string>) => ({
    ...loadConfig({ OLLAMA_HOST: suite.ollama.url, ...env }, () => ""),
    port: 0,
  });
  const deps = (config: ReturnType<typeof baseConfig>) => ({
    db: quiet.open.db,
    database: quiet.open,
    config,
    clock: systemClock,
    fetch: globalThis.fetch,
    logger: silentLogger,
  });

  it("refuses a Telegram token the API rejects, with one line and exit code 2, and leaves nothing listening", async () => {
    const config = baseConfig({ TELEGRAM_BOT_TOKEN: "999:wrong", TELEGRAM_API_ROOT: suite.telegram.url });
    const occupied = await new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
    const port = (occupied.address() as AddressInfo).port;
    await new Promise((resolve) => occupied.close(resolve));
    const failure = await startApp(deps({ ...config, port })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StartError);
    expect((failure as StartError).exitCode).toBe(2);
    expect((failure as StartError).message).toMatch(
      /^Telegram refused TELEGRAM_BOT_TOKEN \(401 Unauthorized\)/,
    );
    // The HTTP listener it had opened was closed on the way out: the port is free again.
    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once("error", reject);
      again.listen(port, "127.0.0.1", () => resolve());
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it("refuses a port that is already taken, naming it", async () => {
    const occupied = await new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, () => resolve(server));
    });
    const port = (occupied.address() as AddressInfo).port;
    try {
      const failure = await startApp(deps({ ...baseConfig({}), port })).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StartError);
      expect((failure as StartError).message).toBe(
        `port ${port} is already in use; stop what listens there or set PORT to a free port`,
      );
    } finally {
      await new Promise((resolve) => occupied.close(resolve));
    }
  });

  it("starts degraded when the Telegram API does not answer, and says so in the summary and /healthz", async () => {
    // Accepts connections and never answers, like a black-holed network.
    const connections = new Set<Socket>();
    const silent = createServer((socket) => {
      connections.add(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
    const silentRoot = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const config = baseConfig({ TELEGRAM_BOT_TOKEN: suite.telegram.token, TELEGRAM_API_ROOT: silentRoot });
    const app = await startApp(deps(config), { platformTimeoutMs: 500 });
    try {
      const line = app.summary.find((text) => text.startsWith("  telegram"));
      expect(line).toMatch(
        /^ {2}telegram {3}on \(long polling\) — UNREACHABLE at start \(cannot reach 127\.0\.0\.1:\d+: no answer in time\); retrying in the background, \/healthz answers 503 until it connects$/,
      );
      const health = await fetch(`http://127.0.0.1:${app.port}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        platforms: { telegram: { ok: false, state: "unreachable" } },
      });
    } finally {
      await app.stop();
      for (const socket of connections) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

it("keeps retrying an unreachable Telegram API in the background and connects once it answers", async () => {
  const quiet = await createTestDatabase("pglite");
  // In front of the Telegram test server: silent at first, then passing requests through.
  let answering = false;
  const gate = createHttpServer(async (request, response) => {
    if (!answering) return;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      const upstream = await fetch(`${suite.telegram.url}${request.url}`, {
        method: request.method ?? "GET",
        headers: { "content-type": request.headers["content-type"] ?? "application/json" },
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      response.writeHead(upstream.status, { "content-type": "application/json" });
      response.end(Buffer.from(await upstream.arrayBuffer()));
    } catch {
      response.destroy();
    }
  });
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", () => resolve()));
  const root = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
  const config = {
    ...loadConfig(
      { OLLAMA_HOST: suite.ollama.url, TELEGRAM_BOT_TOKEN: suite.telegram.token, TELEGRAM_API_ROOT: root },
      () => "",
    ),
    port: 0,
  };
  const app = await startApp(
    { db: quiet.open.db, database: quiet.open, config, clock: systemClock, fetch, logger: silentLogger },
    { platformTimeoutMs: 500 },
  );
  try {
    expect(app.summary.find((text) => text.startsWith("  telegram"))).toContain("UNREACHABLE at start");
    gate.closeAllConnections();
    answering = true;
    const deadline = Date.now() + 20_000;
    let health = await fetch(`http://127.0.0.1:${app.port}/healthz`);
    while (health.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      health = await fetch(`http://127.0.0.1:${app.port}/healthz`);
    }
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ platforms: { telegram: { ok: true, state: "polling" } } });
  } finally {
    await app.stop();
    gate.closeAllConnections();
    await new Promise((resolve) => gate.close(resolve));
    await quiet.dispose();
  }
});
