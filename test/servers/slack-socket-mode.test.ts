import { type Logger, LogLevel, SocketModeReceiver } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type SlackServer, startSlackServer } from "./slack-server.ts";
import { type SlackSocketModeServer, startSlackSocketModeServer } from "./slack-socket-mode.ts";

/** What the socket client tells about itself, kept for the failure message rather than printed. */
const quiet: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** A message the official client hands its listeners, as Bolt's receiver gets it. */
interface SlackEventArgs {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  type: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

let slack: SlackServer;
let socketMode: SlackSocketModeServer;
const clients: Array<{ disconnect(): Promise<void> }> = [];

beforeEach(async () => {
  slack = await startSlackServer({ signingSecret: "unused-in-socket-mode" });
  socketMode = await startSlackSocketModeServer({ slack });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.disconnect()));
  await socketMode.close();
  await slack.close();
});

/** Bolt's own Socket Mode client (the one `new App({ socketMode: true })` runs), pointed at the test Slack. */
function boltSocketClient(server: SlackSocketModeServer = socketMode, clientPingTimeout?: number) {
  const receiver = new SocketModeReceiver({
    appToken: server.appToken,
    logger: quiet,
    ...(clientPingTimeout ? { clientPingTimeout } : {}),
    installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl } },
  });
  clients.push(receiver.client);
  return receiver.client;
}

/**
 * How often the client has said it is connected (its hello handled). A reconnect the test leaves before this
 * counts it would be cut off by disconnect(), which @slack/socket-mode 3.1 answers with an unhandled rejection.
 */
function connectedCount(client: ReturnType<typeof boltSocketClient>): () => number {
  let count = 0;
  client.on("connected", () => {
    count += 1;
  });
  return () => count;
}

async function connectionsOpen(token: string | undefined, body?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${slack.apiUrl}apps.connections.open`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body ? { body } : {}),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** A raw WebSocket on a fresh ticket, with every text frame it received. */
async function rawSocket(): Promise<{ socket: WebSocket; frames: Array<Record<string, unknown>> }> {
  const opened = await connectionsOpen(socketMode.appToken);
  const socket = new WebSocket(String(opened.url));
  const frames: Array<Record<string, unknown>> = [];
  socket.on("message", (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  clients.push({
    disconnect: async () => {
      socket.terminate();
    },
  });
  return { socket, frames };
}

describe("the Slack Socket Mode test server", () => {
  it("hands a ws:// link only for the app-level token in the Authorization header", async () => {
    expect(await connectionsOpen(undefined, `token=${socketMode.appToken}`)).toEqual({
      ok: false,
      error: "not_authed",
    });
    expect(await connectionsOpen(slack.botToken)).toEqual({ ok: false, error: "not_allowed_token_type" });
    expect(await connectionsOpen("xapp-1-A0APP-1-other")).toEqual({ ok: false, error: "invalid_auth" });
    const opened = await connectionsOpen(socketMode.appToken);
    expect(opened.ok).toBe(true);
    expect(String(opened.url)).toMatch(
      new RegExp(`^${socketMode.url}/link/\\?ticket=[0-9a-f-]+&app_id=${socketMode.appId}$`),
    );
  });

  it("says hello with the connections open and the app id, and refuses a ticket used twice", async () => {
    const first = await rawSocket();
    const second = await rawSocket();
    await socketMode.waitForConnections(2);
    await expect.poll(() => second.frames.length).toBe(1);
    expect(first.frames[0]).toMatchObject({ type: "hello", num_connections: 1 });
    expect(second.frames[0]).toEqual({
      type: "hello",
      num_connections: 2,
      debug_info: expect.objectContaining({ host: expect.any(String) }),
      connection_info: { app_id: socketMode.appId },
    });

    const ticketUrl = String((await connectionsOpen(socketMode.appToken)).url);
    const once = new WebSocket(ticketUrl);
    await new Promise((resolve) => once.once("open", resolve));
    const again = new WebSocket(ticketUrl);
    const refusal = await new Promise<string>((resolve) => {
      again.once("unexpected-response", (_request, response) => resolve(String(response.statusCode)));
      again.once("open", () => resolve("opened"));
    });
    once.terminate();
    expect(refusal).toBe("401");
    expect(socketMode.stats()).toMatchObject({ opened: 3, peak: 3, refused: 1 });
  });

  it("is what Bolt's Socket Mode client connects to: start() resolves on the hello", async () => {
    const client = boltSocketClient();
    await client.start();
    expect(socketMode.stats()).toMatchObject({ opened: 1, open: 1, peak: 1 });
    expect(slack.callsTo("apps.connections.open").map((call) => call.token)).toEqual([socketMode.appToken]);
  });

  it("re-sends an event not acked within 3 s with retry_attempt + 1, until Bolt's client acks it", async () => {
    const client = boltSocketClient();
    const seen: Array<{ retryNum: number | undefined; retryReason: string | undefined; eventId: unknown }> =
      [];
    client.on("slack_event", async (args: SlackEventArgs) => {
      seen.push({ retryNum: args.retry_num, retryReason: args.retry_reason, eventId: args.body.event_id });
      if ((args.retry_num ?? 0) >= 1) await args.ack();
    });
    await client.start();

    const ack = await socketMode.sendEvent(
      { type: "message", channel: "DU1", user: "U1", text: "hi", ts: "1800000000.000100" },
      { eventId: "EvResent" },
    );
    expect(ack.acked).toBe(true);
    expect(ack.retryAttempts).toEqual([0, 1]);
    expect(seen).toEqual([
      { retryNum: 0, retryReason: "", eventId: "EvResent" },
      { retryNum: 1, retryReason: "timeout", eventId: "EvResent" },
    ]);
    expect(socketMode.stats()).toMatchObject({ resends: 1, acks: 1 });
    expect(socketMode.envelopes[0]?.type).toBe("events_api");
  });

  it("treats a lost ack as none: the event comes again although the client acked it", async () => {
    const client = boltSocketClient();
    const retryNums: Array<number | undefined> = [];
    client.on("slack_event", async (args: SlackEventArgs) => {
      retryNums.push(args.retry_num);
      await args.ack();
    });
    await client.start();
    const ack = await socketMode.sendEvent(
      { type: "message", text: "hi" },
      { eventId: "EvLost", loseAcks: 1 },
    );
    expect(ack.retryAttempts).toEqual([0, 1]);
    expect(retryNums).toEqual([0, 1]);
    expect(socketMode.stats()).toMatchObject({ acks: 1, lostAcks: 1, resends: 1 });
  });

  it("gives an event up after three re-sends, and never re-sends a command", async () => {
    const fast = await startSlackSocketModeServer({
      slack,
      ackTimeoutMs: 200,
      appToken: "xapp-1-A0APP-2-fast",
    });
    try {
      const client = boltSocketClient(fast);
      const received: Array<{ type: string; retry: number | undefined }> = [];
      client.on("slack_event", (args: SlackEventArgs) => {
        received.push({ type: args.type, retry: args.retry_num });
      });
      await client.start();
      const event = await fast.sendEvent({ type: "message", text: "hi" }, { eventId: "EvNever" });
      expect(event).toMatchObject({ acked: false, retryAttempts: [0, 1, 2, 3] });
      const command = await fast.sendCommand("/brief", "", "U1");
      expect(command).toMatchObject({ acked: false, retryAttempts: [0] });
      expect(received.map((entry) => entry.type)).toEqual([
        "events_api",
        "events_api",
        "events_api",
        "events_api",
        "slash_commands",
      ]);
      expect(fast.stats().resends).toBe(3);
      await client.disconnect();
    } finally {
      await fast.close();
    }
  });

  it("returns a command's ack payload, sent with the fields the HTTP form carries", async () => {
    const client = boltSocketClient();
    const bodies: Array<Record<string, unknown>> = [];
    client.on("slash_commands", async (args: SlackEventArgs) => {
      bodies.push(args.body);
      await args.ack({ response_type: "ephemeral", text: "Working on it" });
    });
    await client.start();
    const ack = await socketMode.sendCommand("/brief", "morning", "U42");
    expect(ack).toMatchObject({ acked: true, retryAttempts: [0] });
    expect(ack.payload).toEqual({ response_type: "ephemeral", text: "Working on it" });
    expect(bodies[0]).toMatchObject({
      command: "/brief",
      text: "morning",
      user_id: "U42",
      channel_id: "DU42",
      response_url: `${slack.url}/response/${ack.responseUrlId}`,
    });
  });

  it("warns before it closes: Bolt's client leaves at the warning and comes back on a new link, one at a time", async () => {
    const client = boltSocketClient();
    const connected = connectedCount(client);
    await client.start();
    await socketMode.sendDisconnect("warning");
    const [first] = socketMode.connections;
    expect(first?.disconnects).toEqual(["warning"]);
    expect(first?.closedAt).toBeDefined();
    await socketMode.waitForStats((stats) => stats.opened === 2 && stats.open === 1);
    await expect.poll(connected, { timeout: 10_000 }).toBe(2);
    expect(socketMode.stats().peak).toBe(1);
    expect(slack.callsTo("apps.connections.open")).toHaveLength(2);
  });

  it("closes a connection that stays past the warning", async () => {
    const patient = await startSlackSocketModeServer({ slack, warningMs: 300, appToken: "xapp-1-A0APP-3-w" });
    try {
      const opened = await fetch(`${slack.apiUrl}apps.connections.open`, {
        method: "POST",
        headers: { authorization: `Bearer ${patient.appToken}` },
      });
      const socket = new WebSocket(String(((await opened.json()) as Record<string, unknown>).url));
      const seen: string[] = [];
      socket.on("message", (data) =>
        seen.push(String((JSON.parse(data.toString()) as { type: string }).type)),
      );
      const closed = new Promise<number>((resolve) => socket.once("close", resolve));
      await patient.waitForConnections(1);
      await patient.sendDisconnect("warning");
      expect(await closed).toBe(1000);
      expect(seen).toEqual(["hello", "disconnect"]);
    } finally {
      await patient.close();
    }
  });

  it("refresh_requested: the link is closed at once and Bolt's client reconnects on a fresh ticket", async () => {
    const client = boltSocketClient();
    const connected = connectedCount(client);
    await client.start();
    const frames: string[] = [];
    client.on("ws_message", (data: string) => frames.push(data));
    await socketMode.sendDisconnect("refresh_requested");
    expect(JSON.parse(frames[0] ?? "{}")).toMatchObject({ type: "disconnect", reason: "refresh_requested" });
    expect(socketMode.stats().open).toBe(0);
    await socketMode.waitForStats((stats) => stats.opened === 2 && stats.open === 1);
    await expect.poll(connected, { timeout: 10_000 }).toBe(2);
    expect(socketMode.stats().peak).toBe(1);
    expect(socketMode.connections[0]?.closeCode).toBe(1000);
  });

  it("link_disabled: nothing connects while Socket Mode is off, though Bolt's client keeps asking", async () => {
    const client = boltSocketClient(socketMode, 1_000);
    const connected = connectedCount(client);
    await client.start();
    await socketMode.sendDisconnect("link_disabled");
    const refused = () =>
      slack.callsTo("apps.connections.open").filter((call) => call.response.error === "access_denied");
    await expect.poll(() => refused().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    expect(socketMode.stats()).toMatchObject({ opened: 1, open: 0 });

    socketMode.enableLink();
    await socketMode.waitForStats((stats) => stats.open === 1, 30_000);
    await expect.poll(connected, { timeout: 10_000 }).toBe(2);
    expect(socketMode.stats()).toMatchObject({ opened: 2, peak: 1 });
  });

  it("counts a dead link (no close frame) as closed, and Bolt's client reconnects", async () => {
    const client = boltSocketClient();
    const connected = connectedCount(client);
    await client.start();
    socketMode.dropConnections();
    await socketMode.waitForStats((stats) => stats.opened === 2 && stats.open === 1);
    await expect.poll(connected, { timeout: 10_000 }).toBe(2);
    expect(socketMode.connections[0]?.closeCode).toBe(1006);
    expect(socketMode.stats().peak).toBe(1);
  });
  it("while unreachable refuses Bolt's client with 503, and lets it back in once reachable", async () => {
    const client = boltSocketClient(socketMode, 1_000);
    const connected = connectedCount(client);
    await client.start();
    socketMode.setReachable(false);
    await socketMode.waitForStats((stats) => stats.refused >= 2);
    expect(socketMode.stats()).toMatchObject({ opened: 1, open: 0 });
    expect(socketMode.connections[0]?.closeCode).toBe(1006);

    socketMode.setReachable(true);
    await socketMode.waitForStats((stats) => stats.open === 1, 30_000);
    await expect.poll(connected, { timeout: 10_000 }).toBe(2);
    expect(socketMode.stats()).toMatchObject({ opened: 2, peak: 1 });
  });
});
