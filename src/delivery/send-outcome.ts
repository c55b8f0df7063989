/**
 * Whether a failed send may have reached the platform. The outbox retries only what certainly did not
 * (a retry can then never post twice) and records the rest as "outcome unknown", never re-sending it.
 */
import { DeliveryError } from "../core/assistant.ts";
import { errorMessage } from "../core/errors.ts";

export type SendFailure =
  /** The platform refused for good (blocked, chat gone, bad token): never retried. */
  | { kind: "refused"; reason: string }
  /**
   * Certainly not posted: the platform answered without posting (5xx, 429: `answered`) or the request
   * never left (refused, reset before the body was written).
   */
  | { kind: "not_sent"; reason: string; answered: boolean; retryAfterMs?: number | undefined }
  /** Maybe posted: the request went out and the answer was lost (timeout, connection dropped after). */
  | { kind: "unknown"; reason: string };

/**
 * Error codes that mean the request was never written to the platform: the connection or TLS session was
 * never established, or (ERR_REQUEST_NOT_SENT, from our send transport) it broke before the body left.
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ERR_REQUEST_NOT_SENT",
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

export function classifySendFailure(error: unknown): SendFailure {
  const reason = errorMessage(error);
  if (error instanceof DeliveryError) {
    return error.permanent
      ? { kind: "refused", reason }
      : { kind: "not_sent", reason, answered: true, retryAfterMs: error.retryAfterMs };
  }
  return causeChain(error).some((link) => NOT_SENT_CODES.has(codeOf(link) ?? ""))
    ? { kind: "not_sent", reason, answered: false }
    : { kind: "unknown", reason };
}

/**
 * The error and what it wraps: `cause` (undici, our transport, Slack's WebAPIRequestError), `error`
 * (grammY's HttpError) and `original` (older Slack clients). Bounded, in case of a cycle.
 */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    const record = current as { cause?: unknown; error?: unknown; original?: unknown };
    current = record.cause ?? record.error ?? record.original;
  }
  return chain;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
