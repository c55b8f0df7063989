import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/real-briefbot.ts";
import { startSlackServer } from "./slack-server.ts";

interface Seen {
  retryNum: string | undefined;
  retryReason: string | undefined;
  eventId: string;
}

/** An app at the end of the Events URL that answers each request as `answer` says and records what came. */
async function startApp(
  answer: (attempt: number, response: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      seen.push({
        retryNum: request.headers["x-slack-retry-num"] as string | undefined,
        retryReason: request.headers["x-slack-retry-reason"] as string | undefined,
        eventId: (JSON.parse(body) as { event_id: string }).event_id,
      });
      answer(seen.length, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}/slack/events`, seen, server };
}

const message = { type: "message", channel: "DU1", user: "U1", text: "hi", ts: "1700000000.000100" };
const fast = [0, 50, 100] as const;

describe("slack test server: event delivery as Slack retries it", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function setUp(answer: (attempt: number, response: ServerResponse) => void) {
    const slack = await startSlackServer({ signingSecret: "s3cret" });
    const app = await startApp(answer);
    closers.push(
      () => slack.close(),
      () => new Promise<void>((resolve) => app.server.close(() => resolve())),
    );
    slack.setAppUrl(app.url);
    return { slack, app };
  }

  it("re-sends an event not acknowledged within 3 s, without waiting for the late answer, marked http_timeout", async () => {
    const late: ServerResponse[] = [];
    const { slack, app } = await setUp((attempt, response) => {
      if (attempt === 1) late.push(response);
      else response.writeHead(200).end();
    });
    const delivery = await slack.deliverEvent(message, { eventId: "Ev1", retryDelaysMs: fast });
    for (const response of late) response.writeHead(200).end();

    expect(delivery.acked).toBe(true);
    expect(delivery.attempts.map((attempt) => attempt.outcome)).toEqual(["timeout", "acked"]);
    expect(app.seen).toEqual([
      { retryNum: undefined, retryReason: undefined, eventId: "Ev1" },
      { retryNum: "1", retryReason: "http_timeout", eventId: "Ev1" },
    ]);
  });

  it("retries a non-2xx answer as http_error, at most three times", async () => {
    const { slack, app } = await setUp((_attempt, response) => response.writeHead(500).end());
    const delivery = await slack.deliverEvent(message, { eventId: "Ev2", retryDelaysMs: fast });

    expect(delivery.acked).toBe(false);
    expect(app.seen.map((seen) => [seen.retryNum, seen.retryReason])).toEqual([
      [undefined, undefined],
      ["1", "http_error"],
      ["2", "http_error"],
      ["3", "http_error"],
    ]);
  });

  it("stops retrying when the app answers X-Slack-No-Retry: 1", async () => {
    const { slack, app } = await setUp((_attempt, response) =>
      response.writeHead(503, { "x-slack-no-retry": "1" }).end(),
    );
    const delivery = await slack.deliverEvent(message, { eventId: "Ev3", retryDelaysMs: fast });

    expect(delivery.attempts).toHaveLength(1);
    expect(app.seen).toHaveLength(1);
  });

  it("retries a refused connection as connection_failed until the app is back", async () => {
    const slack = await startSlackServer({ signingSecret: "s3cret" });
    closers.push(() => slack.close());
    const port = await freePort();
    slack.setAppUrl(`http://127.0.0.1:${port}/slack/events`);
    const seen: Seen[] = [];
    let server: Server | undefined;
    // The app comes up between the first attempt and the first retry.
    const delivery = slack.deliverEvent(message, { eventId: "Ev4", retryDelaysMs: [300, 50, 50] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    server = createServer((request, response) => {
      seen.push({
        retryNum: request.headers["x-slack-retry-num"] as string | undefined,
        retryReason: request.headers["x-slack-retry-reason"] as string | undefined,
        eventId: "",
      });
      request.resume();
      response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server?.listen(port, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => server?.close(() => resolve())));

    const result = await delivery;
    expect(result.attempts.map((attempt) => attempt.outcome)).toEqual(["connection_failed", "acked"]);
    expect(seen).toEqual([{ retryNum: "1", retryReason: "connection_failed", eventId: "" }]);
  });
});
