/**
 * How Slack delivers one Events API event, retries included (api.slack.com/apis/events-api, "Graceful
 * retries"): an event not acknowledged with a 2xx within 3 seconds is sent again — without waiting for the
 * first answer, which may still arrive — and so is one answered with another status or whose connection
 * failed; at most three retries, the first at once, then after a minute, then after five. Each retry carries
 * `X-Slack-Retry-Num` (1–3) and `X-Slack-Retry-Reason`. An answer that is not 2xx but carries
 * `X-Slack-No-Retry: 1` stops the retries.
 */
export const SLACK_ACK_DEADLINE_MS = 3000;
/** Slack's schedule; tests pass a shorter one, keeping its shape. */
export const SLACK_RETRY_DELAYS_MS = [0, 60_000, 300_000] as const;

export type RetryReason = "http_timeout" | "http_error" | "connection_failed";

export interface DeliveryAttempt {
  /** 0 for the first delivery, then the `X-Slack-Retry-Num` sent. */
  retryNum: number;
  retryReason: RetryReason | undefined;
  /** The app's status; undefined when it did not answer within the deadline or the connection failed. */
  status: number | undefined;
  outcome: "acked" | "timeout" | "http_error" | "connection_failed";
}

export interface AttemptAnswer {
  status: number;
  noRetry: boolean;
}

/** One HTTP request to the app with these extra headers. */
export type SendAttempt = (headers: Record<string, string>) => Promise<AttemptAnswer>;

export interface EventDelivery {
  attempts: DeliveryAttempt[];
  /** True when some attempt was acknowledged with a 2xx inside the deadline. */
  acked: boolean;
}

export async function deliverWithRetries(
  send: SendAttempt,
  options: { retryDelaysMs?: readonly number[]; ackDeadlineMs?: number } = {},
): Promise<EventDelivery> {
  const delays = options.retryDelaysMs ?? SLACK_RETRY_DELAYS_MS;
  const deadline = options.ackDeadlineMs ?? SLACK_ACK_DEADLINE_MS;
  const attempts: DeliveryAttempt[] = [];
  let reason: RetryReason | undefined;
  for (let retryNum = 0; retryNum <= delays.length; retryNum += 1) {
    if (retryNum > 0) await sleep(delays[retryNum - 1] ?? 0);
    const headers: Record<string, string> =
      retryNum === 0 || reason === undefined
        ? {}
        : { "x-slack-retry-num": String(retryNum), "x-slack-retry-reason": reason };
    const attempt = await attemptOnce(send, headers, deadline);
    attempts.push({ retryNum, retryReason: retryNum === 0 ? undefined : reason, ...attempt });
    if (attempt.outcome === "acked") return { attempts, acked: true };
    if (attempt.noRetry) break;
    reason = reasonFor(attempt.outcome);
  }
  return { attempts, acked: false };
}

async function attemptOnce(
  send: SendAttempt,
  headers: Record<string, string>,
  deadlineMs: number,
): Promise<Omit<DeliveryAttempt, "retryNum" | "retryReason"> & { noRetry: boolean }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
  });
  // Slack does not cancel a late request: the app may still finish it while the retry arrives.
  const answer = send(headers).then(
    (value) => value,
    () => "failed" as const,
  );
  const first = await Promise.race([answer, late]);
  clearTimeout(timer);
  if (first === "late") return { status: undefined, outcome: "timeout", noRetry: false };
  if (first === "failed") return { status: undefined, outcome: "connection_failed", noRetry: false };
  const ok = first.status >= 200 && first.status < 300;
  return { status: first.status, outcome: ok ? "acked" : "http_error", noRetry: !ok && first.noRetry };
}

function reasonFor(outcome: DeliveryAttempt["outcome"]): RetryReason {
  if (outcome === "timeout") return "http_timeout";
  if (outcome === "connection_failed") return "connection_failed";
  return "http_error";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
