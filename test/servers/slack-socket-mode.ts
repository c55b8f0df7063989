/**
 * Slack's Socket Mode for tests, on `ws` over 127.0.0.1, riding on the Slack test server (`slack-server.ts`):
 *
 * - Web API side: `apps.connections.open` (app-level token `xapp-…` in `Authorization: Bearer` only; a bot
 *   token is `not_allowed_token_type`) answers `{ok:true, url:"ws://127.0.0.1:PORT/link/?ticket=…&app_id=…"}`.
 *   A ticket opens one connection; an unknown or used ticket is refused (HTTP 401 on the upgrade).
 * - On connect: `{"type":"hello","num_connections":N,"debug_info":{…},"connection_info":{"app_id":…}}`, N the
 *   connections open at that moment, this one included. The server pings each connection every
 *   `pingIntervalMs` (the official client gives up on a link without pings after 30 s).
 * - Inbound: envelopes `{envelope_id, type, payload, accepts_response_payload, retry_attempt, retry_reason}` with
 *   the same payloads the HTTP side sends (`slack.payloads`), each to one open connection (round robin; none
 *   that was told to disconnect). The app acks with `{"envelope_id":…, "payload"?:…}`.
 * - An `events_api` envelope not acked within `ackTimeoutMs` (Slack: 3 s) is re-sent with `retry_attempt + 1`
 *   and `retry_reason:"timeout"`, up to `maxRetries` (3) times. Commands and button presses are not re-sent (as
 *   over HTTP, the user is shown a timeout): their send resolves `acked:false`.
 * - `sendDisconnect(reason)`: `{"type":"disconnect","reason":…}` to each open connection. `warning`: closed
 *   `warningMs` later (Slack: about 10 s) unless the app left first; `refresh_requested`: closed at once;
 *   `link_disabled`: Socket Mode is off for the app until `enableLink()` — closed at once, and meanwhile
 *   `apps.connections.open` answers `access_denied` and upgrades are refused.
 * - `setReachable(false)`: a network outage of the socket side — open links die without a close frame and
 *   upgrades are answered 503 until `setReachable(true)` (the Web API side fails only as scripted on `slack`).
 * - Counted: connections open at once (now and peak), acks (lost ones apart), re-sends, refused upgrades.
 *
 * One per Slack test server: a second one started on the same server takes `apps.connections.open` over.
 *
 * ```ts
 * const slack = await startSlackServer({ signingSecret: "s3cret" });
 * const socket = await startSlackSocketModeServer({ slack });
 * // SLACK_API_URL=slack.apiUrl, SLACK_APP_TOKEN=socket.appToken … then:
 * await socket.waitForConnections(1);
 * const ack = await socket.sendCommand("/brief", "", "U123");   // { acked, payload, retryAttempts }
 * await socket.sendDisconnect("refresh_requested");             // resolves once the link is closed
 * socket.stats().peak                                           // never above 1 for one bot
 * ```
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { isRecord, listen } from "./http.ts";
import type { ButtonMessage, CommandOptions, SlackServer } from "./slack-server.ts";

export type DisconnectReason = "warning" | "refresh_requested" | "link_disabled";
export type EnvelopeType = "events_api" | "slash_commands" | "interactive";

export interface SlackSocketModeOptions {
  /** The Slack test server whose Web API answers `apps.connections.open`. */
  slack: SlackServer;
  /** Default `xapp-1-A0APP-1-test`. */
  appToken?: string;
  /** Default `A0APP`, the app id the HTTP payloads carry. */
  appId?: string;
  /** How long an envelope waits for its ack before it counts as unacknowledged. Default 3000. */
  ackTimeoutMs?: number;
  /** Re-sends of an unacknowledged event. Default 3. */
  maxRetries?: number;
  /** From a `warning` to the close. Default 10 000. */
  warningMs?: number;
  /** Server pings; 0 sends none. Default 10 000. */
  pingIntervalMs?: number;
}

export interface SocketConnection {
  id: number;
  /** `performance.now()` at the upgrade and at the close. */
  openedAt: number;
  closedAt: number | undefined;
  /** The close code, once closed (1006: the link died without a close frame). */
  closeCode: number | undefined;
  /** The reasons of the `disconnect` messages it was sent, in order. */
  disconnects: DisconnectReason[];
}

export interface EnvelopeAttempt {
  retryAttempt: number;
  /** The connection it went out on; undefined when none was open for the whole ack timeout. */
  connection: number | undefined;
}

export interface EnvelopeRecord {
  envelopeId: string;
  type: EnvelopeType;
  payload: Record<string, unknown>;
  attempts: EnvelopeAttempt[];
  /** Every ack that arrived, lost ones (see `loseAcks`) included. */
  acks: Array<{ connection: number; payload: Record<string, unknown> | undefined; lost: boolean }>;
}

export interface SocketAck {
  envelopeId: string;
  acked: boolean;
  /** The ack's `payload` (a command's or action's response body); undefined when it carried none. */
  payload: Record<string, unknown> | undefined;
  /** `retry_attempt` of each send, in order. */
  retryAttempts: number[];
}

export interface SocketModeStats {
  /** Connections accepted so far. */
  opened: number;
  /** Connections open now. */
  open: number;
  /** The most connections that were open at once. */
  peak: number;
  /** Acks received (lost ones not counted). */
  acks: number;
  /** Acks the server dropped on purpose (`loseAcks`). */
  lostAcks: number;
  /** Envelopes re-sent because no ack came in time. */
  resends: number;
  /** Upgrades refused (bad or used ticket, link disabled). */
  refused: number;
}

export interface SocketEventOptions {
  eventId: string;
  /** The first send's `retry_attempt` (as Slack sends after an ack it never got); default 0. */
  retryAttempt?: number;
  /** Default "timeout" when retryAttempt > 0. */
  retryReason?: string;
  /** The first `n` acks of this envelope are lost on the way in: Slack re-sends as if none had come. */
  loseAcks?: number;
}

export interface SlackSocketModeServer {
  /** `ws://127.0.0.1:PORT`. */
  url: string;
  appToken: string;
  appId: string;
  /** Every connection accepted, oldest first. */
  connections: SocketConnection[];
  /** Every envelope sent, oldest first. */
  envelopes: EnvelopeRecord[];
  stats(): SocketModeStats;
  /** Resolves once `count` connections are open (their hello sent). */
  waitForConnections(count: number, timeoutMs?: number): Promise<SocketConnection[]>;
  /** Resolves with the stats once `match` holds. */
  waitForStats(match: (stats: SocketModeStats) => boolean, timeoutMs?: number): Promise<SocketModeStats>;
  /** An `events_api` envelope; resolves with its ack, or `acked:false` after the last re-send went unanswered. */
  sendEvent(event: Record<string, unknown>, options: SocketEventOptions): Promise<SocketAck>;
  sendCommand(
    command: string,
    text: string,
    user: string,
    options?: Pick<CommandOptions, "channelId">,
  ): Promise<SocketAck & { responseUrlId: string }>;
  pressButton(
    actionId: string,
    value: string,
    user: string,
    message: ButtonMessage,
  ): Promise<SocketAck & { responseUrlId: string }>;
  /** Sends `disconnect` to every open connection (or one); resolves once they are closed. */
  sendDisconnect(reason: DisconnectReason, options?: { connectionId?: number }): Promise<void>;
  /** Socket Mode on again after `link_disabled`. */
  enableLink(): void;
  /** Every open connection dies without a close frame, as on a network loss. */
  dropConnections(): void;
  /** Unreachable: links dropped and upgrades refused with 503 until reachable again. */
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

interface Live {
  record: SocketConnection;
  socket: WebSocket;
  /** Told to disconnect: gets no more envelopes. */
  leaving: boolean;
  pinger: NodeJS.Timeout | undefined;
  closer: NodeJS.Timeout | undefined;
}

export async function startSlackSocketModeServer(
  options: SlackSocketModeOptions,
): Promise<SlackSocketModeServer> {
  const { slack } = options;
  const appToken = options.appToken ?? "xapp-1-A0APP-1-test";
  const appId = options.appId ?? "A0APP";
  const ackTimeoutMs = options.ackTimeoutMs ?? 3_000;
  const maxRetries = options.maxRetries ?? 3;
  const warningMs = options.warningMs ?? 10_000;
  const pingIntervalMs = options.pingIntervalMs ?? 10_000;
  const connections: SocketConnection[] = [];
  const envelopes: EnvelopeRecord[] = [];
  const live = new Map<number, Live>();
  const tickets = new Set<string>();
  const lostAcksLeft = new Map<string, number>();
  const counts = { peak: 0, acks: 0, lostAcks: 0, resends: 0, refused: 0 };
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  let linkEnabled = true;
  let reachable = true;
  let roundRobin = 0;
  let base = "";

  const changed = (): void => {
    changes.emit("change");
  };

  slack.handleMethod("apps.connections.open", (bearer) => {
    // Slack takes this token from the header only.
    if (bearer === undefined) return { ok: false, error: "not_authed" };
    if (!bearer.startsWith("xapp-")) return { ok: false, error: "not_allowed_token_type" };
    if (bearer !== appToken) return { ok: false, error: "invalid_auth" };
    if (!linkEnabled) return { ok: false, error: "access_denied" };
    const ticket = randomUUID();
    tickets.add(ticket);
    return { ok: true, url: `${base}/link/?ticket=${ticket}&app_id=${appId}` };
  });

  const wss = new WebSocketServer({ noServer: true });
  const server = createServer((_request, response) => {
    response.writeHead(426, { "content-type": "text/plain" });
    response.end("Upgrade Required");
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const ticket = url.searchParams.get("ticket") ?? "";
    const path = url.pathname.replace(/\/$/, "");
    const refusal = !reachable
      ? "503 Service Unavailable"
      : path !== "/link" || !linkEnabled || !tickets.delete(ticket)
        ? "401 Unauthorized"
        : undefined;
    if (refusal) {
      counts.refused += 1;
      socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      changed();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws));
  });

  function openLive(): Live[] {
    return [...live.values()];
  }

  function accept(socket: WebSocket): void {
    const record: SocketConnection = {
      id: connections.length + 1,
      openedAt: performance.now(),
      closedAt: undefined,
      closeCode: undefined,
      disconnects: [],
    };
    connections.push(record);
    const entry: Live = { record, socket, leaving: false, pinger: undefined, closer: undefined };
    live.set(record.id, entry);
    counts.peak = Math.max(counts.peak, live.size);
    if (pingIntervalMs > 0) entry.pinger = setInterval(() => socket.ping(), pingIntervalMs);
    socket.on("message", (data, isBinary) => onMessage(record.id, data, isBinary));
    socket.on("error", () => {
      // A client that vanished mid-frame; the close that follows records it.
    });
    socket.on("close", (code) => {
      clearInterval(entry.pinger);
      clearTimeout(entry.closer);
      record.closedAt = performance.now();
      record.closeCode = code;
      live.delete(record.id);
      changed();
    });
    socket.send(
      JSON.stringify({
        type: "hello",
        num_connections: live.size,
        debug_info: {
          host: `applink-test-${record.id}`,
          build_number: 1,
          approximate_connection_time: 18_060,
        },
        connection_info: { app_id: appId },
      }),
    );
    changed();
  }

  function onMessage(connection: number, data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (!isRecord(message) || typeof message.envelope_id !== "string") return;
    const envelope = envelopes.find((candidate) => candidate.envelopeId === message.envelope_id);
    if (!envelope) return;
    const payload = isRecord(message.payload) ? message.payload : undefined;
    const toLose = lostAcksLeft.get(envelope.envelopeId) ?? 0;
    if (toLose > 0) lostAcksLeft.set(envelope.envelopeId, toLose - 1);
    envelope.acks.push({ connection, payload, lost: toLose > 0 });
    if (toLose > 0) counts.lostAcks += 1;
    else counts.acks += 1;
    changed();
  }

  /** Resolves true as soon as `check` holds, false after `timeoutMs`. */
  function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (check()) {
        resolve(true);
        return;
      }
      const onChange = (): void => {
        if (!check()) return;
        cleanup();
        resolve(true);
      };
      const timer = setTimeout(() => {
        cleanup();
        resolve(false);
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        changes.off("change", onChange);
      };
      changes.on("change", onChange);
    });
  }

  function nextConnection(): Live | undefined {
    const ready = openLive().filter((entry) => !entry.leaving);
    if (ready.length === 0) return undefined;
    roundRobin += 1;
    return ready[roundRobin % ready.length];
  }

  const ackOf = (envelope: EnvelopeRecord) => envelope.acks.find((ack) => !ack.lost);

  /** One send: waits (inside the ack timeout) for a connection, then for the ack. */
  async function attempt(envelope: EnvelopeRecord, retryAttempt: number, retryReason: string | null) {
    const started = performance.now();
    await until(() => nextConnection() !== undefined, ackTimeoutMs);
    const target = nextConnection();
    envelope.attempts.push({ retryAttempt, connection: target?.record.id });
    target?.socket.send(
      JSON.stringify({
        envelope_id: envelope.envelopeId,
        type: envelope.type,
        payload: envelope.payload,
        accepts_response_payload: envelope.type !== "events_api",
        retry_attempt: retryAttempt,
        retry_reason: retryReason ?? "",
      }),
    );
    const left = Math.max(0, ackTimeoutMs - (performance.now() - started));
    return until(() => ackOf(envelope) !== undefined, left);
  }

  async function deliver(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    first: { retryAttempt?: number; retryReason?: string; loseAcks?: number } = {},
  ): Promise<SocketAck> {
    const envelope: EnvelopeRecord = { envelopeId: randomUUID(), type, payload, attempts: [], acks: [] };
    envelopes.push(envelope);
    if (first.loseAcks) lostAcksLeft.set(envelope.envelopeId, first.loseAcks);
    let retryAttempt = first.retryAttempt ?? 0;
    let reason = retryAttempt > 0 ? (first.retryReason ?? "timeout") : null;
    let acked = await attempt(envelope, retryAttempt, reason);
    // Only the Events API is retried; a command or a press unanswered in time is an error shown to the user.
    while (!acked && type === "events_api" && retryAttempt < maxRetries) {
      retryAttempt += 1;
      reason = "timeout";
      counts.resends += 1;
      acked = await attempt(envelope, retryAttempt, reason);
    }
    lostAcksLeft.delete(envelope.envelopeId);
    return {
      envelopeId: envelope.envelopeId,
      acked,
      payload: ackOf(envelope)?.payload,
      retryAttempts: envelope.attempts.map((sent) => sent.retryAttempt),
    };
  }

  function disconnect(entry: Live, reason: DisconnectReason): void {
    entry.leaving = true;
    entry.record.disconnects.push(reason);
    entry.socket.send(
      JSON.stringify({ type: "disconnect", reason, debug_info: { host: `applink-test-${entry.record.id}` } }),
    );
    if (reason === "warning") {
      entry.closer = setTimeout(() => entry.socket.close(1000, "warning"), warningMs);
    } else {
      entry.socket.close(1000, reason);
    }
  }

  const stats = (): SocketModeStats => ({
    opened: connections.length,
    open: live.size,
    peak: counts.peak,
    acks: counts.acks,
    lostAcks: counts.lostAcks,
    resends: counts.resends,
    refused: counts.refused,
  });

  const listening = await listen(server);
  base = `ws://127.0.0.1:${listening.port}`;

  return {
    url: base,
    appToken,
    appId,
    connections,
    envelopes,
    stats,
    async waitForConnections(count, timeoutMs = 20_000) {
      const ready = await until(() => live.size >= count, timeoutMs);
      if (!ready) throw new Error(`slack socket mode server: timed out waiting for ${count} connection(s)`);
      return openLive().map((entry) => entry.record);
    },
    async waitForStats(match, timeoutMs = 20_000) {
      const held = await until(() => match(stats()), timeoutMs);
      if (!held)
        throw new Error(`slack socket mode server: timed out waiting for stats ${JSON.stringify(stats())}`);
      return stats();
    },
    sendEvent: (event, eventOptions) =>
      deliver("events_api", slack.payloads.event(event, eventOptions.eventId), eventOptions),
    async sendCommand(command, text, user, commandOptions = {}) {
      const { fields, responseUrlId } = slack.payloads.command(command, text, user, commandOptions);
      return { ...(await deliver("slash_commands", fields)), responseUrlId };
    },
    async pressButton(actionId, value, user, message) {
      const { payload, responseUrlId } = slack.payloads.button(actionId, value, user, message);
      return { ...(await deliver("interactive", payload)), responseUrlId };
    },
    async sendDisconnect(reason, disconnectOptions = {}) {
      if (reason === "link_disabled") linkEnabled = false;
      const targets = openLive().filter(
        (entry) =>
          disconnectOptions.connectionId === undefined || entry.record.id === disconnectOptions.connectionId,
      );
      for (const entry of targets) disconnect(entry, reason);
      const ids = targets.map((entry) => entry.record.id);
      await until(() => ids.every((id) => !live.has(id)), reason === "warning" ? warningMs + 5_000 : 5_000);
    },
    enableLink() {
      linkEnabled = true;
    },
    dropConnections() {
      for (const entry of openLive()) entry.socket.terminate();
    },
    setReachable(next) {
      reachable = next;
      if (!next) for (const entry of openLive()) entry.socket.terminate();
    },
    async close() {
      for (const entry of openLive()) entry.socket.terminate();
      wss.close();
      await listening.close();
    },
  };
}
