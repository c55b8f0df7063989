/**
 * The running bot in Telegram's default mode, long polling, with production timers: one `getUpdates` at a
 * time for as long as it runs, `/healthz` 200 throughout, no error line — and a real conflict (another
 * process polling the same token) shown once, backed off, and healed by itself.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, startApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** pino at info into memory, so a test counts what an operator would read. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines, errors: () => lines.filter((l) => l.level >= 50) };
}

async function healthStatus(port: number): Promise<{ status: number; telegram: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`);
  const body = (await response.json()) as { platforms: { telegram?: { state: string } } };
  return { status: response.status, telegram: body.platforms.telegram?.state ?? "absent" };
}

/** `/healthz` every `everyMs` for `forMs`. */
async function sampleHealth(port: number, forMs: number, everyMs = 500) {
  const samples: Array<{ status: number; telegram: string }> = [];
  const end = Date.now() + forMs;
  while (Date.now() < end) {
    samples.push(await healthStatus(port));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return samples;
}

describe("Telegram long polling as the bot runs", { timeout: 120_000 }, () => {
  let ollama: OllamaTestServer;
  let database: TestDatabase;
  beforeAll(async () => {
    ollama = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
    database = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await ollama?.close();
    await database?.dispose();
  });

  async function start(telegram: TelegramTestServer, logger: pino.Logger): Promise<RunningApp> {
    const env = {
      OLLAMA_HOST: ollama.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
    };
    return startApp({
      db: database.open.db,
      database: database.open,
      config: { ...loadConfig(env, () => ""), port: 0 },
      clock: systemClock,
      fetch: globalThis.fetch,
      logger,
    });
  }

  it("keeps one poller and a 200 /healthz for 20 s, well past any watchdog period, and answers throughout", async () => {
    const telegram = await startTelegramServer();
    const { logger, errors } = capturingLogger();
    const app = await start(telegram, logger);
    try {
      const samples = await sampleHealth(app.port, 20_000);
      expect(samples.length).toBeGreaterThan(20);
      expect(samples.filter((sample) => sample.status !== 200)).toEqual([]);
      expect(telegram.pollStats().overlaps).toBe(0);
      // A stranger's message arriving late in the run is still answered (with the refusal), by that one poller.
      telegram.sendUserMessage({ id: 4242, first_name: "Stranger" }, "hello");
      const [refusal] = await telegram.waitFor(
        () => telegram.chat(4242).botMessages().length > 0 && telegram.chat(4242).botMessages(),
        10_000,
      );
      expect(refusal?.text).toContain("4242");
      expect(telegram.pollStats().overlaps).toBe(0);
      expect(errors()).toEqual([]);
    } finally {
      await app.stop();
      await telegram.close();
    }
  });

  it("shows another process polling the token as one conflict, backs off, and returns to polling by itself", async () => {
    const telegram = await startTelegramServer();
    const { logger, lines } = capturingLogger();
    const app = await start(telegram, logger);
    try {
      await telegram.waitFor(() => telegram.pollStats().held);
      // Another process starts polling: its getUpdates ends ours with 409; each later poll of ours ends its.
      const intruder = telegram.intrude({ polls: 3 });
      const states = await sampleHealth(app.port, 6_000, 250);
      expect(states.some((sample) => sample.status === 503 && sample.telegram === "conflict")).toBe(true);
      await intruder;
      const conflictLines = lines.filter((line) => line.msg === "telegram is conflict");
      expect(conflictLines.length).toBe(1);
      // Our own restarts never overlap our own polls: any overlap involves the intruder.
      expect(telegram.pollStats().overlapsWithin("bot")).toBe(0);
      // Once the intruder stops, the next restart polls undisturbed: the first answered poll clears it.
      await telegram.waitFor(() => telegram.pollStats().held, 70_000);
      telegram.sendUserMessage({ id: 4343, first_name: "Stranger" }, "hello");
      await telegram.waitFor(() => telegram.chat(4343).botMessages().length > 0, 10_000);
      const healed = await waitForHealth(app.port, (sample) => sample.status === 200, 10_000);
      expect(healed.telegram).toBe("polling");
      expect(lines.filter((line) => line.msg === "telegram is conflict").length).toBe(1);
    } finally {
      await app.stop();
      await telegram.close();
    }
  });

  it("shows a 5xx as unreachable at the first failed attempt, while auto-retry still waits it out, then heals", async () => {
    const telegram = await startTelegramServer();
    const { logger, lines } = capturingLogger();
    const app = await start(telegram, logger);
    try {
      await telegram.waitFor(() => telegram.pollStats().held);
      // Two attempts fail, the third succeeds: the call itself never fails, so only a hook that sees each
      // attempt can report the outage.
      telegram.failNext({ method: "sendmessage", status: 502, times: 2 });
      telegram.sendUserMessage({ id: 4545, first_name: "Stranger" }, "hello");
      await telegram.waitFor(() => telegram.chat(4545).botMessages().length > 0, 30_000);
      const changes = lines.map((line) => line.msg).filter((msg) => msg.startsWith("telegram is "));
      expect(changes).toContain("telegram is unreachable");
      expect(changes.filter((msg) => msg === "telegram is unreachable")).toHaveLength(1);
      const healed = await waitForHealth(app.port, (sample) => sample.status === 200, 40_000);
      expect(healed.telegram).toBe("polling");
    } finally {
      await app.stop();
      await telegram.close();
    }
  });

  it("is 200 again as soon as Telegram answers after an outage, not when its first long poll after it ends", async () => {
    const telegram = await startTelegramServer();
    const { logger } = capturingLogger();
    const app = await start(telegram, logger);
    try {
      await telegram.waitFor(() => telegram.pollStats().held);
      telegram.outage(true);
      await waitForHealth(app.port, (sample) => sample.status === 503, 30_000);
      telegram.outage(false);
      // A long poll Telegram accepts answers only when it ends, 30 s on with no updates: health that waited
      // for it would still say 503 here. The bound leaves room for auto-retry's pause (12 s at most).
      const healed = await waitForHealth(app.port, (sample) => sample.status === 200, 25_000);
      expect(healed.telegram).toBe("polling");
      expect(telegram.pollStats().overlaps).toBe(0);
    } finally {
      await app.stop();
      await telegram.close();
    }
  });
});

async function waitForHealth(
  port: number,
  accept: (sample: { status: number; telegram: string }) => boolean,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sample = await healthStatus(port);
    if (accept(sample)) return sample;
    if (Date.now() > deadline) throw new Error(`health never became as expected: ${JSON.stringify(sample)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
