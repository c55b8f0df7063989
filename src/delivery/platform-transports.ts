/**
 * The HTTP clients' `fetch` for each platform token: every request that counts against a rate limit
 * passes the token's flood gate, and outbox deliveries go through a send transport that knows whether a
 * failed request reached the platform. Chat replies share the gate (one token, one set of limits) but not
 * the `Expect: 100-continue` round trip: nothing retries them, so their outcome needs no proof. The
 * outbox's sender also gets the pacer that spaces briefings evenly under the platform's limits.
 *
 *   const telegram = createTelegramTransports();
 *   createTelegramBot({ …, transports: telegram });   // bot.api → fetch; its sender → deliveryFetch, pacer
 *   createMetrics({ …, floodGates: [telegram.gate] });
 */
import { type Allowance, FloodGate, type FloodGateOptions, type FloodScopes } from "./flood-gate.ts";
import { createPacer, type Pacer, type PacerLimits, SLACK_LIMITS, TELEGRAM_LIMITS } from "./pacer.ts";
import { createSemaphore, type Semaphore } from "./semaphore.ts";
import { createSendTransport, type SendTransportOptions } from "./send-transport.ts";

export interface PlatformTransports {
  /** For the platform client that answers people (chat replies, commands, polling). */
  fetch: typeof fetch;
  /** For the outbox's client: the same gate, and a transport that proves "not sent". */
  deliveryFetch: typeof fetch;
  /** For the outbox's sender: briefings spaced evenly under the platform's limits, per chat and overall. */
  pacer: Pacer;
  gate: FloodGate;
  close(): void;
}

/** How one platform's requests map onto its limits. */
interface GateBinding {
  /** The limits a request counts against, or undefined when it counts against none we track. */
  scopesOf(url: URL, body: string | undefined): (FloodScopes & { paced: boolean }) | undefined;
  /** A 429's wait in milliseconds, from its body or its `Retry-After` header. */
  retryAfterMsOf(response: Response, body: string): number | undefined;
}

export interface TransportOptions {
  delivery?: SendTransportOptions;
  /** The outbox's pace. Default: `TELEGRAM_LIMITS` or `SLACK_LIMITS`. */
  pacer?: PacerLimits;
  gate?: Partial<Pick<FloodGateOptions, "now" | "sleep" | "marginMs">>;
}

/** Telegram Bot API FAQ: about 1 message/s per chat, 20/min per group, ~30/s overall. */
const TELEGRAM_PRIVATE_CHAT: Allowance = { max: 1, windowMs: 1000 };
const TELEGRAM_GROUP_CHAT: Allowance = { max: 20, windowMs: 60_000 };
const TELEGRAM_OVERALL: Allowance = { max: 30, windowMs: 1000 };
/**
 * What all traffic is held to: 25/s overall (the outbox alone keeps to 23/s, leaving the rest to chat
 * replies), and a quarter second more than Telegram's second between messages to one chat, since a request
 * delayed on its way can arrive next to the one after it.
 */
const TELEGRAM_OVERALL_PACE: Allowance = { max: 25, windowMs: 1000 };
const TELEGRAM_CHAT_PACE: Allowance = { max: 1, windowMs: 1250 };
/** Slack chat.postMessage: about one message per second per channel. */
const SLACK_CHANNEL: Allowance = { max: 1, windowMs: 1000 };
/** Beyond grammY's long poll (30 s) and any client deadline: the clients time their own calls out. */
const CHAT_TIMEOUT_MS = 10 * 60_000;
/** Chat actions ("typing…") are not messages: gated by a pause, never slowed by the pace. */
const UNPACED_TELEGRAM_METHODS = new Set(["sendchataction"]);

export function createTelegramTransports(options: TransportOptions = {}): PlatformTransports {
  const gate = new FloodGate({
    platform: "telegram",
    keyAllowance: (key) => (key.startsWith("chat:-") ? TELEGRAM_GROUP_CHAT : TELEGRAM_PRIVATE_CHAT),
    groupAllowance: () => TELEGRAM_OVERALL,
    keyPace: (key) => (key.startsWith("chat:-") ? TELEGRAM_GROUP_CHAT : TELEGRAM_CHAT_PACE),
    groupPace: () => TELEGRAM_OVERALL_PACE,
    ...options.gate,
  });
  return withGate(gate, telegramBinding, options.delivery, createPacer(options.pacer ?? TELEGRAM_LIMITS));
}

export function createSlackTransports(options: TransportOptions = {}): PlatformTransports {
  const gate = new FloodGate({
    platform: "slack",
    keyAllowance: () => SLACK_CHANNEL,
    keyPace: () => SLACK_CHANNEL,
    ...options.gate,
  });
  return withGate(gate, slackBinding, options.delivery, createPacer(options.pacer ?? SLACK_LIMITS));
}

/** `/bot<token>/<method>`; a request with a `chat_id` sends to a chat (the throttler's rule too). */
const telegramBinding: GateBinding = {
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
  pacer: Pacer,
): PlatformTransports {
  // Long polls (getUpdates holds 30 s) and the clients' own deadlines set the pace here, not ours.
  const chatSlots = 16;
  const outboxSlots = delivery?.maxConcurrent ?? 16;
  const chat = createSendTransport({
    expectContinue: false,
    maxConcurrent: chatSlots,
    timeoutMs: CHAT_TIMEOUT_MS,
  });
  const outbox = createSendTransport({ expectContinue: true, ...delivery, maxConcurrent: outboxSlots });
  return {
    fetch: gated(chat.fetch, gate, binding, createSemaphore(chatSlots)),
    deliveryFetch: gated(outbox.fetch, gate, binding, createSemaphore(outboxSlots)),
    pacer,
    gate,
    close() {
      chat.close();
      outbox.close();
    },
  };
}

/**
 * The gate sits right before the wire: a connection slot is taken first, so a request the gate lets go is
 * written at once instead of queueing behind others and arriving in a bunch with them.
 */
function gated(base: typeof fetch, gate: FloodGate, binding: GateBinding, slots: Semaphore): typeof fetch {
  const gatedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const scopes = binding.scopesOf(url, bodyText(init?.body));
    const release = await slots.acquire();
    let response: Response;
    try {
      if (scopes) await gate.enter(scopes, init?.signal ?? undefined, { paced: scopes.paced });
      response = await base(input, init);
    } finally {
      release();
    }
    if (scopes && response.status === 429) {
      const retryAfterMs = binding.retryAfterMsOf(response, await response.clone().text());
      if (retryAfterMs !== undefined) gate.rateLimited(scopes, retryAfterMs);
    }
    return response;
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
