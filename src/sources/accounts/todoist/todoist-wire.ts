/**
 * The SDK's `customFetch`: every request the SDK makes to Todoist goes through here, so it is counted
 * (requests, response bytes) and a 429 is waited out. The SDK itself does not retry a 429 and drops the
 * response headers, so `Retry-After` would be lost above this layer. `Retry-After` is honoured up to
 * `maxWaitMs` in all; past that the 429 goes up to the SDK and becomes a rate-limit error that says how long
 * Todoist asked to wait.
 *
 * It also keeps the last response body as Todoist sent it (snake_case JSON): the mirror stores a task's
 * body in the API's own words, and the SDK hands back its camelCased reading of it instead.
 */
import type { CustomFetch, CustomFetchResponse } from "@doist/todoist-sdk";
import { errorMessage } from "../../../core/errors.ts";
import {
  type AddressPolicy,
  OPERATOR_CONFIGURED,
  PUBLIC_ONLY,
  RefusedAddressError,
} from "../../network/address-policy.ts";
import { createGuardedAgent } from "../../network/guarded-agent.ts";
import type { RateLimitNote } from "./todoist-error.ts";

export interface WireOptions {
  /**
   * Which addresses the account's API URL may reach; default public ones only, as for every address a
   * user gives (the operator opens loopback or the LAN for a self-hosted test server).
   */
  network?: AddressPolicy;
  /** The longest all Retry-After waits of one request may add up to; default 60 s. */
  maxWaitMs?: number;
  /** How many 429s in a row one request may wait out; default 3. */
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Rewrites a successful response's body before the SDK reads it (the sync lifts its items out there, see
   * sync-project.ts).
   */
  rewrite?: (url: string, body: string) => string;
}

export interface TodoistWire {
  fetch: CustomFetch;
  requests: () => number;
  bytes: () => number;
  /** The body of the latest successful response, before any rewrite. */
  lastBody: () => string | undefined;
  /** The latest 429's Retry-After and how long this wire has waited, for the error message. */
  rateLimit: () => RateLimitNote | null;
}

const DEFAULT_MAX_WAIT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 3;
/** A 429 without a usable Retry-After still gets a pause, short enough not to matter. */
const FALLBACK_WAIT_MS = 1000;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createTodoistWire(options: WireOptions = {}): TodoistWire {
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const sleep = options.sleep ?? realSleep;
  let requests = 0;
  let bytes = 0;
  let lastBody: string | undefined;
  let rateLimit: RateLimitNote | null = null;
  const policy = options.network ?? PUBLIC_ONLY;
  const agent = policy === OPERATOR_CONFIGURED ? undefined : createGuardedAgent(policy);

  const send = async (
    url: string,
    init?: RequestInit & { timeout?: number },
  ): Promise<CustomFetchResponse> => {
    const { timeout: _timeout, ...request } = init ?? {};
    for (let retries = 0; ; retries++) {
      const response = await reach(url, {
        ...request,
        // Todoist's API does not redirect; a redirect would carry the token somewhere else.
        redirect: "error",
        // undici's Agent and the one inside Node's fetch implement the same Dispatcher interface.
        ...(agent ? { dispatcher: agent as unknown as RequestInit["dispatcher"] } : {}),
      });
      requests += 1;
      const body = await response.text();
      bytes += Buffer.byteLength(body);
      if (response.status === 429) {
        const asked = retryAfterMs(response.headers.get("retry-after"));
        const waitMs = asked ?? FALLBACK_WAIT_MS;
        const waited = rateLimit?.waitedMs ?? 0;
        rateLimit = { retryAfterSeconds: asked === null ? null : asked / 1000, waitedMs: waited };
        if (retries < maxRetries && waited + waitMs <= maxWaitMs) {
          await sleep(waitMs);
          rateLimit = { ...rateLimit, waitedMs: waited + waitMs };
          continue;
        }
      }
      if (response.ok) lastBody = body;
      const text = response.ok && options.rewrite ? options.rewrite(url, body) : body;
      return {
        ok: response.ok,
        status: response.status,
        statusText: response.statusText,
        headers: Object.fromEntries(response.headers),
        text: async () => text,
        json: async () => JSON.parse(text) as unknown,
      };
    }
  };

  return {
    fetch: send,
    requests: () => requests,
    bytes: () => bytes,
    lastBody: () => lastBody,
    rateLimit: () => rateLimit,
  };
}

/**
 * fetch, with its failure's reason in the message: the SDK keeps only the message of what the fetch
 * threw. A refused address is a plain Error, which the SDK does not retry; anything else stays a
 * TypeError "fetch failed: …", which it retries as a network error.
 */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const refused = refusal(error);
    if (refused) throw new Error(refused.message, { cause: error });
    throw new TypeError(errorMessage(error, { cause: true }), { cause: error });
  }
}

function refusal(error: unknown): RefusedAddressError | undefined {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    if (at instanceof RefusedAddressError) return at;
  }
  return undefined;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when unusable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
