/**
 * A local Slack for tests: both directions over real HTTP on 127.0.0.1, following
 * `shared/notes/telegram-slack.md` §3, §4 and §7.
 *
 * - Web API side (Bolt's WebClient → here): `POST /api/<method>` with form bodies (JSON-string `blocks`) or JSON
 *   bodies; the token from `Authorization: Bearer` or a `token` field; always HTTP 200 `{ok, …}` except scripted
 *   rate limits (429 + `Retry-After`, body `{"ok":false,"error":"ratelimited"}`). Every call is recorded.
 *   `POST /response/<id>` plays a `response_url`.
 * - File uploads as `files.uploadV2` makes them: `files.getUploadURLExternal` hands out an upload URL on this
 *   server, the bytes are POSTed there (raw or multipart), `files.completeUploadExternal` shares the file into
 *   a channel; each file is recorded with its bytes in `files`.
 * - A `ratelimited` answer closes its scope (the method, or the method in one channel) until `Retry-After`
 *   has elapsed; a call into a closed scope is answered 429 again and flagged `beforeRetryAfter`.
 * - Network failures on demand: the connection reset before the request body is read (before `100 Continue`
 *   when the client asked for it), or the answer lost after the call was carried out.
 * - {@link SlackServer.outage}: Slack down until switched back (every call 502, or every connection reset).
 * - Inbound side (here → the app): `sendEvent`, `sendCommand`, `pressButton` send properly signed requests
 *   (`v0=` HMAC-SHA256 over `v0:<ts>:<raw body>`) with Slack's exact content types, and report the HTTP status,
 *   body and how long the app took to answer.
 * - Socket Mode rides on this server: `slack-socket-mode.ts` answers `apps.connections.open` through
 *   `handleMethod` and sends the same `payloads` over its WebSocket.
 *
 * ```ts
 * const slack = await startSlackServer({ signingSecret: "s3cret", botToken: "xoxb-test" });
 * // createSlackApp({ config: { apiUrl: slack.apiUrl, … } }) … then:
 * slack.setAppUrl(`http://127.0.0.1:${port}/slack/events`);
 * const ack = await slack.sendCommand("/brief", "", "U123");
 * const parent = await slack.waitForPost((post) => post.channel === "DU123" && !post.threadTs);
 * ```
 */
import { createHmac } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import {
  type CallTiming,
  createPlatformServer,
  isRecord,
  isUploadedFile,
  listen,
  type NetworkFailure,
  type OutageKind,
  type OutageSwitch,
  outageSwitch,
  parseMultipart,
  readBytes,
  sendJson,
} from "./http.ts";
import { deliverWithRetries, type EventDelivery } from "./slack-event-retries.ts";

export interface SlackServerOptions {
  signingSecret: string;
  botToken?: string;
  /** The bot user (U…) and bot id (B…) auth.test reports; Bolt uses them to ignore its own messages. */
  botUserId?: string;
  botId?: string;
  teamId?: string;
}

export interface ApiCall extends CallTiming {
  method: string;
  token: string | undefined;
  /** Arguments with JSON-string fields (`blocks`, `attachments`, `metadata`) parsed. */
  args: Record<string, unknown>;
  status: number;
  response: Record<string, unknown>;
}

/** A message the bot posted (chat.postMessage), with later chat.update edits applied in place. */
export interface PostedMessage {
  channel: string;
  ts: string;
  threadTs: string | undefined;
  text: string;
  blocks: SlackBlock[];
  /** How many times chat.update changed it. */
  edits: number;
  /** Every version, oldest first (the first is what chat.postMessage posted). */
  history: Array<{ text: string; blocks: SlackBlock[] }>;
}

/** A chat.postEphemeral: shown to `user` alone, in `channel` (and `threadTs`), never to the channel. */
export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks: SlackBlock[];
  threadTs: string | undefined;
  /** The `message_ts` Slack answered with; a press of its buttons carries it. */
  messageTs: string;
}

/** A file uploaded through files.getUploadURLExternal → upload URL → files.completeUploadExternal. */
export interface UploadedSlackFile {
  id: string;
  filename: string;
  /** The length announced to files.getUploadURLExternal. */
  length: number;
  /** The bytes POSTed to the upload URL; undefined until they arrive. */
  bytes: Buffer | undefined;
  /** Set by files.completeUploadExternal. */
  completed: boolean;
  title: string | undefined;
  channel: string | undefined;
  initialComment: string | undefined;
  threadTs: string | undefined;
}

export interface ResponseUrlPost {
  id: string;
  body: Record<string, unknown>;
}

/** A Block Kit block, loosely typed: the server checks shapes the app could get wrong. */
export interface SlackBlock {
  type: string;
  [key: string]: unknown;
}

export interface InboundResult {
  status: number;
  body: string;
  /** Milliseconds from sending the request to receiving the app's answer (diagnostics only). */
  ackMs: number;
  /** The app asked Slack not to retry (`X-Slack-No-Retry: 1`). */
  noRetry: boolean;
}

export interface InboundOptions {
  /** Sign with the wrong secret. */
  badSignature?: boolean;
  /** Seconds to subtract from the signed timestamp (360 = a 6-minute-old request). */
  timestampAgeSec?: number;
}

export interface EventOptions extends InboundOptions {
  eventId: string;
  retryNum?: number;
  retryReason?: string;
}

export interface CommandOptions extends InboundOptions {
  /** Where the command was typed; default the user's DM `D<user>`. */
  channelId?: string;
}

export interface ButtonMessage {
  channel: string;
  ts: string;
  threadTs?: string | undefined;
  text?: string;
  blocks?: SlackBlock[];
  /** An ephemeral message's button: Slack sends `container.is_ephemeral` and no `message`. */
  ephemeral?: boolean;
}

/**
 * How Slack builds what it sends the app, shared by both transports: over HTTP the event envelope is the JSON
 * body, a command's fields the form, a button's payload the form's `payload`; over Socket Mode each is an
 * envelope's `payload` (see `slack-socket-mode.ts`).
 */
export interface SlackPayloads {
  /** The `event_callback` envelope around one event. */
  event(event: Record<string, unknown>, eventId: string): Record<string, unknown>;
  /** A slash command's fields, with a fresh response_url. */
  command(
    command: string,
    text: string,
    user: string,
    options?: Pick<CommandOptions, "channelId">,
  ): { fields: Record<string, string>; responseUrlId: string };
  /** A `block_actions` payload for one button press, with a fresh response_url. */
  button(
    actionId: string,
    value: string,
    user: string,
    message: ButtonMessage,
  ): { payload: Record<string, unknown>; responseUrlId: string };
}

/**
 * A Web API method another test server answers (Socket Mode's `apps.connections.open` with its app-level
 * token). `bearer` is the `Authorization: Bearer` token only; a `token` field stays in `args`.
 */
export type MethodHandler = (
  bearer: string | undefined,
  args: Record<string, unknown>,
) => Record<string, unknown>;

export interface SlackServer {
  url: string;
  /** What `SLACK_API_URL` / `clientOptions.slackApiUrl` should be. */
  apiUrl: string;
  botToken: string;
  botUserId: string;
  botId: string;
  teamId: string;
  calls: ApiCall[];
  posts: PostedMessage[];
  ephemerals: EphemeralMessage[];
  responses: ResponseUrlPost[];
  /** Files uploaded (files.uploadV2's three steps), in order. */
  files: UploadedSlackFile[];
  /** Resolves with the first file, completed and shared, that matches. */
  waitForFile(match: (file: UploadedSlackFile) => boolean, timeoutMs?: number): Promise<UploadedSlackFile>;
  /** Where inbound requests go: the app's `/slack/events`. */
  setAppUrl(url: string): void;
  /** The parent (ts) and its replies, oldest first. */
  thread(channel: string, ts: string): PostedMessage[];
  /** A message deleted in the client by a person: gone for the bot too (chat.update answers message_not_found). */
  removePost(channel: string, ts: string): void;
  callsTo(method: string): ApiCall[];
  /** The DM channel `conversations.open` hands out for a user. */
  dmChannelOf(user: string): string;
  addUser(user: { id: string; name: string; isBot?: boolean }): void;
  /**
   * The next `times` calls of `method` (to `channel`, when given: Slack's per-channel limit) get 429 with
   * `Retry-After: retryAfterSec`, closing that scope until it elapses.
   */
  rateLimit(method: string, options?: { times?: number; retryAfterSec?: number; channel?: string }): void;
  /** The next `times` calls of `method` fail on the network (see {@link NetworkFailure}). */
  failNetwork(method: string, failure: NetworkFailure, times?: number): void;
  /** Calls that arrived while a 429 given for their scope had not elapsed (should be none). */
  callsBeforeRetryAfter(): ApiCall[];
  /** Calls of `method` aimed at `channel` answer `{ok:false, error}` (e.g. channel_not_found) until cleared. */
  failChannel(channel: string, error: string | undefined): void;
  /** The next call of `method` answers `{ok:false, error}`. */
  failNext(method: string, error: string): void;
  /** Resolves with the first posted message (now or later) that matches. */
  waitForPost(match: (post: PostedMessage) => boolean, timeoutMs?: number): Promise<PostedMessage>;
  waitForEphemeral(
    match: (message: EphemeralMessage) => boolean,
    timeoutMs?: number,
  ): Promise<EphemeralMessage>;
  waitForResponse(id: string, timeoutMs?: number): Promise<ResponseUrlPost>;
  /** Resolves once `match` holds for some edit of a posted message. */
  waitForEdit(match: (post: PostedMessage) => boolean, timeoutMs?: number): Promise<PostedMessage>;
  /** One request, as a test scripts it (retry headers only when `retryNum` is given). */
  sendEvent(event: Record<string, unknown>, options: EventOptions): Promise<InboundResult>;
  /**
   * The event as Slack delivers it: re-sent while it is not acknowledged within 3 s (see
   * slack-event-retries.ts), on `retryDelaysMs` (Slack's own: 0, 1 min, 5 min).
   */
  deliverEvent(
    event: Record<string, unknown>,
    options: InboundOptions & { eventId: string; retryDelaysMs?: readonly number[] },
  ): Promise<EventDelivery>;
  sendCommand(
    command: string,
    text: string,
    user: string,
    options?: CommandOptions,
  ): Promise<InboundResult & { responseUrlId: string }>;
  pressButton(
    actionId: string,
    value: string,
    user: string,
    message: ButtonMessage,
    options?: InboundOptions,
  ): Promise<InboundResult & { responseUrlId: string }>;
  /**
   * Everything members of `channel` can read: every version of every post there (text and blocks, as
   * JSON), and any response_url answer made `in_channel`. Ephemeral messages are not in it.
   */
  channelView(channel: string): string[];
  /** `user` is no longer in `channel`: chat.postEphemeral to them there answers `user_not_in_channel`. */
  leaveChannel(channel: string, user: string): void;
  /** Signs and posts any raw body with any content type (for malformed-input tests). */
  sendRaw(
    body: string,
    contentType: string,
    options?: InboundOptions & { headers?: Record<string, string> },
  ): Promise<InboundResult>;
  /** The `message` event Slack would echo for one of the bot's own posts. */
  echoOf(post: PostedMessage): Record<string, unknown>;
  payloads: SlackPayloads;
  /** `method` is answered by `handler` (after scripted rate limits, before the bot token is checked). */
  handleMethod(method: string, handler: MethodHandler): void;
  /**
   * Slack goes down until switched off: `5xx` (default) answers every request `502 Bad Gateway` (an HTML
   * page, as a proxy gives); `refuse` resets every connection. Calls answered 502 are in `calls`.
   */
  outage(on: boolean, kind?: OutageKind): void;
  close(): Promise<void>;
}

const MAX_BLOCKS = 50;
const MAX_SECTION_TEXT = 3000;
const MAX_MESSAGE_TEXT = 40_000;
const MAX_BUTTON_VALUE = 2000;
const JSON_FIELDS = new Set(["blocks", "attachments", "metadata"]);

export async function startSlackServer(options: SlackServerOptions): Promise<SlackServer> {
  const { signingSecret } = options;
  const botToken = options.botToken ?? "xoxb-test-token";
  const botUserId = options.botUserId ?? "U0BOT";
  const botId = options.botId ?? "B0BOT";
  const teamId = options.teamId ?? "T0TEAM";
  const calls: ApiCall[] = [];
  const posts: PostedMessage[] = [];
  const ephemerals: EphemeralMessage[] = [];
  const responses: ResponseUrlPost[] = [];
  const files: UploadedSlackFile[] = [];
  const users = new Map<string, { id: string; name: string; isBot: boolean }>();
  const rateLimits: Array<{ method: string; channel?: string; times: number; retryAfterSec: number }> = [];
  /** Scope → `performance.now()` until which a 429 closed it. */
  const limitedUntil = new Map<string, number>();
  const networkFailures: Array<{ method: string; failure: NetworkFailure; times: number }> = [];
  const channelFailures = new Map<string, string>();
  const nextFailures = new Map<string, string>();
  /** `<channel> <user>` of people who left a channel (an ephemeral message can't reach them there). */
  const departed = new Set<string>();
  const methodHandlers = new Map<string, MethodHandler>();
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  let appUrl: string | undefined;
  let responseCounter = 0;
  let tsCounter = 0;
  const tsBase = 1_700_000_000;

  const nextTs = (): string => {
    tsCounter += 1;
    const secs = tsBase + Math.floor(tsCounter / 1_000_000);
    return `${secs}.${String(tsCounter % 1_000_000).padStart(6, "0")}`;
  };

  const server = createPlatformServer({
    resetBeforeBody,
    handle,
    onError: (_request, response, error) =>
      sendJson(response, 500, { ok: false, error: "internal_error", detail: String(error) }),
  });

  function apiMethodOf(request: IncomingMessage): string | undefined {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    return request.method === "POST" && path.startsWith("/api/") ? path.slice("/api/".length) : undefined;
  }

  function takeNetworkFailure(method: string, failure: NetworkFailure): boolean {
    const index = networkFailures.findIndex((entry) => entry.method === method && entry.failure === failure);
    const entry = networkFailures[index];
    if (!entry) return false;
    entry.times -= 1;
    if (entry.times <= 0) networkFailures.splice(index, 1);
    return true;
  }

  function resetBeforeBody(request: IncomingMessage, receivedAt: number): boolean {
    const method = apiMethodOf(request);
    if (method === undefined || !takeNetworkFailure(method, "reset-before-body")) return false;
    calls.push({
      method,
      token: undefined,
      args: {},
      status: 0,
      response: {},
      receivedAt,
      network: "reset-before-body",
    });
    request.socket.resetAndDestroy();
    changes.emit("change");
    return true;
  }

  async function handle(
    request: IncomingMessage,
    response: ServerResponse,
    receivedAt: number,
  ): Promise<void> {
    if (outage.answered(request, response)) {
      const method = apiMethodOf(request) ?? "(not an API method)";
      calls.push({ method, token: undefined, args: {}, status: 502, response: {}, receivedAt });
      changes.emit("change");
      return;
    }
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const bytes = await readBytes(request);
    const raw = bytes.toString("utf8");
    const method = apiMethodOf(request);
    if (method !== undefined) {
      const args = parseBody(raw, request.headers["content-type"]);
      const headerToken = bearer(request.headers.authorization);
      const token = headerToken ?? stringArg(args.token);
      const call: ApiCall = { method, token, args, status: 200, response: {}, receivedAt };
      const [status, body, headers] = callMethod(method, token, args, call, headerToken);
      Object.assign(call, { status, response: body });
      calls.push(call);
      if (status === 200 && takeNetworkFailure(method, "drop-response")) {
        call.network = "drop-response";
        request.socket.destroy();
      } else {
        sendJson(response, status, body, headers);
      }
      changes.emit("change");
      return;
    }
    if (request.method === "POST" && path.startsWith("/upload/")) {
      const file = files.find((candidate) => candidate.id === path.slice("/upload/".length));
      if (!file || file.completed) {
        response.writeHead(404, { "content-type": "text/plain" });
        response.end("Not Found");
        return;
      }
      // The web client sends multipart (the bytes as a file part); raw bytes are accepted as well.
      const type = request.headers["content-type"] ?? "";
      const part = type.toLowerCase().includes("multipart/form-data")
        ? Object.values(parseMultipart(bytes, type)).find(isUploadedFile)
        : undefined;
      file.bytes = part ? part.bytes : bytes;
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`OK - ${file.bytes.length}`);
      changes.emit("change");
      return;
    }
    if (request.method === "POST" && path.startsWith("/response/")) {
      const id = path.slice("/response/".length);
      const body = parseBody(raw, request.headers["content-type"]);
      const problem = validateMessage(body);
      if (problem) {
        response.writeHead(400, { "content-type": "text/plain" });
        response.end(problem);
        return;
      }
      responses.push({ id, body });
      sendJson(response, 200, { ok: true });
      changes.emit("change");
      return;
    }
    sendJson(response, 404, { ok: false, error: "unknown_path" });
  }

  type Answer = [number, Record<string, unknown>, Record<string, string>?];

  function ratelimited(call: ApiCall, scope: string, retryAfterSec: number): Answer {
    call.retryAfter = retryAfterSec;
    call.limitScope = scope;
    call.answeredAt = performance.now();
    const until = call.answeredAt + retryAfterSec * 1000;
    limitedUntil.set(scope, Math.max(limitedUntil.get(scope) ?? 0, until));
    return [429, { ok: false, error: "ratelimited" }, { "retry-after": String(retryAfterSec) }];
  }

  function callMethod(
    method: string,
    token: string | undefined,
    args: Record<string, unknown>,
    call: ApiCall,
    headerToken: string | undefined,
  ): Answer {
    const channel = stringArg(args.channel);
    const scopes = [`method:${method}`, ...(channel ? [`method:${method}|channel:${channel}`] : [])];
    for (const scope of scopes) {
      const until = limitedUntil.get(scope) ?? 0;
      if (call.receivedAt >= until) continue;
      call.beforeRetryAfter = true;
      return ratelimited(call, scope, Math.max(1, Math.ceil((until - call.receivedAt) / 1000)));
    }
    const limitIndex = rateLimits.findIndex(
      (limit) => limit.method === method && (limit.channel === undefined || limit.channel === channel),
    );
    const limited = rateLimits[limitIndex];
    if (limited) {
      limited.times -= 1;
      if (limited.times <= 0) rateLimits.splice(limitIndex, 1);
      const scope = limited.channel ? `method:${method}|channel:${limited.channel}` : `method:${method}`;
      return ratelimited(call, scope, limited.retryAfterSec);
    }
    const handler = methodHandlers.get(method);
    if (handler) return [200, handler(headerToken, args)];
    if (token === undefined) return [200, { ok: false, error: "not_authed" }];
    if (token !== botToken) return [200, { ok: false, error: "invalid_auth" }];
    const scripted = nextFailures.get(method);
    if (scripted) {
      nextFailures.delete(method);
      return [200, { ok: false, error: scripted }];
    }
    const channelError = channel ? channelFailures.get(channel) : undefined;
    if (channelError) return [200, { ok: false, error: channelError }];
    switch (method) {
      case "auth.test":
        return [
          200,
          {
            ok: true,
            url: "https://acme.slack.com/",
            team: "Acme",
            user: "briefbot",
            team_id: teamId,
            user_id: botUserId,
            bot_id: botId,
            is_enterprise_install: false,
          },
        ];
      case "chat.postMessage":
        return [200, postMessage(args)];
      case "chat.update":
        return [200, updateMessage(args)];
      case "chat.postEphemeral":
        return [200, postEphemeral(args)];
      case "conversations.open": {
        const ids = (stringArg(args.users) ?? "").split(",").filter(Boolean);
        const [first] = ids;
        if (!first) return [200, { ok: false, error: "users_list_not_supplied" }];
        return [200, { ok: true, channel: { id: dmChannelOf(first) } }];
      }
      case "users.info": {
        const user = users.get(stringArg(args.user) ?? "");
        if (!user) return [200, { ok: false, error: "user_not_found" }];
        return [
          200,
          {
            ok: true,
            user: { id: user.id, name: user.name, is_bot: user.isBot, profile: { real_name: user.name } },
          },
        ];
      }
      case "assistant.threads.setStatus":
        return [200, { ok: true }];
      case "files.getUploadURLExternal":
        return [200, uploadUrlFor(args)];
      case "files.completeUploadExternal":
        return [200, completeUploads(args)];
      default:
        return [200, { ok: false, error: "unknown_method" }];
    }
  }

  function postMessage(args: Record<string, unknown>): Record<string, unknown> {
    const channel = stringArg(args.channel);
    if (!channel) return { ok: false, error: "channel_not_found" };
    const problem = validateMessage(args);
    if (problem) return { ok: false, error: problem };
    // Replies may hang off a user's message the server never saw, so thread_ts is not checked.
    const threadTs = stringArg(args.thread_ts);
    const ts = nextTs();
    const text = stringArg(args.text) ?? "";
    const blocks = blocksArg(args.blocks);
    posts.push({ channel, ts, threadTs, text, blocks, edits: 0, history: [{ text, blocks }] });
    return {
      ok: true,
      channel,
      ts,
      message: {
        type: "message",
        text,
        ts,
        bot_id: botId,
        user: botUserId,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      },
    };
  }

  function updateMessage(args: Record<string, unknown>): Record<string, unknown> {
    const channel = stringArg(args.channel);
    const ts = stringArg(args.ts);
    const post = posts.find((candidate) => candidate.channel === channel && candidate.ts === ts);
    if (!post) return { ok: false, error: "message_not_found" };
    const problem = validateMessage(args);
    if (problem) return { ok: false, error: problem };
    post.text = stringArg(args.text) ?? post.text;
    if (args.blocks !== undefined) post.blocks = blocksArg(args.blocks);
    post.edits += 1;
    post.history.push({ text: post.text, blocks: post.blocks });
    return {
      ok: true,
      channel,
      ts,
      text: post.text,
      message: { type: "message", text: post.text, bot_id: botId },
    };
  }

  function postEphemeral(args: Record<string, unknown>): Record<string, unknown> {
    const channel = stringArg(args.channel);
    const user = stringArg(args.user);
    if (!channel) return { ok: false, error: "channel_not_found" };
    if (!user || departed.has(`${channel} ${user}`)) return { ok: false, error: "user_not_in_channel" };
    const problem = validateMessage(args);
    if (problem) return { ok: false, error: problem };
    const messageTs = nextTs();
    ephemerals.push({
      channel,
      user,
      text: stringArg(args.text) ?? "",
      blocks: blocksArg(args.blocks),
      threadTs: stringArg(args.thread_ts),
      messageTs,
    });
    return { ok: true, message_ts: messageTs };
  }

  function uploadUrlFor(args: Record<string, unknown>): Record<string, unknown> {
    const filename = stringArg(args.filename);
    const length = Number(args.length);
    if (!filename || !Number.isInteger(length) || length <= 0)
      return { ok: false, error: "invalid_arguments" };
    const id = `F${String(files.length + 1).padStart(10, "0")}`;
    files.push({
      id,
      filename,
      length,
      bytes: undefined,
      completed: false,
      title: undefined,
      channel: undefined,
      initialComment: undefined,
      threadTs: undefined,
    });
    return { ok: true, upload_url: `${base}/upload/${id}`, file_id: id };
  }

  function completeUploads(args: Record<string, unknown>): Record<string, unknown> {
    let listed: unknown = args.files;
    if (typeof listed === "string") {
      try {
        listed = JSON.parse(listed) as unknown;
      } catch {
        return { ok: false, error: "invalid_arguments" };
      }
    }
    if (!Array.isArray(listed) || listed.length === 0) return { ok: false, error: "invalid_arguments" };
    const done: Record<string, unknown>[] = [];
    for (const entry of listed) {
      const file = isRecord(entry) ? files.find((candidate) => candidate.id === entry.id) : undefined;
      if (!file || !isRecord(entry)) return { ok: false, error: "file_not_found" };
      // Slack refuses to complete an upload whose bytes never arrived.
      if (!file.bytes) return { ok: false, error: "file_upload_not_found" };
      if (file.bytes.length !== file.length) return { ok: false, error: "file_upload_size_mismatch" };
      Object.assign(file, {
        completed: true,
        title: stringArg(entry.title) ?? file.filename,
        channel: stringArg(args.channel_id),
        initialComment: stringArg(args.initial_comment),
        threadTs: stringArg(args.thread_ts),
      });
      const created = Math.floor(Date.now() / 1000);
      done.push({
        id: file.id,
        created,
        timestamp: created,
        name: file.filename,
        title: file.title,
        mimetype: file.filename.endsWith(".json") ? "application/json" : "application/octet-stream",
        filetype: file.filename.endsWith(".json") ? "json" : "binary",
        user: botUserId,
        user_team: teamId,
        size: file.length,
        mode: "hosted",
        is_external: false,
        is_public: false,
        url_private: `${base}/files-pri/${teamId}-${file.id}/${file.filename}`,
      });
    }
    return { ok: true, files: done };
  }

  function dmChannelOf(user: string): string {
    return `D${user}`;
  }

  function thread(channel: string, ts: string): PostedMessage[] {
    return posts
      .filter((post) => post.channel === channel && (post.ts === ts || post.threadTs === ts))
      .sort((a, b) => compareTs(a.ts, b.ts));
  }

  function waitFor<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = find();
        if (found === undefined) return false;
        cleanup();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`slack test server: timed out waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        changes.off("change", check);
      };
      changes.on("change", check);
      check();
    });
  }

  async function send(
    body: string,
    contentType: string,
    sendOptions: InboundOptions & { headers?: Record<string, string> },
  ): Promise<InboundResult> {
    if (!appUrl) throw new Error("slack test server: call setAppUrl() before sending inbound requests");
    const timestamp = Math.floor(Date.now() / 1000) - (sendOptions.timestampAgeSec ?? 0);
    const secret = sendOptions.badSignature ? `${signingSecret}-wrong` : signingSecret;
    const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
    const started = performance.now();
    const response = await fetch(appUrl, {
      method: "POST",
      headers: {
        "content-type": contentType,
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": signature,
        ...sendOptions.headers,
      },
      body,
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text,
      ackMs: performance.now() - started,
      noRetry: response.headers.get("x-slack-no-retry") === "1",
    };
  }

  function newResponseUrl(): { id: string; url: string } {
    responseCounter += 1;
    const id = `r${responseCounter}`;
    return { id, url: `${base}/response/${id}` };
  }

  const payloads: SlackPayloads = {
    event: (event, eventId) => ({
      token: "legacy-verification-token",
      team_id: teamId,
      api_app_id: "A0APP",
      event: { event_ts: event.ts, ...event },
      type: "event_callback",
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: teamId,
          user_id: botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
    }),
    command(command, text, user, commandOptions = {}) {
      const { id, url } = newResponseUrl();
      const channelId = commandOptions.channelId ?? dmChannelOf(user);
      const fields = {
        token: "legacy-verification-token",
        team_id: teamId,
        team_domain: "acme",
        channel_id: channelId,
        channel_name: channelId.startsWith("D") ? "directmessage" : "general",
        user_id: user,
        user_name: users.get(user)?.name ?? user.toLowerCase(),
        command,
        text,
        api_app_id: "A0APP",
        is_enterprise_install: "false",
        response_url: url,
        trigger_id: `${Date.now()}.${responseCounter}.abc`,
      };
      return { fields, responseUrlId: id };
    },
    button(actionId, value, user, message) {
      const { id, url } = newResponseUrl();
      const payload = {
        type: "block_actions",
        token: "legacy-verification-token",
        api_app_id: "A0APP",
        trigger_id: `${Date.now()}.${responseCounter}.abc`,
        team: { id: teamId, domain: "acme" },
        user: { id: user, username: users.get(user)?.name ?? user.toLowerCase(), team_id: teamId },
        channel: { id: message.channel, name: message.channel.startsWith("D") ? "directmessage" : "general" },
        container: {
          type: "message",
          message_ts: message.ts,
          channel_id: message.channel,
          is_ephemeral: message.ephemeral === true,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        },
        ...(message.ephemeral
          ? {}
          : {
              message: {
                type: "message",
                ts: message.ts,
                text: message.text ?? "",
                bot_id: botId,
                user: botUserId,
                blocks: message.blocks ?? [],
                ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
              },
            }),
        response_url: url,
        actions: [
          {
            type: "button",
            block_id: "actions",
            action_id: actionId,
            value,
            text: { type: "plain_text", text: actionId },
            action_ts: nextTs(),
          },
        ],
      };
      return { payload, responseUrlId: id };
    },
  };

  const outage = slackOutage(server);
  const listening = await listen(server);
  const base = listening.url;

  return {
    url: base,
    apiUrl: `${base}/api/`,
    botToken,
    botUserId,
    botId,
    teamId,
    calls,
    posts,
    ephemerals,
    responses,
    files,
    removePost(channel, ts) {
      const index = posts.findIndex((post) => post.channel === channel && post.ts === ts);
      if (index >= 0) posts.splice(index, 1);
    },
    waitForFile: (match, timeoutMs = 10_000) =>
      waitFor(
        () => files.find((file) => file.completed && match(file)),
        timeoutMs,
        "a matching uploaded file",
      ),
    setAppUrl(url) {
      appUrl = url;
    },
    thread,
    callsTo: (method) => calls.filter((call) => call.method === method),
    dmChannelOf,
    addUser(user) {
      users.set(user.id, { id: user.id, name: user.name, isBot: user.isBot ?? false });
    },
    rateLimit(method, limit = {}) {
      rateLimits.push({
        method,
        times: limit.times ?? 1,
        retryAfterSec: limit.retryAfterSec ?? 1,
        ...(limit.channel ? { channel: limit.channel } : {}),
      });
    },
    failNetwork(method, failure, times = 1) {
      networkFailures.push({ method, failure, times });
    },
    callsBeforeRetryAfter: () => calls.filter((call) => call.beforeRetryAfter === true),
    outage: (on, kind) => outage.switch.set(on, kind),
    failChannel(channel, error) {
      if (error === undefined) channelFailures.delete(channel);
      else channelFailures.set(channel, error);
    },
    failNext(method, error) {
      nextFailures.set(method, error);
    },
    waitForPost: (match, timeoutMs = 10_000) =>
      waitFor(() => posts.find(match), timeoutMs, "a matching post"),
    waitForEphemeral: (match, timeoutMs = 10_000) =>
      waitFor(() => ephemerals.find(match), timeoutMs, "a matching ephemeral message"),
    waitForResponse: (id, timeoutMs = 10_000) =>
      waitFor(() => responses.find((posted) => posted.id === id), timeoutMs, `a post to response_url ${id}`),
    waitForEdit: (match, timeoutMs = 10_000) =>
      waitFor(() => posts.find((post) => post.edits > 0 && match(post)), timeoutMs, "a matching edit"),
    async sendEvent(event, eventOptions) {
      const headers: Record<string, string> = {};
      if (eventOptions.retryNum !== undefined) {
        headers["x-slack-retry-num"] = String(eventOptions.retryNum);
        headers["x-slack-retry-reason"] = eventOptions.retryReason ?? "http_timeout";
      }
      return send(JSON.stringify(payloads.event(event, eventOptions.eventId)), "application/json", {
        ...eventOptions,
        headers,
      });
    },
    deliverEvent(event, eventOptions) {
      const body = JSON.stringify(payloads.event(event, eventOptions.eventId));
      return deliverWithRetries(
        (headers) => send(body, "application/json", { ...eventOptions, headers }),
        eventOptions,
      );
    },
    async sendCommand(command, text, user, commandOptions = {}) {
      const { fields, responseUrlId } = payloads.command(command, text, user, commandOptions);
      const form = new URLSearchParams(fields);
      const result = await send(form.toString(), "application/x-www-form-urlencoded", commandOptions);
      return { ...result, responseUrlId };
    },
    async pressButton(actionId, value, user, message, buttonOptions = {}) {
      const { payload, responseUrlId } = payloads.button(actionId, value, user, message);
      const form = new URLSearchParams({ payload: JSON.stringify(payload) });
      const result = await send(form.toString(), "application/x-www-form-urlencoded", buttonOptions);
      return { ...result, responseUrlId };
    },
    // What a channel sees, apart from what one person is shown (issue 24).
    channelView: (channel) => [
      ...posts
        .filter((post) => post.channel === channel)
        .flatMap((post) => post.history.flatMap((version) => [version.text, JSON.stringify(version.blocks)])),
      ...responses
        .filter((posted) => posted.body.response_type === "in_channel")
        .map((posted) => JSON.stringify(posted.body)),
    ],
    leaveChannel(channel, user) {
      departed.add(`${channel} ${user}`);
    },
    sendRaw: (body, contentType, rawOptions = {}) => send(body, contentType, rawOptions),
    echoOf(post) {
      return {
        type: "message",
        subtype: "bot_message",
        channel: post.channel,
        channel_type: post.channel.startsWith("D") ? "im" : "channel",
        user: botUserId,
        bot_id: botId,
        text: post.text,
        ts: post.ts,
        ...(post.threadTs ? { thread_ts: post.threadTs } : {}),
      };
    },
    payloads,
    handleMethod(method, handler) {
      methodHandlers.set(method, handler);
    },
    close: () => listening.close(),
  };
}

/** Why Slack would refuse this message body, or undefined when it is fine. */
export function validateMessage(args: Record<string, unknown>): string | undefined {
  const text = args.text;
  const blocks = args.blocks;
  if (text !== undefined && typeof text !== "string") return "invalid_arguments";
  if (typeof text === "string" && text.length > MAX_MESSAGE_TEXT) return "msg_too_long";
  if (blocks === undefined) {
    return typeof text === "string" && text.length > 0 ? undefined : "no_text";
  }
  if (!Array.isArray(blocks)) return "invalid_blocks_format";
  if (blocks.length > MAX_BLOCKS) return "msg_blocks_too_long";
  for (const block of blocks) {
    if (!isRecord(block) || typeof block.type !== "string") return "invalid_blocks";
    if (blockProblem(block)) return "invalid_blocks";
  }
  return undefined;
}

function blockProblem(block: Record<string, unknown>): boolean {
  switch (block.type) {
    case "section": {
      const text = block.text;
      if (text === undefined && block.fields === undefined) return true;
      if (text !== undefined && !textObjectFits(text, MAX_SECTION_TEXT)) return true;
      return false;
    }
    case "context": {
      const elements = block.elements;
      return !Array.isArray(elements) || elements.length === 0 || elements.length > 10;
    }
    case "actions": {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return true;
      return elements.some((element) => {
        if (!isRecord(element)) return true;
        if (typeof element.action_id === "string" && element.action_id.length > 255) return true;
        if (typeof element.value === "string" && element.value.length > MAX_BUTTON_VALUE) return true;
        return element.type === "button" && !textObjectFits(element.text, 75);
      });
    }
    case "header":
      return !textObjectFits(block.text, 150);
    case "divider":
      return false;
    case "markdown":
      return typeof block.text !== "string" || block.text.length === 0 || block.text.length > 12_000;
    default:
      return false;
  }
}

function textObjectFits(value: unknown, max: number): boolean {
  if (!isRecord(value)) return false;
  if (value.type !== "mrkdwn" && value.type !== "plain_text") return false;
  return typeof value.text === "string" && value.text.length >= 1 && value.text.length <= max;
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (raw.length === 0) return {};
  if (contentType?.includes("application/json")) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return isRecord(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    args[key] = JSON_FIELDS.has(key) ? parseJsonField(value) : value;
  }
  return args;
}

function parseJsonField(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function bearer(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(.+)$/i);
  return match?.[1];
}

function stringArg(value: unknown): string | undefined {
  if (typeof value === "string" && value.length > 0) return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

function blocksArg(value: unknown): SlackBlock[] {
  if (!Array.isArray(value)) return [];
  return value.filter((block): block is SlackBlock => isRecord(block) && typeof block.type === "string");
}

function compareTs(a: string, b: string): number {
  const [aSecs = "0", aMicros = "0"] = a.split(".");
  const [bSecs = "0", bMicros = "0"] = b.split(".");
  return Number(aSecs) - Number(bSecs) || Number(aMicros) - Number(bMicros);
}

/**
 * Slack down as its clients see it: every request answered `502 Bad Gateway` by the proxy in front, with
 * the proxy's HTML page rather than Slack's JSON, or, for `refuse`, every connection reset.
 */
function slackOutage(server: Server): {
  switch: OutageSwitch;
  answered(request: IncomingMessage, response: ServerResponse): boolean;
} {
  const outage = outageSwitch(server, () => {});
  return {
    switch: outage,
    answered(request, response) {
      if (outage.kind === undefined) return false;
      request.resume();
      if (outage.kind === "refuse") {
        request.socket.resetAndDestroy();
        return true;
      }
      if (!response.headersSent) {
        response.writeHead(502, { "content-type": "text/html" });
        response.end("<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>");
      }
      return true;
    },
  };
}
