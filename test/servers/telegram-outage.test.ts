/** The Telegram test server's outage switch, as grammY sees it: 502s or reset connections, then service again. */
import { Api, GrammyError, HttpError } from "grammy";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTelegramServer, type TelegramTestServer } from "./telegram-server.ts";

let server: TelegramTestServer;
let api: Api;

beforeAll(async () => {
  server = await startTelegramServer();
  api = new Api(server.token, { apiRoot: server.url });
});
afterAll(async () => {
  await server?.close();
});

it("answers every method 502 during a 5xx outage, the long poll open when it began too, and serves again after", async () => {
  const polling = api.getUpdates({ timeout: 30 }).then(
    () => "answered",
    (error: unknown) => error,
  );
  await server.waitFor(() => server.pollStats().held);
  server.outage(true);

  const ended = await polling;
  expect(ended).toBeInstanceOf(GrammyError);
  expect(ended).toMatchObject({ error_code: 502, description: "Bad Gateway" });
  await expect(api.getMe()).rejects.toMatchObject({ error_code: 502 });
  await expect(api.sendMessage(1, "hello")).rejects.toMatchObject({ error_code: 502 });
  expect(server.sent).toHaveLength(0);
  expect(server.callsTo("getme").at(-1)?.status).toBe(502);

  server.outage(false);
  expect((await api.getMe()).username).toBe(server.botInfo.username);
});

it("resets every connection during a refusing outage, and serves again after", async () => {
  server.outage(true, "refuse");
  const failed = await api.getMe().catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(HttpError);

  server.outage(false);
  expect((await api.getMe()).username).toBe(server.botInfo.username);
});
