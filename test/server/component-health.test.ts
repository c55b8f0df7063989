/**
 * The running bot's `/healthz`, per component, over real HTTP with the real adapters: 503 when the
 * Telegram API or the database goes away, 200 again when they return, and a down model endpoint reported
 * as "degraded" (briefings still go out, as digests) rather than as an outage.
 */
import { createServer, type Server, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "../../db/client.ts";
import { type RunningApp, startApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/logger.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { startTelegramServer } from "../servers/telegram-server.ts";

/** A TCP relay to PostgreSQL that the test can cut, as a crashed server or a lost network would. */
async function startRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket();
        upstream.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      const listening = server;
      listening.listen(port, "127.0.0.1", () => resolve((listening.address() as { port: number }).port));
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      const closing = new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      for (const socket of sockets) socket.destroy();
      await closing;
    },
    restore: () => listen(port),
  };
}

async function healthOf(app: RunningApp) {
  const response = await fetch(`http://127.0.0.1:${app.port}/healthz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("per-component health of the running bot", { timeout: 120_000 }, () => {
  let ollama: OllamaTestServer;
  beforeAll(async () => {
    ollama = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
  });
  afterAll(async () => {
    await ollama?.close();
  });

  it("turns 503 when the Telegram API goes away, naming telegram", async () => {
    const database = await createTestDatabase("pglite");
    const telegram = await startTelegramServer();
    const config = {
      ...loadConfig(
        { OLLAMA_HOST: ollama.url, TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.url },
        () => "",
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
      const healthy = await until(
        () => healthOf(app),
        (health) => health.status === 200,
        "a healthy start",
      );
      expect(healthy.body).toMatchObject({
        ok: true,
        status: "ok",
        platforms: { telegram: { ok: true, state: "polling" } },
        models: { default: { ok: true, url: ollama.url } },
      });
      await telegram.close();
      const down = await until(
        () => healthOf(app),
        (health) => health.status === 503,
        "telegram to be down",
      );
      expect(down.body).toMatchObject({
        ok: false,
        status: "unavailable",
        database: { ok: true },
        platforms: { telegram: { ok: false, state: "unreachable" } },
      });
    } finally {
      await app.stop();
      await database.dispose();
    }
  });

  it("turns 503 when the database goes away and 200 when it answers again (PostgreSQL through a relay)", async () => {
    const database = await createTestDatabase("postgres");
    const url = new URL(database.url ?? "");
    const relay = await startRelay({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${relay.port}`;
    let relayed: OpenDatabase | undefined;
    let app: RunningApp | undefined;
    try {
      relayed = await openDatabase({ databaseUrl: url.toString(), dataDir: "" });
      const config = { ...loadConfig({ OLLAMA_HOST: ollama.url }, () => ""), port: 0 };
      app = await startApp({
        db: relayed.db,
        database: relayed,
        config,
        clock: systemClock,
        fetch: globalThis.fetch,
        logger: silentLogger,
      });
      const running = app;
      await until(
        () => healthOf(running),
        (health) => health.status === 200,
        "a healthy start",
      );
      await relay.cut();
      const down = await until(
        () => healthOf(running),
        (health) => health.status === 503,
        "the database to be down",
      );
      expect(down.body).toMatchObject({ ok: false, status: "unavailable", database: { ok: false } });
      await relay.restore();
      const back = await until(
        () => healthOf(running),
        (health) => health.status === 200,
        "the database to return",
      );
      expect(back.body).toMatchObject({ ok: true, database: { ok: true } });
    } finally {
      await app?.stop();
      await relay.cut();
      await relayed?.close().catch(() => {});
      await database.dispose();
    }
  });

  it("reports a model endpoint that does not answer as degraded, not as an outage", async () => {
    const database: TestDatabase = await createTestDatabase("pglite");
    const config = { ...loadConfig({ OLLAMA_HOST: "127.0.0.1:9" }, () => ""), port: 0 };
    const app = await startApp({
      db: database.open.db,
      database: database.open,
      config,
      clock: systemClock,
      fetch: globalThis.fetch,
      logger: silentLogger,
    });
    try {
      const health = await until(
        () => healthOf(app),
        (answer) => answer.status === 200,
        "a started scheduler",
      );
      expect(health.body).toMatchObject({
        ok: true,
        status: "degraded",
        platforms: {},
        models: { default: { ok: false, state: "unreachable", url: "http://127.0.0.1:9" } },
      });
    } finally {
      await app.stop();
      await database.dispose();
    }
  });
});
