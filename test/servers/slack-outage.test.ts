/** The Slack test server's outage switch, as Slack's WebClient sees it: 502s or reset connections, then service. */
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type SlackServer, startSlackServer } from "./slack-server.ts";

let server: SlackServer;
let client: webApi.WebClient;

beforeAll(async () => {
  server = await startSlackServer({ signingSecret: "s3cret" });
  client = new webApi.WebClient(server.botToken, {
    slackApiUrl: server.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: webApi.LogLevel.ERROR,
  });
});
afterAll(async () => {
  await server?.close();
});

it("answers every call 502 during a 5xx outage and serves again after", async () => {
  server.outage(true);
  await expect(client.auth.test()).rejects.toMatchObject({
    code: "slack_webapi_http_error",
    statusCode: 502,
  });
  await expect(client.chat.postMessage({ channel: "C0GENERAL", text: "hello" })).rejects.toMatchObject({
    statusCode: 502,
  });
  expect(server.posts).toHaveLength(0);
  expect(server.callsTo("auth.test").at(-1)?.status).toBe(502);

  server.outage(false);
  expect((await client.auth.test()).ok).toBe(true);
});

it("resets every connection during a refusing outage and serves again after", async () => {
  server.outage(true, "refuse");
  await expect(client.auth.test()).rejects.toMatchObject({ code: "slack_webapi_request_error" });

  server.outage(false);
  expect((await client.auth.test()).ok).toBe(true);
});
