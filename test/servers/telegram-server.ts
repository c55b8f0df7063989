/**
 * A scriptable Telegram Bot API server for tests and benches: real HTTP on 127.0.0.1, spoken to by grammY
 * (`client.apiRoot = server.url`). Behaviour follows `shared/notes/telegram-slack.md` §1 and §7.
 *
 * ```ts
 * const server = await startTelegramServer();
 * const bot = new Bot(server.token, { client: { apiRoot: server.url } });
 * // ... bot.start() ...
 * const { updateId } = server.sendUserMessage({ id: 111, first_name: "Ann" }, "/brief");
 * const reply = await server.waitFor(() => server.chat(111).botMessages()[0]);
 * server.pressButton(111, reply.messageId, "r:1");
 * await server.waitUntilProcessed(updateId);
 * await server.close();
 * ```
 *
 * - `/bot<token>/<method>` (method case-insensitive), parameters from the query string, JSON or urlencoded
 *   bodies; nested objects may be objects or JSON strings. Envelopes `{ok,result}` / `{ok:false,error_code,
 *   description,parameters}` with HTTP status = error_code. Wrong token → 401, unknown method → 404.
 * - getUpdates long polls with offset/timeout; a newer poll ends the older with 409, as Telegram does, and
 *   {@link TelegramTestServer.pollStats} counts each such overlap (a poll still open when a newer one came),
 *   by client: the bot, or {@link TelegramTestServer.intrude}'s stand-in for another process polling the
 *   same token. `setWebhook` switches to push mode (POSTs updates with `X-Telegram-Bot-Api-Secret-Token`) and makes getUpdates answer 409.
 * - sendMessage validates length (4096 characters of parsed text), HTML entities, callback_data (≤ 64 bytes)
 *   and reply_parameters; message ids increase per chat, shared by user and bot messages.
 * - sendDocument takes a multipart/form-data upload (the file as its own part, named by `attach://<part>` or
 *   sent as the `document` field itself) and records the bytes in {@link TelegramTestServer.documents}.
 * - Failures on demand: {@link TelegramTestServer.setRateLimits} (429 with `retry_after` and `Retry-After`),
 *   {@link TelegramTestServer.blockChat} (403), {@link TelegramTestServer.failNext} (any status, once or N times,
 *   or a network failure: the connection reset before the request body is read, or the answer lost after the
 *   request was carried out).
 * - Every 429 it gives closes its scope (the chat, or the whole token) until `retry_after` has elapsed, as
 *   Telegram does; a send into a closed scope is answered 429 again and flagged `beforeRetryAfter`, so a test
 *   asserts on the server's own arrival times what the bot's flood gate promises.
 * - {@link TelegramTestServer.outage}: Telegram down until switched back (every method 502, or every
 *   connection reset), for health and outbox tests of the whole process.
 * - `Expect: 100-continue` is honoured (Node answers it), so a reset "before the body" happens before `100`.
 */
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
  type UploadedFile,
} from "./http.ts";

export interface TestUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  is_bot?: boolean;
  language_code?: string;
}

export interface TestChat {
  id: number;
  type: "private" | "group" | "supergroup";
  first_name?: string;
  username?: string;
  title?: string;
}

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
}

export interface InlineButton {
  text: string;
  callback_data?: string;
  url?: string;
}

export interface ReplyMarkup {
  inline_keyboard: InlineButton[][];
}

/** A Bot API `Message` as this server stores and returns it. */
export interface TelegramMessage {
  message_id: number;
  date: number;
  chat: TestChat;
  from: TestUser;
  text: string;
  entities?: MessageEntity[];
  reply_markup?: ReplyMarkup;
  reply_to_message?: TelegramMessage;
  edit_date?: number;
}

/** What the bot posted, with the raw parameters it used (the test's view). */
export interface BotPost {
  chatId: number;
  messageId: number;
  /** Text as the user sees it (entities parsed out). */
  text: string;
  /** Text exactly as the bot sent it. */
  rawText: string;
  parseMode: string | undefined;
  replyMarkup: ReplyMarkup | undefined;
  replyTo: number | undefined;
  edits: number;
  /** Every text the message has shown, first to last (edits included): what the user may have read. */
  history: string[];
  deleted: boolean;
}

/** A file the bot sent with sendDocument. */
export interface SentDocument {
  chatId: number;
  messageId: number;
  filename: string;
  mimeType: string;
  bytes: Buffer;
  caption: string | undefined;
  replyMarkup: ReplyMarkup | undefined;
}

export interface ApiCall extends CallTiming {
  index: number;
  method: string;
  params: Record<string, unknown>;
  status: number;
  description?: string;
}

export interface ScriptedFailure {
  /** Lower-case method name, or every method when absent. */
  method?: string;
  /** Not matched by `reset-before-body`, which happens before the body (and its chat id) is read. */
  chatId?: number;
  /** The HTTP status of the answer; ignored for network failures. */
  status?: number;
  network?: NetworkFailure;
  description?: string;
  retryAfter?: number;
  /** What a scripted 429 closes: the chat it was sent to (default when known) or the whole token. */
  scope?: "chat" | "global";
  /** How many matching calls fail. Default 1. */
  times?: number;
  /** Let this many matching calls succeed first (fail the second part of a split message). Default 0. */
  after?: number;
}

export interface RateLimit {
  max: number;
  windowMs: number;
}

export interface RateLimits {
  perChat?: RateLimit;
  global?: RateLimit;
  /** Fixed `retry_after` seconds; by default the time until the window frees a slot (at least 1). */
  retryAfterSeconds?: number;
}

export interface TelegramServerOptions {
  token?: string;
  bot?: { id: number; first_name: string; username: string };
  /** Accept sends to chats the server has never seen (fan-out benches). Default false → "chat not found". */
  autoCreateChats?: boolean;
  /**
   * Push webhook updates to this origin (`http://127.0.0.1:<port>`) instead of the registered URL's: the bot
   * registers the public https address and TLS ends in front of it, at a reverse proxy, as deployed.
   */
  webhookOrigin?: string;
}

export interface ChatView {
  messages(): TelegramMessage[];
  /** The bot's posts in this chat, oldest first (deleted ones excluded). */
  botMessages(): BotPost[];
  message(messageId: number): TelegramMessage | undefined;
}

export interface TelegramTestServer {
  /** `http://127.0.0.1:<port>`: grammY's `client.apiRoot`. */
  url: string;
  token: string;
  botInfo: { id: number; is_bot: true; first_name: string; username: string };
  /** Every Bot API call, in arrival order. */
  calls: ApiCall[];
  callsTo(method: string): ApiCall[];
  /** Every message the bot posted, in order. */
  sent: BotPost[];
  /** Every file the bot sent (sendDocument), in order. */
  documents: SentDocument[];
  chat(chatId: number): ChatView;
  /** Answers to callback queries, in order. */
  callbackAnswers: Array<{ id: string; text?: string; showAlert: boolean }>;
  chatActions: Array<{ chatId: number; action: string }>;
  commands: unknown[];
  webhook(): { url: string; secretToken: string | undefined } | undefined;
  pollStats(): PollStats;
  /**
   * Another process polling the same token, over real HTTP: `polls` long polls one after another, each
   * restarted a second after Telegram ended it with 409, as a second bot instance would. Resolves when done.
   */
  intrude(options: { polls: number; timeoutSeconds?: number }): Promise<void>;
  /** Makes a chat known (sends to unknown chats fail with "chat not found"). */
  addChat(user: TestUser): void;
  /** A user writes to the bot; `/commands` get `bot_command` entities. */
  sendUserMessage(
    target: number | TestUser,
    text: string,
    options?: { replyTo?: number; from?: TestUser },
  ): { updateId: number; message: TelegramMessage };
  /** A user presses an inline button of a bot message; returns the callback query id. */
  pressButton(
    chatId: number,
    messageId: number,
    data: string,
    fromUser?: TestUser,
  ): { updateId: number; queryId: string };
  /** Queues any update (rare shapes). */
  pushUpdate(update: Record<string, unknown>): number;
  setRateLimits(limits: RateLimits | undefined): void;
  blockChat(chatId: number): void;
  failNext(failure: ScriptedFailure): void;
  /** Sending calls that arrived while a 429 given for their scope had not elapsed (should be none). */
  callsBeforeRetryAfter(): ApiCall[];
  /** Resolves once the bot has confirmed (by a later getUpdates offset, or a 2xx webhook reply) this update. */
  waitUntilProcessed(updateId: number, timeoutMs?: number): Promise<void>;
  /** Re-evaluates `probe` after every API call until it returns something other than undefined/false. */
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  /**
   * Telegram goes down until switched off: `5xx` (default) answers every method `502 Bad Gateway`, the long
   * poll open at that moment too; `refuse` resets every connection. Calls answered 502 are in `calls`.
   */
  outage(on: boolean, kind?: OutageKind): void;
  close(): Promise<void>;
}

const MAX_TEXT = 4096;
const MAX_POLL_SECONDS = 50;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

/** A 429 and the scope it closes until `retry_after` has elapsed. */
class RateLimited extends ApiError {
  constructor(
    description: string,
    readonly retryAfter: number,
    readonly scope: string,
  ) {
    super(429, description, { retry_after: retryAfter });
  }
}

const badRequest = (what: string) => new ApiError(400, `Bad Request: ${what}`);

interface ChatState {
  chat: TestChat;
  nextMessageId: number;
  messages: Map<number, TelegramMessage>;
}

interface PendingPoll {
  response: ServerResponse;
  limit: number;
  timer: NodeJS.Timeout;
  /** Who polls: "bot", or what an `x-test-client` header names (the intruder). */
  client: string;
  /** The client went away (it aborted the request): nothing it could be told arrives any more. */
  gone: boolean;
}

/** Two long polls of one token open at once: the older is ended with 409. */
export interface PollOverlap {
  older: string;
  newer: string;
  at: number;
}

export interface PollStats {
  /** getUpdates calls that waited (long polls). */
  polls: number;
  /** A newer poll arrived while an older one was still open, by anyone. */
  overlaps: number;
  log: PollOverlap[];
  /** Overlaps in which both polls came from `client`. */
  overlapsWithin(client: string): number;
  /** Whether a long poll is open now. */
  held: boolean;
}

export async function startTelegramServer(options: TelegramServerOptions = {}): Promise<TelegramTestServer> {
  const token = options.token ?? "123456789:TEST-token_abcdefghijklmnopqrstuv";
  const botUser = { id: 123456789, first_name: "Briefbot", username: "briefbot_test_bot", ...options.bot };
  const botFrom: TestUser = {
    id: botUser.id,
    is_bot: true,
    first_name: botUser.first_name,
    username: botUser.username,
  };
  const chats = new Map<number, ChatState>();
  const calls: ApiCall[] = [];
  const sent: BotPost[] = [];
  const documents: SentDocument[] = [];
  const callbackAnswers: TelegramTestServer["callbackAnswers"] = [];
  const chatActions: TelegramTestServer["chatActions"] = [];
  const commands: unknown[] = [];
  const updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  const openQueries = new Set<string>();
  const blocked = new Set<number>();
  const failures: ScriptedFailure[] = [];
  const watchers = new Set<() => void>();
  // Telegram starts a bot's update ids somewhere random (and again after a week without updates): servers
  // one suite starts against one database do not reuse ids, as no real bot does within a day.
  let nextUpdateId = 1000 + Math.floor(Math.random() * 1_000_000_000);
  let confirmedBelow = 0;
  let poll: PendingPoll | undefined;
  let longPolls = 0;
  const overlapLog: PollOverlap[] = [];
  let rateLimits: RateLimits | undefined;
  const sendLog: Array<{ chatId: number; at: number }> = [];
  /** Scope ("global" or "chat:<id>") → `performance.now()` until which the last 429 closed it. */
  const limitedUntil = new Map<string, number>();
  let webhook: { url: string; secretToken: string | undefined } | undefined;
  let pushing = false;
  let closed = false;
  let queryCounter = 0;

  const notify = () => {
    for (const watcher of [...watchers]) watcher();
  };

  const now = () => Math.floor(Date.now() / 1000);

  const chatFor = (user: TestUser, chatId = user.id): ChatState => {
    let state = chats.get(chatId);
    if (!state) {
      const chat: TestChat =
        chatId > 0
          ? {
              id: chatId,
              type: "private",
              first_name: user.first_name,
              ...(user.username ? { username: user.username } : {}),
            }
          : { id: chatId, type: "group", title: `Group ${chatId}` };
      state = { chat, nextMessageId: 1, messages: new Map() };
      chats.set(chatId, state);
    }
    return state;
  };

  const requireChat = (chatId: number): ChatState => {
    const state = chats.get(chatId);
    if (state) return state;
    if (options.autoCreateChats) return chatFor({ id: chatId, first_name: `User${chatId}` }, chatId);
    throw badRequest("chat not found");
  };

  const withoutReply = (message: TelegramMessage): TelegramMessage => {
    const { reply_to_message: _ignored, ...rest } = message;
    return rest;
  };

  const enqueue = (update: Record<string, unknown>): number => {
    const updateId = nextUpdateId++;
    updates.push({ update_id: updateId, ...update });
    flushPoll();
    void pushWebhook();
    notify();
    return updateId;
  };

  const pending = () => updates.filter((update) => update.update_id >= confirmedBelow);

  const flushPoll = () => {
    if (!poll) return;
    const ready = pending();
    if (ready.length === 0) return;
    const { response, limit, timer } = poll;
    poll = undefined;
    clearTimeout(timer);
    sendResult(response, ready.slice(0, limit));
  };

  /**
   * Telegram ends the older of two polls with 409. A client that already aborted its poll (the bot stopping
   * its runner) may have its close arrive a moment after the newer request: that is no overlap, so the
   * verdict waits for the close to land.
   */
  const endOlderPoll = (older: PendingPoll, newer: string) => {
    setTimeout(() => {
      if (older.gone || older.response.writableEnded) return;
      overlapLog.push({ older: older.client, newer, at: Date.now() });
      sendError(
        older.response,
        new ApiError(
          409,
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
        ),
      );
    }, 20);
  };

  const confirm = (offset: number) => {
    if (offset > confirmedBelow) confirmedBelow = offset;
    notify();
  };

  const pushAddress = (registered: string): string => {
    if (!options.webhookOrigin) return registered;
    const url = new URL(registered);
    return `${options.webhookOrigin}${url.pathname}${url.search}`;
  };

  // Push mode: one update at a time, in order, retried on non-2xx like Telegram (with a short test backoff).
  const pushWebhook = async () => {
    if (pushing || !webhook) return;
    pushing = true;
    try {
      while (webhook && !closed) {
        const next = pending()[0];
        if (!next) break;
        let delivered = false;
        for (let attempt = 0; attempt < 5 && !delivered && webhook && !closed; attempt++) {
          try {
            const response = await fetch(pushAddress(webhook.url), {
              method: "POST",
              headers: {
                "content-type": "application/json",
                ...(webhook.secretToken ? { "x-telegram-bot-api-secret-token": webhook.secretToken } : {}),
              },
              body: JSON.stringify(next),
            });
            await response.text();
            delivered = response.ok;
          } catch {
            delivered = false;
          }
          if (!delivered) await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
        }
        // Telegram gives up on an update eventually; so do we, rather than block the queue forever.
        confirm(next.update_id + 1);
      }
    } finally {
      pushing = false;
    }
  };

  /** Takes the next scripted failure that matches (honouring `after` and `times`), if any. */
  const takeFailure = (
    method: string,
    chatId: number | undefined,
    kind: "answer" | NetworkFailure,
  ): ScriptedFailure | undefined => {
    const index = failures.findIndex(
      (failure) =>
        (failure.network ?? "answer") === kind &&
        (failure.method === undefined || failure.method.toLowerCase() === method) &&
        (failure.chatId === undefined || (kind !== "reset-before-body" && failure.chatId === chatId)),
    );
    const failure = failures[index];
    if (!failure) return undefined;
    if ((failure.after ?? 0) > 0) {
      failure.after = (failure.after ?? 0) - 1;
      return undefined;
    }
    failure.times = (failure.times ?? 1) - 1;
    if (failure.times <= 0) failures.splice(index, 1);
    return failure;
  };

  const checkFailures = (method: string, params: Record<string, unknown>) => {
    const chatId = toChatId(params.chat_id);
    if (chatId !== undefined && blocked.has(chatId) && SENDING_METHODS.has(method)) {
      throw new ApiError(403, "Forbidden: bot was blocked by the user");
    }
    const failure = takeFailure(method, chatId, "answer");
    if (!failure) return;
    const status = failure.status ?? 500;
    const description = failure.description ?? defaultDescription(status, failure.retryAfter);
    if (status === 429 && failure.retryAfter !== undefined) {
      const scope = failure.scope === "global" || chatId === undefined ? "global" : `chat:${chatId}`;
      throw new RateLimited(description, failure.retryAfter, scope);
    }
    throw new ApiError(
      status,
      description,
      failure.retryAfter !== undefined ? { retry_after: failure.retryAfter } : undefined,
    );
  };

  /** A send into a scope a 429 closed is refused again, with the time left. */
  const checkClosedScopes = (method: string, params: Record<string, unknown>, call: ApiCall) => {
    if (!SENDING_METHODS.has(method)) return;
    const chatId = toChatId(params.chat_id) ?? 0;
    for (const scope of ["global", `chat:${chatId}`]) {
      const until = limitedUntil.get(scope) ?? 0;
      if (call.receivedAt >= until) continue;
      call.beforeRetryAfter = true;
      const retryAfter = Math.max(1, Math.ceil((until - call.receivedAt) / 1000));
      throw new RateLimited(`Too Many Requests: retry after ${retryAfter}`, retryAfter, scope);
    }
  };

  const checkRateLimits = (method: string, params: Record<string, unknown>) => {
    if (!rateLimits || !SENDING_METHODS.has(method)) return;
    const chatId = toChatId(params.chat_id) ?? 0;
    const at = Date.now();
    const verdict = (limit: RateLimit | undefined, entries: Array<{ at: number }>) => {
      if (!limit) return undefined;
      const inWindow = entries.filter((entry) => entry.at > at - limit.windowMs);
      if (inWindow.length < limit.max) return undefined;
      const oldest = inWindow[0]?.at ?? at;
      return Math.max(1, Math.ceil((oldest + limit.windowMs - at) / 1000));
    };
    const wait =
      verdict(
        rateLimits.perChat,
        sendLog.filter((entry) => entry.chatId === chatId),
      ) ?? verdict(rateLimits.global, sendLog);
    const chatWait = verdict(
      rateLimits.perChat,
      sendLog.filter((entry) => entry.chatId === chatId),
    );
    if (wait !== undefined) {
      const retryAfter = rateLimits.retryAfterSeconds ?? wait;
      const scope = chatWait !== undefined ? `chat:${chatId}` : "global";
      throw new RateLimited(`Too Many Requests: retry after ${retryAfter}`, retryAfter, scope);
    }
    sendLog.push({ chatId, at });
  };

  const methods: Record<string, (params: Record<string, unknown>, response: ServerResponse) => unknown> = {
    getme: () => ({
      ...botUser,
      is_bot: true,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
    }),
    getupdates: (params, response) => {
      const header = response.req.headers["x-test-client"];
      const client = typeof header === "string" ? header : "bot";
      if (webhook) {
        throw new ApiError(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        );
      }
      const offset = toInteger(params.offset);
      if (offset !== undefined) {
        if (offset < 0) {
          const keep = updates.slice(offset);
          confirm(keep[0]?.update_id ?? nextUpdateId);
        } else confirm(offset);
      }
      const limit = clamp(toInteger(params.limit) ?? 100, 1, 100);
      const timeout = clamp(toInteger(params.timeout) ?? 0, 0, MAX_POLL_SECONDS);
      if (poll) {
        const older = poll;
        poll = undefined;
        clearTimeout(older.timer);
        endOlderPoll(older, client);
      }
      const ready = pending();
      if (ready.length > 0 || timeout === 0) return ready.slice(0, limit);
      longPolls += 1;
      const timer = setTimeout(() => {
        if (poll?.response === response) {
          poll = undefined;
          sendResult(response, []);
        }
      }, timeout * 1000);
      const held: PendingPoll = { response, limit, timer, client, gone: false };
      poll = held;
      response.on("close", () => {
        if (!response.writableFinished) held.gone = true;
        if (poll?.response === response) {
          clearTimeout(poll.timer);
          poll = undefined;
        }
      });
      return HELD;
    },
    setwebhook: (params) => {
      const url = typeof params.url === "string" ? params.url : "";
      if (url === "") {
        webhook = undefined;
        return true;
      }
      const secret = typeof params.secret_token === "string" ? params.secret_token : undefined;
      if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
        throw badRequest("secret token contains unallowed characters");
      }
      if (params.drop_pending_updates === true) confirm(nextUpdateId);
      webhook = { url, secretToken: secret };
      void pushWebhook();
      return true;
    },
    deletewebhook: (params) => {
      if (params.drop_pending_updates === true) confirm(nextUpdateId);
      webhook = undefined;
      return true;
    },
    getwebhookinfo: () => ({
      url: webhook?.url ?? "",
      has_custom_certificate: false,
      pending_update_count: pending().length,
    }),
    senddocument: (params) => {
      const chatId = requireChatId(params.chat_id);
      const state = requireChat(chatId);
      const file = uploadedDocument(params);
      if (file.bytes.length === 0) throw badRequest("file must be non-empty");
      const caption =
        params.caption === undefined ? undefined : parseText(params.caption, params.parse_mode).text;
      const markup = parseMarkup(params.reply_markup);
      const replyTo = replyTarget(state, params);
      const messageId = state.nextMessageId++;
      const fileId = `BQACAgIAAxkBAAI${chatId}_${messageId}`;
      const document = {
        file_name: file.filename,
        mime_type: file.contentType || "application/octet-stream",
        file_id: fileId,
        file_unique_id: `AgAD${messageId}`,
        file_size: file.bytes.length,
      };
      // What the bot gets back; the chat keeps it with an empty text, as this server's views are text-shaped.
      const result = {
        message_id: messageId,
        date: now(),
        chat: state.chat,
        from: botFrom,
        document,
        ...(caption !== undefined ? { caption } : {}),
        ...(markup ? { reply_markup: markup } : {}),
        ...(replyTo ? { reply_to_message: withoutReply(replyTo) } : {}),
      };
      state.messages.set(messageId, { ...result, text: "" });
      documents.push({
        chatId,
        messageId,
        filename: document.file_name,
        mimeType: document.mime_type,
        bytes: file.bytes,
        caption,
        replyMarkup: markup,
      });
      return result;
    },
    sendmessage: (params) => {
      const chatId = requireChatId(params.chat_id);
      const state = requireChat(chatId);
      const parsed = parseText(params.text, params.parse_mode);
      const markup = parseMarkup(params.reply_markup);
      const replyTo = replyTarget(state, params);
      const message: TelegramMessage = {
        message_id: state.nextMessageId++,
        date: now(),
        chat: state.chat,
        from: botFrom,
        text: parsed.text,
        ...(parsed.entities.length > 0 ? { entities: parsed.entities } : {}),
        ...(markup ? { reply_markup: markup } : {}),
        ...(replyTo ? { reply_to_message: withoutReply(replyTo) } : {}),
      };
      state.messages.set(message.message_id, message);
      sent.push({
        chatId,
        messageId: message.message_id,
        text: parsed.text,
        rawText: String(params.text),
        parseMode: typeof params.parse_mode === "string" ? params.parse_mode : undefined,
        replyMarkup: markup,
        replyTo: replyTo?.message_id,
        edits: 0,
        history: [parsed.text],
        deleted: false,
      });
      return message;
    },
    editmessagetext: (params) => {
      const { state, message, post } = botMessage(params);
      const parsed = parseText(params.text, params.parse_mode);
      const markup = parseMarkup(params.reply_markup);
      if (parsed.text === message.text && sameJson(markup, message.reply_markup)) {
        throw badRequest(
          "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      }
      const edited: TelegramMessage = {
        ...withoutReply(message),
        ...(message.reply_to_message ? { reply_to_message: message.reply_to_message } : {}),
        text: parsed.text,
        edit_date: now(),
      };
      if (parsed.entities.length > 0) edited.entities = parsed.entities;
      else delete edited.entities;
      if (markup) edited.reply_markup = markup;
      else delete edited.reply_markup;
      state.messages.set(message.message_id, edited);
      if (post) {
        post.text = parsed.text;
        post.rawText = String(params.text);
        post.parseMode = typeof params.parse_mode === "string" ? params.parse_mode : undefined;
        post.replyMarkup = markup;
        post.edits += 1;
        post.history.push(parsed.text);
      }
      return edited;
    },
    editmessagereplymarkup: (params) => {
      const { state, message, post } = botMessage(params);
      const markup = parseMarkup(params.reply_markup);
      if (sameJson(markup, message.reply_markup)) {
        throw badRequest(
          "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      }
      const edited = { ...message, edit_date: now() };
      if (markup) edited.reply_markup = markup;
      else delete edited.reply_markup;
      state.messages.set(message.message_id, edited);
      if (post) {
        post.replyMarkup = markup;
        post.edits += 1;
      }
      return edited;
    },
    deletemessage: (params) => {
      const { state, message, post } = botMessage(params, true);
      state.messages.delete(message.message_id);
      if (post) post.deleted = true;
      return true;
    },
    sendchataction: (params) => {
      const chatId = requireChatId(params.chat_id);
      requireChat(chatId);
      const action = typeof params.action === "string" ? params.action : "";
      if (!CHAT_ACTIONS.has(action)) throw badRequest("wrong parameter action in request");
      chatActions.push({ chatId, action });
      return true;
    },
    answercallbackquery: (params) => {
      const id = typeof params.callback_query_id === "string" ? params.callback_query_id : "";
      if (!openQueries.has(id)) {
        throw badRequest("query is too old and response timeout expired or query ID is invalid");
      }
      const text = typeof params.text === "string" ? params.text : undefined;
      if (text !== undefined && text.length > 200) throw badRequest("MESSAGE_TOO_LONG");
      openQueries.delete(id);
      callbackAnswers.push({
        id,
        ...(text !== undefined ? { text } : {}),
        showAlert: params.show_alert === true,
      });
      return true;
    },
    setmycommands: (params) => {
      const list = parseNested(params.commands);
      if (!Array.isArray(list)) throw badRequest('parameter "commands" must be an array');
      for (const entry of list) {
        const command = isRecord(entry) ? entry.command : undefined;
        if (typeof command !== "string" || !/^[a-z0-9_]{1,32}$/.test(command))
          throw badRequest("BOT_COMMAND_INVALID");
      }
      commands.splice(0, commands.length, ...list);
      return true;
    },
    getmycommands: () => commands,
    close: () => true,
    logout: () => true,
  };

  const replyTarget = (state: ChatState, params: Record<string, unknown>): TelegramMessage | undefined => {
    const replyParameters = parseNested(params.reply_parameters);
    const messageId = isRecord(replyParameters)
      ? toInteger(replyParameters.message_id)
      : toInteger(params.reply_to_message_id);
    if (messageId === undefined) return undefined;
    const target = state.messages.get(messageId);
    if (target) return target;
    const allow = isRecord(replyParameters) && replyParameters.allow_sending_without_reply === true;
    if (allow) return undefined;
    throw badRequest("message to be replied not found");
  };

  const botMessage = (params: Record<string, unknown>, anyAuthor = false) => {
    if (params.inline_message_id !== undefined)
      throw badRequest("inline messages are not supported by this server");
    const chatId = requireChatId(params.chat_id);
    const state = requireChat(chatId);
    const messageId = toInteger(params.message_id);
    const message = messageId === undefined ? undefined : state.messages.get(messageId);
    if (!message) throw badRequest(anyAuthor ? "message to delete not found" : "message to edit not found");
    if (!anyAuthor && message.from.id !== botUser.id) throw badRequest("message can't be edited");
    const post = sent.find((entry) => entry.chatId === chatId && entry.messageId === message.message_id);
    return { state, message, post };
  };

  const methodOf = (request: IncomingMessage) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const match = /^\/bot([^/]+)\/(?:test\/)?([^/]+)\/?$/.exec(url.pathname);
    return { url, match, method: (match?.[2] ?? "").toLowerCase() };
  };

  /** Headers are in, the body is not: a scripted reset happens here (before `100 Continue`). */
  const resetBeforeBody = (request: IncomingMessage, receivedAt: number): boolean => {
    const { method } = methodOf(request);
    if (!takeFailure(method, undefined, "reset-before-body")) return false;
    calls.push({
      index: calls.length,
      method,
      params: {},
      status: 0,
      receivedAt,
      network: "reset-before-body",
    });
    request.socket.resetAndDestroy();
    notify();
    return true;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse, receivedAt: number) => {
    const { url, match, method } = methodOf(request);
    if (outage.answered(request, response)) {
      calls.push({ index: calls.length, method, params: {}, status: 502, receivedAt });
      notify();
      return;
    }
    if (!match) return sendError(response, new ApiError(404, "Not Found"));
    const [, givenToken = ""] = match;
    let params: Record<string, unknown>;
    try {
      params = { ...Object.fromEntries(url.searchParams), ...(await readParams(request)) };
    } catch (error) {
      return sendError(response, error instanceof ApiError ? error : badRequest("invalid request body"));
    }
    const call: ApiCall = { index: calls.length, method, params, status: 200, receivedAt };
    calls.push(call);
    const fail = (error: ApiError) => {
      call.status = error.status;
      call.description = error.description;
      if (error instanceof RateLimited) {
        call.retryAfter = error.retryAfter;
        call.limitScope = error.scope;
        call.answeredAt = performance.now();
        const until = call.answeredAt + error.retryAfter * 1000;
        limitedUntil.set(error.scope, Math.max(limitedUntil.get(error.scope) ?? 0, until));
      }
      sendError(response, error);
      notify();
    };
    if (givenToken !== token) return fail(new ApiError(401, "Unauthorized"));
    const implementation = methods[method];
    if (!implementation) return fail(new ApiError(404, "Not Found: method not found"));
    try {
      checkClosedScopes(method, params, call);
      checkFailures(method, params);
      checkRateLimits(method, params);
      const dropAnswer = takeFailure(method, toChatId(params.chat_id), "drop-response");
      const result = implementation(params, response);
      if (dropAnswer) {
        // Carried out, answer lost: the client cannot know the message exists.
        call.network = "drop-response";
        request.socket.destroy();
      } else if (result !== HELD) sendResult(response, result);
      notify();
    } catch (error) {
      if (error instanceof ApiError) return fail(error);
      return fail(
        new ApiError(500, `Internal Server Error: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  };

  const server = createPlatformServer({
    resetBeforeBody,
    handle,
    onError: (request) => request.socket.destroy(),
  });
  const outage = telegramOutage(server, (answer) => {
    const held = poll;
    poll = undefined;
    if (!held) return;
    clearTimeout(held.timer);
    answer(held.response);
  });
  const listening = await listen(server);

  const view = (chatId: number): ChatView => ({
    messages: () =>
      [...(chats.get(chatId)?.messages.values() ?? [])].sort((a, b) => a.message_id - b.message_id),
    botMessages: () => sent.filter((post) => post.chatId === chatId && !post.deleted),
    message: (messageId) => chats.get(chatId)?.messages.get(messageId),
  });

  const userFor = (target: number | TestUser): TestUser =>
    typeof target === "number"
      ? { id: target, is_bot: false, first_name: `User${target}` }
      : { is_bot: false, ...target };

  return {
    url: listening.url,
    token,
    botInfo: { id: botUser.id, is_bot: true, first_name: botUser.first_name, username: botUser.username },
    calls,
    callsTo: (method) => calls.filter((call) => call.method === method.toLowerCase()),
    sent,
    documents,
    chat: view,
    callbackAnswers,
    chatActions,
    commands,
    webhook: () => webhook,
    pollStats: () => ({
      polls: longPolls,
      overlaps: overlapLog.length,
      log: [...overlapLog],
      overlapsWithin: (client) =>
        overlapLog.filter((overlap) => overlap.older === client && overlap.newer === client).length,
      held: poll !== undefined && !poll.gone,
    }),
    async intrude({ polls, timeoutSeconds = 30 }) {
      for (let index = 0; index < polls && !closed; index += 1) {
        const response = await fetch(`${listening.url}/bot${token}/getUpdates`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-test-client": "intruder" },
          body: JSON.stringify({ timeout: timeoutSeconds }),
        }).catch(() => undefined);
        await response?.text();
        if (index + 1 < polls) await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
    addChat(user) {
      chatFor(userFor(user));
    },
    sendUserMessage(target, text, messageOptions = {}) {
      const chatUser = userFor(target);
      const from = messageOptions.from ? userFor(messageOptions.from) : chatUser;
      const state = chatFor(chatUser, chatUser.id);
      let replyTo: TelegramMessage | undefined;
      if (messageOptions.replyTo !== undefined) {
        replyTo = state.messages.get(messageOptions.replyTo);
        if (!replyTo)
          throw new Error(`test bug: message ${messageOptions.replyTo} not in chat ${chatUser.id}`);
      }
      const entities = commandEntities(text);
      const message: TelegramMessage = {
        message_id: state.nextMessageId++,
        date: now(),
        chat: state.chat,
        from,
        text,
        ...(entities.length > 0 ? { entities } : {}),
        ...(replyTo ? { reply_to_message: withoutReply(replyTo) } : {}),
      };
      state.messages.set(message.message_id, message);
      const updateId = enqueue({ message });
      return { updateId, message };
    },
    pressButton(chatId, messageId, data, fromUser) {
      const state = chats.get(chatId);
      const message = state?.messages.get(messageId);
      if (!message) throw new Error(`test bug: message ${messageId} not in chat ${chatId}`);
      const buttons = message.reply_markup?.inline_keyboard.flat() ?? [];
      if (!buttons.some((button) => button.callback_data === data)) {
        throw new Error(`test bug: message ${messageId} has no button with data "${data}"`);
      }
      queryCounter += 1;
      const queryId = `${Date.now().toString(36)}${queryCounter}`;
      openQueries.add(queryId);
      const from = userFor(fromUser ?? chatId);
      const updateId = enqueue({
        callback_query: { id: queryId, from, message, chat_instance: `${-chatId}`, data },
      });
      return { updateId, queryId };
    },
    pushUpdate: enqueue,
    setRateLimits(limits) {
      rateLimits = limits;
      sendLog.length = 0;
      limitedUntil.clear();
    },
    blockChat(chatId) {
      blocked.add(chatId);
    },
    failNext(failure) {
      failures.push({ ...failure, ...(failure.method ? { method: failure.method.toLowerCase() } : {}) });
    },
    callsBeforeRetryAfter: () => calls.filter((call) => call.beforeRetryAfter === true),
    outage: (on, kind) => outage.switch.set(on, kind),
    waitUntilProcessed(updateId, timeoutMs) {
      return waitUntil(
        () => confirmedBelow > updateId || undefined,
        timeoutMs,
        `update ${updateId} to be processed`,
      ).then(() => undefined);
    },
    waitFor(probe, timeoutMs) {
      return waitUntil(probe, timeoutMs, "condition");
    },
    close: () => {
      closed = true;
      if (poll) clearTimeout(poll.timer);
      poll = undefined;
      return listening.close();
    },
  };

  function waitUntil<T>(
    probe: () => T | undefined | false,
    timeoutMs = 15_000,
    what = "condition",
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        let value: T | undefined | false;
        try {
          value = probe();
        } catch (error) {
          finish();
          reject(error);
          return;
        }
        if (value !== undefined && value !== false) {
          finish();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        finish();
        const recent = calls
          .slice(-8)
          .map((call) => `${call.method}→${call.status}`)
          .join(", ");
        reject(new Error(`timed out waiting for ${what}; last calls: ${recent}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        watchers.delete(check);
      };
      watchers.add(check);
      check();
    });
  }
}

const HELD = Symbol("held");

/**
 * Telegram down as Bot API users see it through its nginx: every method answered `502 Bad Gateway` (the
 * long poll open when it began too), or, for `refuse`, every connection reset. `endHeldPoll` ends the open
 * long poll with the answer given.
 */
function telegramOutage(
  server: Server,
  endHeldPoll: (answer: (response: ServerResponse) => void) => void,
): { switch: OutageSwitch; answered(request: IncomingMessage, response: ServerResponse): boolean } {
  const badGateway = (response: ServerResponse) => sendError(response, new ApiError(502, "Bad Gateway"));
  const outage = outageSwitch(server, (kind) =>
    endHeldPoll(kind === "5xx" ? badGateway : (response) => response.socket?.resetAndDestroy()),
  );
  return {
    switch: outage,
    answered(request, response) {
      if (outage.kind === undefined) return false;
      request.resume();
      if (outage.kind === "refuse") request.socket.resetAndDestroy();
      else badGateway(response);
      return true;
    },
  };
}

const SENDING_METHODS = new Set([
  "sendmessage",
  "senddocument",
  "editmessagetext",
  "editmessagereplymarkup",
  "sendchataction",
  "deletemessage",
]);

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

function defaultDescription(status: number, retryAfter: number | undefined): string {
  if (status === 429) return `Too Many Requests: retry after ${retryAfter ?? 1}`;
  if (status === 403) return "Forbidden: bot was blocked by the user";
  if (status === 401) return "Unauthorized";
  if (status === 400) return "Bad Request: chat not found";
  if (status >= 500) return "Internal Server Error";
  return `Error ${status}`;
}

function sendResult(response: ServerResponse, result: unknown): void {
  sendJson(response, 200, { ok: true, result });
}

function sendError(response: ServerResponse, error: ApiError): void {
  const retryAfter = error.parameters?.retry_after;
  sendJson(
    response,
    error.status,
    {
      ok: false,
      error_code: error.status,
      description: error.description,
      ...(error.parameters ? { parameters: error.parameters } : {}),
    },
    typeof retryAfter === "number" ? { "Retry-After": String(retryAfter) } : {},
  );
}

async function readParams(request: IncomingMessage): Promise<Record<string, unknown>> {
  const bytes = await readBytes(request);
  const type = (request.headers["content-type"] ?? "").toLowerCase();
  if (type.includes("multipart/form-data")) {
    try {
      return parseMultipart(bytes, request.headers["content-type"] ?? "");
    } catch {
      throw badRequest("can't parse multipart/form-data body");
    }
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "") return {};
  if (type.includes("application/json")) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest("can't parse JSON object");
    }
    if (!isRecord(body)) throw badRequest("JSON object expected");
    return body;
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** The uploaded file of a sendDocument: the part itself, or the part an `attach://<name>` value names. */
function uploadedDocument(params: Record<string, unknown>): UploadedFile {
  const value = params.document;
  if (isUploadedFile(value)) return value;
  // Plain in a form field; a JSON string when the parameters came as JSON.
  const reference = typeof value === "string" && value.startsWith('"') ? parseNested(value) : value;
  if (typeof reference === "string" && reference.startsWith("attach://")) {
    const part = params[reference.slice("attach://".length)];
    if (isUploadedFile(part)) return part;
    throw badRequest("file of the document not found");
  }
  // A file_id or URL of a file Telegram already has: this server keeps none.
  throw badRequest("there is no document in the request");
}

/** Nested parameters arrive as objects (JSON bodies) or JSON text (query/urlencoded). */
function parseNested(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw badRequest("can't parse JSON object");
  }
}

function toInteger(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function toChatId(value: unknown): number | undefined {
  return toInteger(value);
}

function requireChatId(value: unknown): number {
  if (value === undefined || value === "") throw badRequest("chat_id is empty");
  const chatId = toChatId(value);
  if (chatId === undefined) throw badRequest("chat not found");
  return chatId;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function parseMarkup(value: unknown): ReplyMarkup | undefined {
  if (value === undefined) return undefined;
  const markup = parseNested(value);
  if (!isRecord(markup)) throw badRequest("object expected as reply markup");
  if (markup.inline_keyboard === undefined) return undefined;
  const rows = markup.inline_keyboard;
  if (!Array.isArray(rows) || !rows.every(Array.isArray))
    throw badRequest('field "inline_keyboard" must be an Array');
  const keyboard: InlineButton[][] = [];
  for (const row of rows as unknown[][]) {
    const buttons: InlineButton[] = [];
    for (const raw of row) {
      if (!isRecord(raw) || typeof raw.text !== "string") throw badRequest('can\'t find field "text"');
      if (typeof raw.callback_data === "string") {
        const bytes = Buffer.byteLength(raw.callback_data, "utf8");
        if (bytes < 1 || bytes > 64) throw badRequest("BUTTON_DATA_INVALID");
        buttons.push({ text: raw.text, callback_data: raw.callback_data });
      } else if (typeof raw.url === "string") buttons.push({ text: raw.text, url: raw.url });
      else throw badRequest("text buttons are unallowed in the inline keyboard");
    }
    keyboard.push(buttons);
  }
  return { inline_keyboard: keyboard };
}

function commandEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(/(^|\s)(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)/g)) {
    const command = match[2] ?? "";
    entities.push({
      type: "bot_command",
      offset: (match.index ?? 0) + (match[1]?.length ?? 0),
      length: command.length,
    });
  }
  return entities;
}

function parseText(rawText: unknown, parseMode: unknown): { text: string; entities: MessageEntity[] } {
  const text = typeof rawText === "string" ? rawText : rawText === undefined ? "" : String(rawText);
  let parsed: { text: string; entities: MessageEntity[] };
  if (parseMode === undefined || parseMode === "") parsed = { text, entities: [] };
  else if (typeof parseMode === "string" && parseMode.toLowerCase() === "html") parsed = parseHtml(text);
  else if (parseMode === "Markdown" || parseMode === "MarkdownV2") parsed = { text, entities: [] };
  else throw badRequest(`unsupported parse_mode`);
  if (parsed.text.trim() === "") throw badRequest("message text is empty");
  if ([...parsed.text].length > MAX_TEXT) throw badRequest("message is too long");
  return parsed;
}

const HTML_TAGS: Record<string, string> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  span: "spoiler",
  a: "text_link",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
  "tg-emoji": "custom_emoji",
};

const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/** Telegram's HTML subset, strict like TDLib about tags, stricter about bare `&` (our bot must escape it). */
function parseHtml(source: string): { text: string; entities: MessageEntity[] } {
  const fail = (what: string): never => {
    throw badRequest(`can't parse entities: ${what}`);
  };
  const byteOffset = (index: number) => Buffer.byteLength(source.slice(0, index), "utf8");
  let text = "";
  const entities: MessageEntity[] = [];
  const open: Array<{ name: string; type: string; start: number; url?: string }> = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] ?? "";
    if (char === "&") {
      const entity = /^&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/.exec(source.slice(index));
      const body = entity?.[1];
      if (!entity || body === undefined)
        return fail(`Unsupported HTML entity at byte offset ${byteOffset(index)}`);
      if (body.startsWith("#x")) text += String.fromCodePoint(Number.parseInt(body.slice(2), 16));
      else if (body.startsWith("#")) text += String.fromCodePoint(Number.parseInt(body.slice(1), 10));
      else {
        const named = NAMED_ENTITIES[body.toLowerCase()];
        if (named === undefined) return fail(`Unsupported HTML entity at byte offset ${byteOffset(index)}`);
        text += named;
      }
      index += entity[0].length;
      continue;
    }
    if (char !== "<") {
      text += char;
      index += 1;
      continue;
    }
    const end = source.indexOf(">", index);
    if (end < 0) return fail(`Unclosed start tag at byte offset ${byteOffset(index)}`);
    const inside = source.slice(index + 1, end);
    if (inside.startsWith("/")) {
      const name = inside.slice(1).trim().toLowerCase();
      const top = open.pop();
      if (!top) return fail(`Unexpected end tag at byte offset ${byteOffset(index)}`);
      if (top.name !== name) {
        return fail(
          `Unmatched end tag at byte offset ${byteOffset(index)}, expected "</${top.name}>", found "</${name}>"`,
        );
      }
      const length = text.length - top.start;
      if (length > 0)
        entities.push({ type: top.type, offset: top.start, length, ...(top.url ? { url: top.url } : {}) });
      index = end + 1;
      continue;
    }
    const tag = /^([a-zA-Z][a-zA-Z0-9-]*)(\s[\s\S]*)?$/.exec(inside);
    const name = tag?.[1]?.toLowerCase();
    const type = name === undefined ? undefined : HTML_TAGS[name];
    if (!tag || name === undefined || type === undefined) {
      return fail(
        `Unsupported start tag "${inside.split(/\s/)[0] ?? ""}" at byte offset ${byteOffset(index)}`,
      );
    }
    const href = /href\s*=\s*"([^"]*)"/.exec(tag[2] ?? "")?.[1];
    open.push({ name, type, start: text.length, ...(href ? { url: href } : {}) });
    index = end + 1;
  }
  const unclosed = open.pop();
  if (unclosed) return fail(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  entities.sort((a, b) => a.offset - b.offset);
  return { text, entities };
}
