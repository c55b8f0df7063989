import { createServer } from "node:http";
import { verifySlackRequest } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Listening, listen } from "../../servers/http.ts";
import { type SlackServer, startSlackServer } from "../../servers/slack-server.ts";

describe("slack test server", () => {
  let slack: SlackServer;
  let listening: Listening;
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  const app = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        headers: request.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
      });
      response.end();
    });
  });

  beforeAll(async () => {
    slack = await startSlackServer({ signingSecret: "secret" });
    listening = await listen(app);
    slack.setAppUrl(`${listening.url}/slack/events`);
  });
  afterAll(async () => {
    await slack.close();
    await listening.close();
  });

  const api = (method: string, body: string, headers: Record<string, string>) =>
    fetch(`${slack.apiUrl}${method}`, { method: "POST", body, headers }).then(async (response) => ({
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      json: (await response.json()) as Record<string, unknown>,
    }));

  it("signs inbound requests as Slack does, with the exact form content type", async () => {
    await slack.sendCommand("/brief", "morning", "U1");
    const request = received.at(-1);
    expect(request?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const verify = (secret: string) =>
      verifySlackRequest({
        signingSecret: secret,
        body: request?.body ?? "",
        headers: {
          "x-slack-signature": request?.headers["x-slack-signature"] ?? "",
          "x-slack-request-timestamp": Number(request?.headers["x-slack-request-timestamp"]),
        },
      });
    expect(() => verify("secret")).not.toThrow();
    expect(() => verify("other")).toThrow();
    expect(new URLSearchParams(request?.body).get("text")).toBe("morning");
  });

  it("takes form bodies with JSON-string blocks and JSON bodies, and checks the token", async () => {
    const form = new URLSearchParams({
      channel: "C1",
      text: "hi",
      blocks: JSON.stringify([{ type: "divider" }]),
    });
    const posted = await api("chat.postMessage", form.toString(), {
      authorization: `Bearer ${slack.botToken}`,
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(posted.json.ok).toBe(true);
    expect(slack.posts.at(-1)?.blocks).toEqual([{ type: "divider" }]);
    const json = await api(
      "chat.postMessage",
      JSON.stringify({ token: slack.botToken, channel: "C1", text: "again" }),
      {
        "content-type": "application/json",
      },
    );
    expect(String(json.json.ts) > String(posted.json.ts)).toBe(true);
    const wrong = await api("auth.test", "", { authorization: "Bearer nope" });
    expect(wrong).toMatchObject({ status: 200, json: { ok: false, error: "invalid_auth" } });
  });

  it("refuses oversized Block Kit and rate-limits on request", async () => {
    const headers = { authorization: `Bearer ${slack.botToken}`, "content-type": "application/json" };
    const many = Array.from({ length: 51 }, () => ({ type: "divider" }));
    expect(
      (await api("chat.postMessage", JSON.stringify({ channel: "C1", text: "x", blocks: many }), headers))
        .json.error,
    ).toBe("msg_blocks_too_long");
    const long = [{ type: "section", text: { type: "mrkdwn", text: "x".repeat(3001) } }];
    expect(
      (await api("chat.postMessage", JSON.stringify({ channel: "C1", text: "x", blocks: long }), headers))
        .json.error,
    ).toBe("invalid_blocks");
    slack.rateLimit("chat.postMessage", { times: 1, retryAfterSec: 3 });
    const limited = await api("chat.postMessage", JSON.stringify({ channel: "C1", text: "x" }), headers);
    expect(limited).toMatchObject({
      status: 429,
      retryAfter: "3",
      json: { ok: false, error: "ratelimited" },
    });
  });
});
