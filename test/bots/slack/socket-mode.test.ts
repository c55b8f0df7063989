/**
 * The real Slack adapter in Socket Mode: Bolt's socket client asks the test Slack (SLACK_API_URL, passed
 * through installerOptions.clientOptions) for its link, and every event, command and re-send reaches the
 * app over the WebSocket — no /slack/events at all.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { MODEL, seedTasks, seedWeather, startModelServer } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import type { OllamaTestServer } from "../../servers/ollama-server.ts";
import { type SlackServer, startSlackServer } from "../../servers/slack-server.ts";
import { type SlackSocketModeServer, startSlackSocketModeServer } from "../../servers/slack-socket-mode.ts";
import {
  directMessage,
  linkedSlackUser,
  nextEventId,
  type RunningSlackApp,
  SIGNING_SECRET,
  startApp,
} from "./harness.ts";

const PROSE =
  'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue.';

describeEachDatabase("slack app in Socket Mode", (getDb) => {
  let ollama: OllamaTestServer;
  let slack: SlackServer;
  let socket: SlackSocketModeServer;
  let running: RunningSlackApp | undefined;
  beforeAll(async () => {
    ollama = await startModelServer();
    slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
    socket = await startSlackSocketModeServer({ slack });
    running = await startApp(getDb(), slack, ollama, { appToken: socket.appToken });
    await running.slackApp.start();
  });
  afterAll(async () => {
    await running?.close();
    await socket?.close();
    await slack?.close();
    await ollama?.close();
  });
  const app = (): RunningSlackApp => {
    if (!running) throw new Error("the app is not started");
    return running;
  };

  /** Sends a DM over the socket and resolves with the bot's answer in that DM (placeholder, then edit). */
  async function dmAnswered(slackId: string, text: string, reply: string) {
    ollama.script(MODEL, { content: reply });
    const ack = await socket.sendEvent(directMessage(slackId, text), { eventId: nextEventId() });
    const answer = await slack.waitForEdit(
      (post) => post.channel === slack.dmChannelOf(slackId) && post.text === reply,
    );
    await app().slackApp.idle();
    return { ack, answer };
  }

  it("asks SLACK_API_URL, with the app-level token, for its link, and holds one connection", async () => {
    const opens = slack.callsTo("apps.connections.open");
    expect(opens.length).toBeGreaterThanOrEqual(1);
    expect(opens.every((call) => call.token === socket.appToken && call.response.ok === true)).toBe(true);
    expect(socket.stats()).toMatchObject({ opened: 1, open: 1, peak: 1 });
    // The HTTP endpoint is not how this app is reached.
    const answer = await fetch(app().url, { method: "POST", body: "{}" });
    expect(answer.status).toBe(404);
  });

  it("answers a DM that arrives over the socket", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const { ack, answer } = await dmAnswered(slackId, "hi there", "Hello! How can I help?");
    expect(ack).toMatchObject({ acked: true, retryAttempts: [0] });
    expect(answer.threadTs).toBeUndefined();
    expect(slack.posts.filter((post) => post.channel === slack.dmChannelOf(slackId))).toHaveLength(1);
  });

  it("acks /brief over the socket, then says it is working and posts the briefing in the DM", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedTasks(db, user);
    await seedWeather(db);
    ollama.script(MODEL, [{ content: PROSE }]);
    const ack = await socket.sendCommand("/brief", "morning", slackId);
    expect(ack).toMatchObject({ acked: true, retryAttempts: [0] });
    const working = await slack.waitForResponse(ack.responseUrlId);
    expect(String(working.body.text)).toMatch(/Working on your briefing/);
    const parent = await slack.waitForPost(
      (post) => post.channel === slack.dmChannelOf(slackId) && post.text.includes("Renew passport"),
    );
    await app().slackApp.idle();
    expect(parent.threadTs).toBeUndefined();
  });

  it("comes back after refresh_requested on a new link, and still answers", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const before = socket.stats();
    await socket.sendDisconnect("refresh_requested");
    await socket.waitForStats((stats) => stats.opened === before.opened + 1 && stats.open === 1);
    const { ack, answer } = await dmAnswered(slackId, "still there?", "Still here.");
    expect(ack.acked).toBe(true);
    expect(answer.text).toBe("Still here.");
    // The old link was closed before the new one opened: never two at once.
    expect(socket.stats().peak).toBe(1);
    expect(socket.connections.at(-2)?.disconnects).toEqual(["refresh_requested"]);
  });

  it("answers an event Slack re-sends (its first ack lost) once, not twice", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const modelBefore = ollama.chatRequests(MODEL).length;
    // A second handling would take the server's default reply and make a second model request.
    ollama.script(MODEL, { content: "Once is enough." });
    const ack = await socket.sendEvent(directMessage(slackId, "say it once"), {
      eventId: nextEventId(),
      loseAcks: 1,
    });
    expect(ack).toMatchObject({ acked: true, retryAttempts: [0, 1] });
    const envelope = socket.envelopes.find((sent) => sent.envelopeId === ack.envelopeId);
    // Bolt acked both sends; the app handled one.
    expect(envelope?.acks.map((received) => received.lost)).toEqual([true, false]);
    await slack.waitForEdit((post) => post.channel === slack.dmChannelOf(slackId));
    await app().slackApp.idle();
    expect(ollama.chatRequests(MODEL).length).toBe(modelBefore + 1);
    const posts = slack.posts.filter((post) => post.channel === slack.dmChannelOf(slackId));
    expect(posts.map((post) => post.text)).toEqual(["Once is enough."]);
  });
});
