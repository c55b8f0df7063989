/**
 * What every CalDAV call shares: Basic auth, the network policy (a CalDAV address is the user's, so it goes
 * through the same address guard as a calendar subscription), a per-request timeout, and a tally of requests
 * and bytes. tsdav takes a `fetch` on every call; the one built here does all of that, so tsdav stays the
 * code that speaks the protocol.
 */
import { getBasicAuthHeaders } from "tsdav";
import type { AccountConnection } from "../../../core/accounts/ports.ts";
import { BriefbotError, errorMessage } from "../../../core/errors.ts";
import type { FetchFunction } from "../../http-cache-fetch.ts";
import { type AddressPolicy, OPERATOR_CONFIGURED } from "../../network/address-policy.ts";
import { createGuardedAgent } from "../../network/guarded-agent.ts";

export interface CaldavHttpOptions {
  /** Which addresses may be reached; the composition root passes the sources' policy. */
  network: AddressPolicy;
  /** Default the global fetch. */
  fetch?: FetchFunction;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** Per answer; default 20 MB (a multiget of 100 large objects stays far below). */
  maxBytes?: number;
}

/** One sync's or write's traffic: requests sent, and bytes of the answers' bodies received. */
export interface Tally {
  requests: number;
  bytes: number;
}

export interface CaldavSession {
  fetch: FetchFunction;
  headers: Record<string, string>;
  tally: Tally;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

/** The server answered in a way no sync or write can go on from (401, 5xx, not CalDAV at all). */
export class CaldavError extends BriefbotError<"caldav"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("caldav", message, options);
  }
}

export function createSessionFactory(options: CaldavHttpOptions) {
  const base = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const agent = options.network === OPERATOR_CONFIGURED ? undefined : createGuardedAgent(options.network);

  return (connection: AccountConnection): CaldavSession => {
    const tally: Tally = { requests: 0, bytes: 0 };
    const counted: FetchFunction = async (input, init) => {
      tally.requests += 1;
      const target = input instanceof Request ? input.url : String(input);
      let response: Response;
      let body: Uint8Array;
      try {
        response = await base(input, {
          ...init,
          signal: AbortSignal.timeout(timeoutMs),
          // undici's Agent and the one inside Node's fetch implement the same Dispatcher interface.
          ...(agent ? { dispatcher: agent as unknown as RequestInit["dispatcher"] } : {}),
        });
        // Read here, once, so the tally sees the bytes; tsdav reads the copy.
        body = await readCapped(response, maxBytes, target);
      } catch (error) {
        if (error instanceof CaldavError) throw error;
        throw new CaldavError(`${target}: ${errorMessage(error, { cause: true })}`, { cause: error });
      }
      tally.bytes += body.byteLength;
      const empty = body.byteLength === 0 || [101, 204, 205, 304].includes(response.status);
      return new Response(empty ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
    return {
      fetch: counted,
      headers: getBasicAuthHeaders({ username: connection.username ?? "", password: connection.secret }),
      tally,
    };
  };
}

/** The whole body, or a `CaldavError` once it passes `maxBytes`: a server cannot make us hold more. */
async function readCapped(response: Response, maxBytes: number, target: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return new Uint8Array(0);
  for await (const part of response.body) {
    size += part.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw new CaldavError(`${target}: the answer is larger than ${maxBytes} bytes`);
    }
    parts.push(part);
  }
  return Buffer.concat(parts);
}

export type SessionFactory = ReturnType<typeof createSessionFactory>;

/** An href as the server wrote it (a path, usually), made absolute against the address it came from. */
export function absoluteHref(href: string, base: string): string {
  return new URL(href, base).href;
}

/** ETags as the mirror keeps them: with their quotes, as If-Match needs them back. */
export function normalizeEtag(etag: unknown): string | undefined {
  if (etag === undefined || etag === null || etag === "") return undefined;
  const text = String(etag).trim();
  if (text.startsWith('"') || text.startsWith("W/")) return text;
  return `"${text}"`;
}
