/**
 * The HTTP clients' `fetch` for each platform token: every request that counts against a rate limit
 * passes the token's flood gate (the one limiter, shared with other processes through its store), and
 * outbox deliveries go through a send transport that knows whether a failed request reached the platform.
 * Chat replies share the gate (one token, one set of limits) but not the `Expect: 100-continue` round trip:
 * nothing but their own client retries them, so their outcome needs no proof. The outbox's sender gets the
 * gate's `reserve` as its pacer: a briefing's turn comes before its row is claimed.
 *
 *   const telegram = createTelegramTransports({ store });
 *   createTelegramBot({ …, transports: telegram });   // bot.api → fetch; its sender → deliveryFetch, pacer
 *   createMetrics({ …, floodGates: [telegram.gate] });
 */
import type { SendPacer } from "../core/assistant.ts";
import { FloodGate, type FloodScopes, type Lane } from "./flood-gate.ts";
import { createMemoryRateLimitStore, type RateLimitStore, type RateRule } from "./rate-limits.ts";
import { createSemaphore, type Semaphore } from "./semaphore.ts";
import { createSendTransport, type SendTransportOptions } from "./send-transport.ts";

export interface PlatformTransports {
  /** For the platform client that answers people (chat replies, commands, polling). */
  fetch: typeof fetch;
  /** For the outbox's client: the same gate, and a transport that proves "not sent". */
  deliveryFetch: typeof fetch;
  /** For the outbox's sender: its turn under the limits, taken before the row is claimed. */
  pacer: SendPacer;
  gate: FloodGate;
  close(): void;
}

/** How one platform's requests map onto its limits. */
interface GateBinding {
  /** The limits a request counts against, or undefined when it counts against none we track. */
  scopesOf(url: URL, body: string | undefined): (FloodScopes & { paced: boolean }) | undefined;
  /** A 429's wait in milliseconds, from its body or its `Retry-After` header. */
  retryAfterMsOf(response: Response, body: string): number | undefined;
  /** What the outbox's sender reserves for a post to `target` (a chat id, a channel). */
  postScopes(target: string): FloodScopes;
}

export interface TransportOptions {
  /** Where the limits are kept: memory (one process) or the database every replica shares. Default memory. */
  store?: RateLimitStore;
  delivery?: SendTransportOptions;
  gate?: Partial<{
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
    marginMs: number;
    now: () => number;
  }>;
}

const perSecond = (rate: number) => 1000 / rate;

/**
 * Telegram Bot API FAQ: about 1 message/s per chat, 20/min per group, ~30/s overall. All traffic is held to
 * 24/s, evenly spaced (so no second holds more than 25, with room for jitter below Telegram's 30); the
 * outbox to 22/s of it, so chat replies still get through in a morning rush; a private chat to one message
 * per 1.25 s, a quarter second more than Telegram's second, since a request delayed on its way can arrive
 * next to the one after it.
 */
export const TELEGRAM_PACE = {
  overallPerSecond: 24,
  outboxPerSecond: 22,
  privateChatMs: 1250,
  groupChatMs: 3000,
};
/** Slack: about one message per second per channel; the workspace-wide limit is unpublished, so stay modest. */
export const SLACK_PACE = { outboxPerSecond: 10, channelMs: 1000 };
/** Beyond grammY's long poll (30 s) and any client deadline: the clients time their own calls out. */
const CHAT_TIMEOUT_MS = 10 * 60_000;
/** Chat actions ("typing…") are not messages: gated by a pause, never slowed by the pace. */
const UNPACED_TELEGRAM_METHODS = new Set(["sendchataction"]);

function telegramChatRule(key: string): RateRule {
  return {
    scope: key,
    intervalMs: key.startsWith("chat:-") ? TELEGRAM_PACE.groupChatMs : TELEGRAM_PACE.privateChatMs,
  };
}

export function createTelegramTransports(options: TransportOptions = {}): PlatformTransports {
  const gate = new FloodGate({
    platform: "telegram",
    store: options.store ?? createMemoryRateLimitStore(),
    rules: (scopes, lane) => [
      { scope: scopes.group, intervalMs: perSecond(TELEGRAM_PACE.overallPerSecond) },
      ...(lane === "outbox"
        ? [{ scope: `${scopes.group}:outbox`, intervalMs: perSecond(TELEGRAM_PACE.outboxPerSecond) }]
        : []),
      ...(scopes.key ? [telegramChatRule(scopes.key)] : []),
    ],
    ...options.gate,
  });
  return withGate(gate, telegramBinding, options.delivery);
}

export function createSlackTransports(options: TransportOptions = {}): PlatformTransports {
  const channelRule = (key: string): RateRule => ({ scope: key, intervalMs: SLACK_PACE.channelMs });
  const gate = new FloodGate({
    platform: "slack",
    store: options.store ?? createMemoryRateLimitStore(),
    rules: (scopes, lane) => [
      ...(lane === "outbox" ? [{ scope: "outbox", intervalMs: perSecond(SLACK_PACE.outboxPerSecond) }] : []),
      ...(scopes.key ? [channelRule(scopes.key)] : []),
      // Every request takes from its method's scope, which has no pace of its own, so that a method-wide
      // pause (a 429 on chat.postMessage) holds posts to every channel, not only to the one that got it.
      { scope: scopes.group, intervalMs: 1 },
    ],
    ...options.gate,
  });
  return withGate(gate, slackBinding, options.delivery);
}

/** `/bot<token>/<method>`; a request with a `chat_id` sends to a chat (the throttler's rule too). */
const telegramBinding: GateBinding = {
  postScopes: (chatId) => ({ group: "global", key: `chat:${chatId}` }),
  scopesOf(url, body) {
    const chatId = readField(body, "chat_id");
    if (chatId === undefined) return undefined;
    const method = url.pathname.split("/").at(-1)?.toLowerCase() ?? "";
    return { group: "global", key: `chat:${chatId}`, paced: !UNPACED_TELEGRAM_METHODS.has(method) };
  },
  retryAfterMsOf(response, body) {
    const parameters = (parseJson(body) as { parameters?: { retry_after?: unknown } } | undefined)
      ?.parameters;
    const seconds =
      typeof parameters?.retry_after === "number" ? parameters.retry_after : headerSeconds(response);
    return seconds === undefined ? undefined : seconds * 1000;
  },
};

/** `/api/<method>`: every method has its own limit; `channel` narrows it to one conversation. */
const slackBinding: GateBinding = {
  postScopes: (channel) => ({ group: "method:chat.postMessage", key: `channel:${channel}` }),
  scopesOf(url, body) {
    const method = url.pathname.split("/").at(-1);
    if (!method) return undefined;
    const channel = readField(body, "channel");
    return {
      group: `method:${method}`,
      ...(channel === undefined ? {} : { key: `channel:${channel}` }),
      paced: true,
    };
  },
  retryAfterMsOf(response) {
    const seconds = headerSeconds(response);
    return seconds === undefined ? undefined : seconds * 1000;
  },
};

function withGate(
  gate: FloodGate,
  binding: GateBinding,
  delivery: SendTransportOptions | undefined,
): PlatformTransports {
  // One bound on requests in flight per client, taken before the gate, so a request the gate lets go is
  // written at once instead of queueing behind others and arriving in a bunch with them. Long polls
  // (getUpdates holds 30 s) and the clients' own deadlines set the pace here, not ours.
  const chatSlots = 16;
  const outboxSlots = delivery?.maxConcurrent ?? 16;
  const chat = createSendTransport({
    expectContinue: false,
    maxConcurrent: chatSlots,
    timeoutMs: CHAT_TIMEOUT_MS,
  });
  const outbox = createSendTransport({ expectContinue: true, ...delivery, maxConcurrent: outboxSlots });
  return {
    fetch: gated(chat.fetch, gate, binding, createSemaphore(chatSlots), "interactive"),
    deliveryFetch: gated(outbox.fetch, gate, binding, createSemaphore(outboxSlots), "outbox"),
    pacer: { acquire: (target) => gate.reserve(binding.postScopes(target)) },
    gate,
    close() {
      chat.close();
      outbox.close();
    },
  };
}

function gated(
  base: typeof fetch,
  gate: FloodGate,
  binding: GateBinding,
  slots: Semaphore,
  lane: Exclude<Lane, "unpaced">,
): typeof fetch {
  const gatedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const scopes = binding.scopesOf(url, bodyText(init?.body));
    const write = async () => {
      const response = await base(input, init);
      if (scopes && response.status === 429) {
        const retryAfterMs = binding.retryAfterMsOf(response, await response.clone().text());
        // Stored before the send lease goes: the next request on the token checks against it.
        if (retryAfterMs !== undefined) await gate.rateLimited(scopes, retryAfterMs);
      }
      return response;
    };
    const release = await slots.acquire();
    try {
      if (!scopes) return await write();
      return await gate.send(scopes, write, {
        signal: init?.signal ?? undefined,
        lane: scopes.paced ? lane : "unpaced",
      });
    } finally {
      release();
    }
  };
  return gatedFetch as typeof fetch;
}

/** The request body when it is text we can read for a field (JSON or a form); undefined otherwise. */
function bodyText(body: RequestInit["body"] | undefined): string | undefined {
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

/** A top-level field of a JSON or urlencoded body, as text. */
function readField(body: string | undefined, field: string): string | undefined {
  if (body === undefined) return undefined;
  const json = parseJson(body);
  const value =
    json !== undefined && typeof json === "object" && json !== null
      ? (json as Record<string, unknown>)[field]
      : new URLSearchParams(body).get(field);
  if (typeof value === "number" || (typeof value === "string" && value !== "")) return String(value);
  return undefined;
}

function parseJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function headerSeconds(response: Response): number | undefined {
  const value = Number(response.headers.get("retry-after"));
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}
