/**
 * Conditional, bounded HTTP GET shared by the calendar, feed and weather syncs: ETag / Last-Modified
 * revalidation, a hard time limit, a hard size limit, charset-aware decoding, and (unless the address is
 * operator-configured) no connection to private, loopback or metadata addresses on any hop. Every
 * failure is a `FetchError`.
 */

import { BriefbotError } from "../core/errors.ts";
import {
  type AddressPolicy,
  createAddressGuard,
  OPERATOR_CONFIGURED,
  PUBLIC_ONLY,
  RefusedAddressError,
} from "./network/address-policy.ts";
import { createGuardedAgent } from "./network/guarded-agent.ts";

/**
 * `fetch` or anything shaped like it. It must honour `init.dispatcher` (Node's and undici's fetch do):
 * that is where the address checks happen.
 */
export type FetchFunction = typeof fetch;

export type FetchErrorCode =
  | "timeout"
  | "too-large"
  | "http-status"
  | "network"
  | "bad-url"
  | "refused-address"
  | "too-many-redirects";

export class FetchError extends BriefbotError<FetchErrorCode> {
  constructor(
    message: string,
    code: FetchErrorCode,
    readonly url: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
  }
  readonly status: number | undefined;

  static isInstance(error: unknown): error is FetchError {
    return error instanceof FetchError;
  }
}

export interface FetchWithCacheOptions {
  /** ETag from the previous successful response; sent as If-None-Match. */
  etag?: string | null | undefined;
  /** Last-Modified from the previous successful response; sent as If-Modified-Since. */
  lastModified?: string | null | undefined;
  /** Whole request including the body read; default 15 s. */
  timeoutMs?: number;
  /** Body limit in bytes; default 5 MB. */
  maxBytes?: number;
  headers?: Record<string, string>;
  /**
   * Which addresses the request and its redirects may reach; default public addresses only.
   * `OPERATOR_CONFIGURED` skips the checks, for addresses from the operator's own configuration.
   */
  network?: AddressPolicy;
}

export type FetchWithCacheResult =
  | { status: "not-modified" }
  | {
      status: "ok";
      body: string;
      etag?: string | undefined;
      lastModified?: string | undefined;
      contentType?: string | undefined;
    };

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const MAX_REDIRECTS = 10;

export async function fetchWithCache(
  fetchFunction: FetchFunction,
  url: string,
  options: FetchWithCacheOptions = {},
): Promise<FetchWithCacheResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const headers: Record<string, string> = { ...options.headers };
  if (options.etag) headers["If-None-Match"] = options.etag;
  if (options.lastModified) headers["If-Modified-Since"] = options.lastModified;

  const controller = new AbortController();
  let timedOut = false;
  const timeoutError = () =>
    new FetchError(`${url}: no complete response within ${timeoutMs} ms`, "timeout", url);
  let rejectDeadline: (error: FetchError) => void = () => {};
  // Racing against a deadline as well as aborting: an injected fetch may ignore the signal.
  const deadline = new Promise<never>((_resolve, reject) => {
    rejectDeadline = reject;
  });
  deadline.catch(() => {});
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    rejectDeadline(timeoutError());
  }, timeoutMs);
  const beforeDeadline = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, deadline]);
  const policy = options.network ?? PUBLIC_ONLY;
  const agent = policy === OPERATOR_CONFIGURED ? undefined : createGuardedAgent(policy);

  try {
    const response = await followRedirects(url, policy, async (target) => {
      try {
        return await beforeDeadline(
          fetchFunction(target, {
            headers,
            signal: controller.signal,
            // Redirects are followed here, one checked hop at a time, so a refusal names the hop.
            redirect: "manual",
            // undici's Agent and the one inside Node's fetch implement the same Dispatcher interface.
            ...(agent ? { dispatcher: agent as unknown as RequestInit["dispatcher"] } : {}),
          }),
        );
      } catch (error) {
        if (timedOut) throw timeoutError();
        const refused = findRefusal(error);
        if (refused) throw refusedError(url, target, refused.reason, error);
        if (error instanceof TypeError && /invalid url|failed to parse url/i.test(error.message)) {
          throw new FetchError(`${target}: not a valid URL`, "bad-url", url, { cause: error });
        }
        throw new FetchError(`${target}: ${describeNetworkError(error)}`, "network", url, { cause: error });
      }
    });

    if (response.status === 304) {
      await response.body?.cancel().catch(() => {});
      return { status: "not-modified" };
    }
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel().catch(() => {});
      const reason = response.statusText ? ` ${response.statusText}` : "";
      throw new FetchError(`${url}: server answered HTTP ${response.status}${reason}`, "http-status", url, {
        status: response.status,
      });
    }

    const declaredLength = Number(response.headers.get("content-length"));
    if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge(url, maxBytes);
    }

    let bytes: Uint8Array;
    try {
      bytes = await beforeDeadline(readLimited(response, maxBytes, url));
    } catch (error) {
      if (error instanceof FetchError) throw error;
      if (timedOut) throw timeoutError();
      throw new FetchError(
        `${url}: connection failed while reading: ${describeNetworkError(error)}`,
        "network",
        url,
        {
          cause: error,
        },
      );
    } finally {
      if (timedOut) await response.body?.cancel().catch(() => {});
    }

    const contentType = response.headers.get("content-type") ?? undefined;
    return {
      status: "ok",
      body: decodeBody(bytes, contentType),
      etag: response.headers.get("etag") ?? undefined,
      lastModified: response.headers.get("last-modified") ?? undefined,
      contentType,
    };
  } finally {
    clearTimeout(timer);
    void agent?.destroy().catch(() => {});
  }
}

/**
 * GETs `url`, following up to `MAX_REDIRECTS` redirects. Each hop's address is checked before the
 * request (IP literals) and again by the guarded agent as it connects (host names, after DNS).
 */
async function followRedirects(
  url: string,
  policy: AddressPolicy,
  get: (target: string) => Promise<Response>,
): Promise<Response> {
  const guard = policy === OPERATOR_CONFIGURED ? undefined : createAddressGuard(policy);
  let target = url;
  for (let hop = 0; ; hop += 1) {
    let parsed: URL;
    try {
      parsed = new URL(target);
    } catch (error) {
      throw new FetchError(`${target}: not a valid URL`, "bad-url", url, { cause: error });
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new FetchError(
        hop === 0
          ? `${url}: not an http(s) address`
          : `${url}: redirected to ${target}, which is not http(s)`,
        "bad-url",
        url,
      );
    }
    const literal = parsed.hostname.replace(/^\[|\]$/g, "");
    const reason = guard?.refusal(literal, literal);
    if (reason) throw refusedError(url, target, reason);

    const response = await get(target);
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || response.status === 304 || !location) {
      return response;
    }
    await response.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS) {
      throw new FetchError(`${url}: more than ${MAX_REDIRECTS} redirects`, "too-many-redirects", url);
    }
    try {
      target = new URL(location, target).href;
    } catch (error) {
      throw new FetchError(`${url}: redirected to an invalid address`, "bad-url", url, { cause: error });
    }
  }
}

function refusedError(url: string, target: string, reason: string, cause?: unknown): FetchError {
  const where = target === url ? `${url}: refused` : `${url}: refused the redirect to ${target}`;
  return new FetchError(`${where}: ${reason}`, "refused-address", url, cause === undefined ? {} : { cause });
}

/** The guarded agent's refusal, wherever fetch wrapped it ("fetch failed" → cause → …). */
function findRefusal(error: unknown): RefusedAddressError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if (current instanceof RefusedAddressError) return current;
    current = current.cause;
  }
  return undefined;
}

function tooLarge(url: string, maxBytes: number): FetchError {
  return new FetchError(
    `${url}: response is larger than the ${formatBytes(maxBytes)} limit`,
    "too-large",
    url,
  );
}

async function readLimited(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop the download now rather than buffering the rest of a hostile body.
      await reader.cancel().catch(() => {});
      throw tooLarge(url, maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Charset precedence: BOM, then the Content-Type header, then an XML declaration, then UTF-8.
 * Unknown labels fall back to UTF-8 rather than failing, since a few mojibake characters beat no data.
 */
export function decodeBody(bytes: Uint8Array, contentType?: string): string {
  const charset =
    bomCharset(bytes) ?? charsetFromContentType(contentType) ?? charsetFromXmlDeclaration(bytes);
  const decoder = makeDecoder(charset ?? "utf-8");
  if (decoder.encoding === "windows-1252") return decodeWindows1252(bytes);
  return decoder.decode(bytes);
}

/**
 * Node 20's TextDecoder decodes windows-1252 as ISO-8859-1, turning 0x80–0x9F (€, curly quotes, dashes)
 * into C1 control characters; mislabelled "ISO-8859-1" feeds are really cp1252, as WHATWG says.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(bytes: Uint8Array): string {
  const parts: string[] = [];
  const chunkSize = 8192;
  for (let start = 0; start < bytes.length; start += chunkSize) {
    const codes = Array.from(bytes.subarray(start, start + chunkSize), (byte) =>
      byte >= 0x80 && byte <= 0x9f ? (WINDOWS_1252_HIGH[byte - 0x80] ?? byte) : byte,
    );
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join("");
}

function makeDecoder(label: string): { encoding: string; decode(bytes: Uint8Array): string } {
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder("utf-8");
  }
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = contentType?.match(/charset\s*=\s*"?([\w.:-]+)"?/i);
  return match?.[1]?.toLowerCase();
}

function charsetFromXmlDeclaration(bytes: Uint8Array): string | undefined {
  // The declaration is ASCII by definition, so latin1 is a safe way to peek at it.
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  const match = head.match(/^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i);
  return match?.[1]?.toLowerCase();
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause;
    if (cause instanceof Error && cause.message) return cause.message;
    return error.message;
  }
  return String(error);
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
