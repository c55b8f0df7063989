/**
 * Two real `briefbot start` processes on one PostgreSQL database and one Slack app in Socket Mode: one holds
 * the lease and connects, the other stands by (its summary and `/healthz` say so); `kill -9` of the holder
 * hands the connection to the standby, and the Socket Mode server never sees two connections of the app at
 * once. Every DM sent while a process is connected is answered exactly once. (Each event is stored before its
 * ack and marked handled after its answer; one killed between the two is answered again by the next holder —
 * the one window bots/durable-intake.ts leaves — so the kill here waits for the marks.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, inArray, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inboundUpdates } from "../../db/schema/index.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { freePort, healthBecomes, type RunningBot, realBriefbot } from "../helpers/real-briefbot.ts";
import { type SlackServer, startSlackServer } from "../servers/slack-server.ts";
import { type SlackSocketModeServer, startSlackSocketModeServer } from "../servers/slack-socket-mode.ts";

const root = mkdtempSync(join(tmpdir(), "briefbot-socket-standby-"));
let database: TestDatabase;
let slack: SlackServer;
let socket: SlackSocketModeServer;
let briefbot: ReturnType<typeof realBriefbot>;
let processes = 0;

beforeAll(async () => {
  database = await createTestDatabase("postgres");
  slack = await startSlackServer({ signingSecret: "unused-in-socket-mode" });
  socket = await startSlackSocketModeServer({ slack });
  if (!database.url) throw new Error("test bug: PostgreSQL database without a URL");
  briefbot = realBriefbot(root, { OLLAMA_HOST: "127.0.0.1:9", DATABASE_URL: database.url });
});
afterAll(async () => {
  briefbot?.killAll();
  await socket?.close();
  await slack?.close();
  await database?.dispose();
  rmSync(root, { recursive: true, force: true });
});

async function startBot(): Promise<RunningBot> {
  const port = await freePort();
  processes += 1;
  const dataDir = mkdtempSync(join(root, `bot-${processes}-`));
  const run = briefbot.run(["start"], {
    PORT: String(port),
    BRIEFBOT_DATA_DIR: dataDir,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: socket.appToken,
    SLACK_API_URL: slack.apiUrl,
  });
  await run.waitForStdout((stdout) => stdout.includes("  syncs      "), "the start-up summary");
  return { run, port };
}

const slackLine = (bot: RunningBot) => bot.run.stdout().match(/^ {2}slack {6}.*$/m)?.[0] ?? "";

/** A DM from a stranger (each its own user): the bot's one answer is the refusal, shown to them alone. */
let nextUser = 7000;
async function dmFromStranger(): Promise<string> {
  nextUser += 1;
  const user = `U${String(nextUser).padStart(8, "0")}`;
  const ack = await socket.sendEvent(
    {
      type: "message",
      channel: slack.dmChannelOf(user),
      channel_type: "im",
      user,
      text: "hello?",
      ts: `${1_800_000_000 + nextUser}.000100`,
    },
    { eventId: `EvStandby${nextUser}` },
  );
  expect(ack.acked, `the DM from ${user} was acked`).toBe(true);
  await slack.waitForEphemeral((message) => message.user === user, 60_000);
  return user;
}

/** Until each event is marked handled in the database (its answer was posted before). */
async function everyEventHandled(eventIds: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const handled = await database.open.db
      .select({ id: inboundUpdates.updateId })
      .from(inboundUpdates)
      .where(and(inArray(inboundUpdates.updateId, eventIds), isNotNull(inboundUpdates.handledAt)));
    if (handled.length === eventIds.length) return;
    if (Date.now() > deadline) throw new Error(`events not marked handled: ${eventIds.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("two processes on one Slack app in Socket Mode on one PostgreSQL", { timeout: 300_000 }, () => {
  let first: RunningBot;
  let second: RunningBot;
  const strangers: string[] = [];

  it("lets one connect and the other stand by, saying so in its summary and a 200 /healthz", async () => {
    first = await startBot();
    second = await startBot();
    expect(slackLine(first)).toBe("  slack      on (Socket Mode)");
    expect(slackLine(second)).toMatch(
      /^ {2}slack {6}on \(Socket Mode\) — STANDBY: another process \(bot-[^)]+\) holds this token's connection; this one takes over when that one's lease lapses$/,
    );
    await healthBecomes(first, "slack", "connected", 60_000);
    await healthBecomes(second, "slack", "standby", 60_000);
    expect(socket.stats()).toMatchObject({ opened: 1, open: 1, peak: 1 });
    strangers.push(await dmFromStranger(), await dmFromStranger());
  });

  it("hands the connection to the standby after `kill -9`, never two at once", async () => {
    await everyEventHandled(strangers.map((user) => `EvStandby${user.slice(1).replace(/^0+/, "")}`));
    first.run.child.kill("SIGKILL");
    await first.run.exited;
    // The bound is generous for a loaded machine; the hand-over time itself is printed, not asserted.
    const tookOverMs = await healthBecomes(second, "slack", "connected", 120_000);
    console.info(`standby took over Socket Mode ${(tookOverMs / 1000).toFixed(1)} s after kill -9`);
    await socket.waitForConnections(1);
    strangers.push(await dmFromStranger(), await dmFromStranger());
    expect(socket.stats()).toMatchObject({ opened: 2, open: 1, peak: 1 });
    expect(socket.connections[0]?.closedAt).toBeDefined();
  });

  it("stops cleanly, closing its connection", async () => {
    second.run.child.kill("SIGINT");
    expect(await second.run.exitCode()).toBe(0);
    await socket.waitForStats((stats) => stats.open === 0);
    expect(socket.stats().peak).toBe(1);
  });

  it("answered every DM exactly once", () => {
    expect(strangers).toHaveLength(4);
    for (const user of strangers) {
      const replies = slack.ephemerals.filter((message) => message.user === user);
      expect(replies, user).toHaveLength(1);
      expect(replies[0]?.channel).toBe(slack.dmChannelOf(user));
      expect(replies[0]?.text).toContain(user);
    }
  });
});
