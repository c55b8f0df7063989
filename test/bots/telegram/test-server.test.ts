import { Bot, GrammyError } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { startTelegramServer, type TelegramTestServer } from "../../servers/telegram-server.ts";

let server: TelegramTestServer;

afterEach(async () => {
  await server?.close();
});

async function call(method: string, body?: unknown, init: { token?: string; raw?: RequestInit } = {}) {
  const response = await fetch(`${server.url}/bot${init.token ?? server.token}/${method}`, {
    method: "POST",
    ...(body !== undefined
      ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
      : {}),
    ...init.raw,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe("telegram test server: envelopes and parameters", () => {
  it("answers getMe, case-insensitively, with the bot user", async () => {
    server = await startTelegramServer();
    const reply = await call("GETME");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      ok: true,
      result: { is_bot: true, username: server.botInfo.username },
    });
  });

  it("rejects a wrong token with 401 and an unknown method with 404, as JSON", async () => {
    server = await startTelegramServer();
    const wrong = await call("getMe", undefined, { token: "1:wrong" });
    expect(wrong).toMatchObject({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    const unknown = await call("sendTelepathy", {});
    expect(unknown).toMatchObject({ status: 404, body: { ok: false, error_code: 404 } });
  });

  it("accepts urlencoded and query parameters with nested objects as JSON strings", async () => {
    server = await startTelegramServer();
    server.addChat({ id: 42, first_name: "Ann" });
    const form = new URLSearchParams({
      chat_id: "42",
      text: "hello",
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: "A", callback_data: "a" }]] }),
    });
    const response = await fetch(`${server.url}/bot${server.token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(response.status).toBe(200);
    const query = await fetch(`${server.url}/bot${server.token}/sendMessage?chat_id=42&text=again`);
    expect(query.status).toBe(200);
    expect(
      server
        .chat(42)
        .botMessages()
        .map((post) => [post.messageId, post.text]),
    ).toEqual([
      [1, "hello"],
      [2, "again"],
    ]);
    expect(server.sent[0]?.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data).toBe("a");
  });
});

describe("telegram test server: sendMessage validation", () => {
  it("refuses over-long text, bad HTML, long callback data, unknown chats and missing reply targets", async () => {
    server = await startTelegramServer();
    server.addChat({ id: 7, first_name: "Bo" });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ chat_id: 7, text: "x".repeat(4097) }, /^Bad Request: message is too long$/],
      [
        { chat_id: 7, text: "<b>open", parse_mode: "HTML" },
        /^Bad Request: can't parse entities: Can't find end tag/,
      ],
      [{ chat_id: 7, text: "a < b", parse_mode: "HTML" }, /can't parse entities: Unclosed start tag/],
      [{ chat_id: 7, text: "a < b > c", parse_mode: "HTML" }, /can't parse entities: Unsupported start tag/],
      [{ chat_id: 7, text: "a & b", parse_mode: "HTML" }, /can't parse entities: Unsupported HTML entity/],
      [{ chat_id: 7, text: "<b>x</i>", parse_mode: "HTML" }, /Unmatched end tag/],
      [
        {
          chat_id: 7,
          text: "k",
          reply_markup: { inline_keyboard: [[{ text: "k", callback_data: "x".repeat(65) }]] },
        },
        /^Bad Request: BUTTON_DATA_INVALID$/,
      ],
      [{ chat_id: 8, text: "who" }, /^Bad Request: chat not found$/],
      [{ chat_id: 7, text: "re", reply_parameters: { message_id: 99 } }, /message to be replied not found/],
      [{ chat_id: 7, text: "  " }, /message text is empty/],
    ];
    for (const [body, description] of cases) {
      const reply = await call("sendMessage", body);
      expect(reply.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(reply.body.description).toMatch(description);
    }
    expect(server.sent).toHaveLength(0);
  });

  it("parses valid HTML into text and entities and counts the limit after parsing", async () => {
    server = await startTelegramServer();
    server.addChat({ id: 7, first_name: "Bo" });
    const escaped = "&lt;b&gt; &amp; ".repeat(500);
    const reply = await call("sendMessage", { chat_id: 7, text: `<b>Hi</b> ${escaped}`, parse_mode: "HTML" });
    expect(reply.status).toBe(200);
    const result = reply.body.result as { text: string; entities: unknown[]; from: { is_bot: boolean } };
    expect(result.text.startsWith("Hi <b> & ")).toBe(true);
    expect(result.entities).toEqual([{ type: "bold", offset: 0, length: 2 }]);
    expect(result.from.is_bot).toBe(true);
  });

  it("says 'message is not modified' for an identical edit", async () => {
    server = await startTelegramServer();
    server.addChat({ id: 7, first_name: "Bo" });
    await call("sendMessage", { chat_id: 7, text: "same" });
    const edit = await call("editMessageText", { chat_id: 7, message_id: 1, text: "same" });
    expect(edit.status).toBe(400);
    expect(edit.body.description).toMatch(/message is not modified/);
    const changed = await call("editMessageText", { chat_id: 7, message_id: 1, text: "new" });
    expect(changed.status).toBe(200);
    expect(server.sent[0]).toMatchObject({ text: "new", edits: 1 });
  });
});

describe("telegram test server: failures on demand", () => {
  it("rate-limits per chat with retry_after in the body and the Retry-After header", async () => {
    server = await startTelegramServer();
    server.addChat({ id: 7, first_name: "Bo" });
    server.setRateLimits({ perChat: { max: 1, windowMs: 60_000 }, retryAfterSeconds: 2 });
    expect((await call("sendMessage", { chat_id: 7, text: "one" })).status).toBe(200);
    const limited = await call("sendMessage", { chat_id: 7, text: "two" });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error_code: 429, parameters: { retry_after: 2 } });
    expect(limited.headers.get("retry-after")).toBe("2");
  });

  it("answers 403 for a blocked chat and scripted 5xx once", async () => {
    server = await startTelegramServer();
    server.addChat({ id: 7, first_name: "Bo" });
    server.blockChat(7);
    const blocked = await call("sendMessage", { chat_id: 7, text: "hi" });
    expect(blocked).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was blocked by the user" },
    });
    server.addChat({ id: 8, first_name: "Cy" });
    server.failNext({ method: "sendMessage", status: 502 });
    expect((await call("sendMessage", { chat_id: 8, text: "hi" })).status).toBe(502);
    expect((await call("sendMessage", { chat_id: 8, text: "hi" })).status).toBe(200);
  });
});

describe("telegram test server: updates", () => {
  it("holds a long poll until an update arrives and confirms by offset", async () => {
    server = await startTelegramServer();
    const poll = call("getUpdates", { timeout: 30 });
    await server.waitFor(() => server.callsTo("getUpdates").length === 1);
    const { updateId, message } = server.sendUserMessage(
      { id: 5, first_name: "Di" },
      "/brief@briefbot_test_bot midday",
    );
    const first = await poll;
    const updates = first.body.result as Array<{ update_id: number; message: { entities: unknown[] } }>;
    expect(updates.map((update) => update.update_id)).toEqual([updateId]);
    expect(updates[0]?.message.entities).toEqual([{ type: "bot_command", offset: 0, length: 24 }]);
    expect(message.chat).toEqual({ id: 5, type: "private", first_name: "Di" });
    const empty = await call("getUpdates", { offset: updateId + 1, timeout: 0 });
    expect(empty.body.result).toEqual([]);
    await server.waitUntilProcessed(updateId);
  });

  it("ends an older long poll with 409 when a newer one arrives", async () => {
    server = await startTelegramServer();
    const older = call("getUpdates", { timeout: 30 });
    await server.waitFor(() => server.callsTo("getUpdates").length === 1);
    const newer = call("getUpdates", { timeout: 1 });
    expect((await older).status).toBe(409);
    expect((await newer).body.result).toEqual([]);
  });

  it("drives a real grammY bot: commands with entities, replies and callback queries", async () => {
    server = await startTelegramServer();
    const bot = new Bot(server.token, { client: { apiRoot: server.url } });
    bot.command("echo", (ctx) =>
      ctx.reply(`echo ${ctx.match}`, { reply_parameters: { message_id: ctx.msg.message_id } }),
    );
    bot.on("callback_query:data", (ctx) =>
      ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` }),
    );
    const stopped = new Promise<void>((resolve, reject) => {
      bot.start({ onStart: () => resolve() }).catch(reject);
    });
    await stopped;
    try {
      const { message } = server.sendUserMessage(9, "/echo hi there");
      const echo = await server.waitFor(() => server.chat(9).botMessages()[0]);
      expect(echo).toMatchObject({ text: "echo hi there", replyTo: message.message_id });
      await bot.api.sendMessage(9, "pick", {
        reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
      });
      const pick = server.chat(9).botMessages()[1];
      if (!pick) throw new Error("no pick message");
      const { queryId } = server.pressButton(9, pick.messageId, "a");
      const answer = await server.waitFor(() => server.callbackAnswers.find((entry) => entry.id === queryId));
      expect(answer.text).toBe("got a");
      await expect(bot.api.sendMessage(9, "<b>", { parse_mode: "HTML" })).rejects.toBeInstanceOf(GrammyError);
    } finally {
      await bot.stop();
    }
  });
});
