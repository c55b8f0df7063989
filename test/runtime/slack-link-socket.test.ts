/**
 * Slack health in Socket Mode follows the socket, not only the Web API: the real adapter on the Socket Mode
 * test server, its link checked while the socket side is cut off (the Web API still answering), while
 * Slack asks for a routine refresh, and when the link comes back.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.ts";
import { linkSlack } from "../../src/runtime/slack-link.ts";
import type { PlatformLink } from "../../src/runtime/telegram-link.ts";
import {
  directMessage,
  linkedSlackUser,
  nextEventId,
  type RunningSlackApp,
  SIGNING_SECRET,
  startApp,
} from "../bots/slack/harness.ts";
import { MODEL, startModelServer } from "../core/fixture.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { type SlackServer, startSlackServer } from "../servers/slack-server.ts";
import { type SlackSocketModeServer, startSlackSocketModeServer } from "../servers/slack-socket-mode.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe("Slack health in Socket Mode", () => {
  let database: TestDatabase;
  let ollama: OllamaTestServer;
  let slack: SlackServer;
  let socket: SlackSocketModeServer;
  const running: RunningSlackApp[] = [];
  const links: PlatformLink[] = [];

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    ollama = await startModelServer();
    slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
    socket = await startSlackSocketModeServer({ slack });
  });
  afterAll(async () => {
    for (const link of links) await link.stop();
    for (const app of running) await app.close();
    await socket?.close();
    await slack?.close();
    await ollama?.close();
    await database?.dispose();
  });

  async function connectedLink(socketGraceMs?: number, checkEveryMs = 60_000): Promise<PlatformLink> {
    const app = await startApp(database.open.db, slack, ollama, { appToken: socket.appToken });
    running.push(app);
    const link = linkSlack(app.slackApp, {
      clock: systemClock,
      logger: quiet,
      checkEveryMs,
      ...(socketGraceMs === undefined ? {} : { socketGraceMs }),
    });
    links.push(link);
    expect(await link.connect()).toEqual({ connected: true });
    await socket.waitForConnections(1);
    return link;
  }

  it("is unreachable once the socket has been down past the grace period, and connected when it is back", async () => {
    // auth.test every 200 ms: the Web API keeps answering while the socket is cut off.
    const link = await connectedLink(500, 200);
    expect(link.health()).toMatchObject({ ok: true, state: "connected" });

    socket.setReachable(false);
    await vi.waitFor(() => expect(link.health()).toMatchObject({ ok: false, state: "unreachable" }), {
      timeout: 10_000,
    });
    const checksBefore = slack.callsTo("auth.test").length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Those answers must not make it "connected" while no socket is open.
    expect(slack.callsTo("auth.test").length).toBeGreaterThan(checksBefore);
    expect(link.health()).toMatchObject({ ok: false, state: "unreachable" });

    socket.setReachable(true);
    await vi.waitFor(() => expect(link.health()).toMatchObject({ ok: true, state: "connected" }), {
      timeout: 30_000,
    });
    await link.stop();
    links.splice(links.indexOf(link), 1);
  }, 60_000);

  it("rides out an outage of the Web API and the socket together, then answers again", async () => {
    const link = await connectedLink(500, 200);
    // Both halves down: reconnects fail at apps.connections.open with a 502, which the Socket Mode client
    // treats as unrecoverable and rethrows where nobody catches it (an unhandled rejection fails this run).
    slack.outage(true, "5xx");
    socket.setReachable(false);
    await vi.waitFor(() => expect(link.health()).toMatchObject({ ok: false, state: "unreachable" }), {
      timeout: 10_000,
    });
    // Two reconnects refused (each is the client's first try and its retries).
    const refusedOpens = () =>
      slack.calls.filter((call) => call.method === "apps.connections.open" && call.status === 502).length;
    await vi.waitFor(() => expect(refusedOpens()).toBeGreaterThanOrEqual(6), { timeout: 60_000 });
    slack.outage(false);
    socket.setReachable(true);
    await socket.waitForConnections(1, 60_000);
    await vi.waitFor(() => expect(link.health()).toMatchObject({ ok: true, state: "connected" }), {
      timeout: 10_000,
    });

    const { slackId } = await linkedSlackUser(database.open.db);
    ollama.script(MODEL, { content: "Still here." });
    const ack = await socket.sendEvent(directMessage(slackId, "are you there?"), { eventId: nextEventId() });
    expect(ack.acked).toBe(true);
    await slack.waitForEdit(
      (post) => post.channel === slack.dmChannelOf(slackId) && post.text === "Still here.",
    );
    await link.stop();
    links.splice(links.indexOf(link), 1);
  }, 120_000);

  it("stays healthy through a routine refresh_requested reconnect", async () => {
    const link = await connectedLink();
    const samples: boolean[] = [];
    const sampler = setInterval(() => samples.push(link.health().ok), 100);
    try {
      await socket.sendDisconnect("refresh_requested");
      await socket.waitForConnections(1);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      clearInterval(sampler);
    }
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.every(Boolean)).toBe(true);
  }, 60_000);
});
