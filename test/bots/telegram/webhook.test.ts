import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { and, eq } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { inboundUpdates } from "../../../db/schema/index.ts";
import { createInboundUpdates, createLeases } from "../../../db/stores/index.ts";
import { createHttpServer, type HttpServer } from "../../../src/server/http-server.ts";
import { createTestDatabase, describeEachDatabase } from "../../helpers/database.ts";
import { expectPerChatOrder, type HarnessOptions, linkedUser, telegramSuite } from "./harness.ts";

const SECRET = "s3cret_Token-1";

let http: HttpServer | undefined;

afterEach(async () => {
  await http?.close();
  http = undefined;
});

/** The shared HTTP server with the bot's webhook handler mounted at /telegram/webhook. */
async function startWebhookBot(suite: ReturnType<typeof telegramSuite>, bot: HarnessOptions["bot"] = {}) {
  let handler: ((request: IncomingMessage, response: ServerResponse) => Promise<void>) | undefined;
  http = createHttpServer({
    routes: {
      "/telegram/webhook": (request, response) => {
        if (!handler) throw new Error("webhook handler not mounted");
        return handler(request, response);
      },
    },
    health: async () => ({
      ok: true,
      database: { ok: true },
      scheduler: { ok: true, ticking: true, lastTickAt: null },
      checkedAt: new Date(0).toISOString(),
    }),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
  });
  const port = await http.listen(0, "127.0.0.1");
  const url = `http://127.0.0.1:${port}/telegram/webhook`;
  const harness = await suite.start({ start: false, webhookUrl: url, webhookSecret: SECRET, bot });
  handler = harness.app.webhookHandler;
  expect(handler).toBeDefined();
  return { harness, url };
}

describeEachDatabase("telegram webhook mode", (getDb) => {
  const suite = telegramSuite(getDb);
  it("registers the webhook with its secret and handles pushed updates", async () => {
    const { account } = await linkedUser(getDb());
    const { harness: h, url } = await startWebhookBot(suite);
    await h.app.start();
    expect(h.telegram.webhook()).toEqual({ url, secretToken: SECRET });
    h.telegram.sendUserMessage(account, "/start");
    const help = await h.telegram.waitFor(() => h.telegram.chat(account.id).botMessages()[0]);
    expect(help.text).toContain("/brief");
  });

  it("handles one chat's pushed updates in order while other chats are answered meanwhile", async () => {
    const { account } = await linkedUser(getDb());
    const { harness: h } = await startWebhookBot(suite);
    await h.app.start();
    h.telegram.addChat(account);
    await expectPerChatOrder(getDb(), h, account);
  });

  it("rejects a wrong or missing secret with 401 and ignores the update", async () => {
    const { account } = await linkedUser(getDb());
    const { harness: h, url } = await startWebhookBot(suite);
    h.telegram.addChat(account);
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: 1_717_000_000,
        from: { id: account.id, is_bot: false, first_name: account.first_name },
        chat: { id: account.id, type: "private", first_name: account.first_name },
        text: "/start",
        entities: [{ type: "bot_command", offset: 0, length: 6 }],
      },
    };
    const attempts: Array<Record<string, string>> = [{ "x-telegram-bot-api-secret-token": "wrong" }, {}];
    for (const headers of attempts) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(update),
      });
      expect(response.status).toBe(401);
    }
    await h.app.idle();
    expect(h.telegram.sent).toHaveLength(0);

    const accepted = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
      body: JSON.stringify(update),
    });
    expect(accepted.status).toBe(200);
    await h.app.idle();
    expect(h.telegram.chat(account.id).botMessages()[0]?.text).toContain("/brief");
  });

  it("answers a malformed body with the right secret with 400, and still 401 without the secret", async () => {
    const { account } = await linkedUser(getDb());
    const { harness: h, url } = await startWebhookBot(suite);
    const post = (body: string, secret?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}),
        },
        body,
      });
    const malformed = [
      "{not json",
      "[1,2,3]",
      '{"message":{"text":"no update_id"}}',
      '"a string"',
      "null",
      "",
    ];
    for (const body of malformed) {
      const response = await post(body, SECRET);
      expect(response.status, body).toBe(400);
      expect(await response.text()).toMatch(/^body is not (JSON|a Telegram update)/);
      // Without the secret nothing about the body is told.
      expect((await post(body)).status, body).toBe(401);
    }
    const huge = await post(`{"update_id":1,"pad":"${"x".repeat(2 * 1024 * 1024)}"}`, SECRET);
    expect(huge.status).toBe(413);
    await h.app.idle();
    expect(h.telegram.sent).toHaveLength(0);
    // The bot is unharmed: a real update right after is handled.
    h.telegram.addChat(account);
    const ok = await post(
      JSON.stringify({
        update_id: 2,
        message: {
          message_id: 1,
          date: 1_717_000_000,
          from: { id: account.id, is_bot: false, first_name: account.first_name },
          chat: { id: account.id, type: "private", first_name: account.first_name },
          text: "/start",
          entities: [{ type: "bot_command", offset: 0, length: 6 }],
        },
      }),
      SECRET,
    );
    expect(ok.status).toBe(200);
    await h.app.idle();
    expect(h.telegram.chat(account.id).botMessages()[0]?.text).toContain("/brief");
  });

  /** Updates kept in `db` under a source of this test's own, by a live process. */
  async function durableIn(db: Database, clockNow: Date) {
    const owner = `webhook-${randomBytes(4).toString("hex")}`;
    const source = `telegram:test-${randomBytes(4).toString("hex")}`;
    await createLeases(db).acquire(`process:${owner}`, owner, 3_600_000, clockNow);
    return { updates: createInboundUpdates(db), source, owner, everyOtherOwner: false };
  }

  const startUpdate = (account: { id: number; first_name: string }, updateId: number) => ({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 1_717_000_000,
      from: { id: account.id, is_bot: false, first_name: account.first_name },
      chat: { id: account.id, type: "private", first_name: account.first_name },
      text: "/start",
      entities: [{ type: "bot_command", offset: 0, length: 6 }],
    },
  });
  const post = async (url: string, update: unknown) =>
    (
      await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body: JSON.stringify(update),
      })
    ).status;

  it("stores a posted update before its 200, marks it handled, and handles a re-post not again", async () => {
    const db = getDb();
    const { account } = await linkedUser(db);
    const clock = new Date("2025-06-02T06:00:00Z");
    const durable = await durableIn(db, clock);
    const { harness: h, url } = await startWebhookBot(suite, {
      durable: { ...durable, clock: { now: () => clock } },
    });
    h.telegram.addChat(account);
    const update = startUpdate(account, 41);
    expect(await Promise.all([post(url, update), post(url, update)])).toEqual([200, 200]);
    await h.app.idle();
    expect(await post(url, update)).toBe(200);
    await h.app.idle();

    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(1);
    const [row] = await db
      .select()
      .from(inboundUpdates)
      .where(and(eq(inboundUpdates.source, durable.source), eq(inboundUpdates.updateId, "41")));
    expect(row).toMatchObject({ claimedBy: durable.owner, handledAt: clock, payload: null });
  });

  it("answers 500 when the update cannot be stored, so Telegram posts it again, and handles nothing", async () => {
    const { account } = await linkedUser(getDb());
    // A database that is gone: every store fails.
    const gone = await createTestDatabase("pglite");
    const clock = new Date("2025-06-02T06:00:00Z");
    const durable = await durableIn(gone.open.db, clock);
    await gone.dispose();
    const { harness: h, url } = await startWebhookBot(suite, {
      durable: { ...durable, clock: { now: () => clock } },
    });
    h.telegram.addChat(account);
    expect(await post(url, startUpdate(account, 42))).toBe(500);
    await h.app.idle();
    expect(h.telegram.chat(account.id).botMessages()).toHaveLength(0);
  });
});
