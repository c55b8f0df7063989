import { afterAll, beforeAll, expect, it } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { registerBriefCommands } from "../../src/cli/commands/brief.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { LONDON, MODEL, START, startModelServer } from "../core/fixture.ts";
import { cliHarness } from "../helpers/cli.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type OllamaTestServer, refusedUrl } from "../servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

let ollama: OllamaTestServer;
let telegram: TelegramTestServer;
/** Nothing listens here: the refresh before a briefing fails fast and the briefing goes ahead. */
let noWeatherService: string;
beforeAll(async () => {
  noWeatherService = await refusedUrl();
  ollama = await startModelServer();
  telegram = await startTelegramServer();
});
afterAll(async () => {
  await telegram.close();
  await ollama.close();
});

describeEachDatabase("briefbot brief --deliver", (getDb) => {
  const cli = () =>
    cliHarness(getDb, {
      env: {
        OLLAMA_HOST: ollama.url,
        BRIEFBOT_MODEL: MODEL,
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.url,
        OPEN_METEO_URL: noWeatherService,
      },
      clock: fixedClock(START),
      families: [registerBriefCommands],
    });
  let chatId = 880_000 + Math.floor(Math.random() * 1000);

  it("posts the briefing to the user's Telegram through the outbox and says where", async () => {
    const db = getDb();
    chatId += 1;
    const user = await createTestUser(db, LONDON);
    await linkIdentity(db, user.id, {
      platform: "telegram",
      externalUserId: String(chatId),
      chatId: String(chatId),
    });
    telegram.addChat({ id: chatId, first_name: "Ann" });
    ollama.script(MODEL, [{ content: "Nothing on your calendar today and no tasks due." }]);
    const result = await cli()("brief", "--user", user.name, "--slot", "morning", "--deliver");
    expect(result.code).toBe(0);
    const [post] = telegram.chat(chatId).botMessages();
    expect(post?.text).toContain("Nothing on your calendar today");
    expect(result.stdout).toContain(`delivered to telegram ${chatId} (message ${post?.messageId})`);
  });

  it("reports a platform failure instead of pretending it was delivered", async () => {
    const db = getDb();
    chatId += 1;
    const user = await createTestUser(db, LONDON);
    await linkIdentity(db, user.id, {
      platform: "telegram",
      externalUserId: String(chatId),
      chatId: String(chatId),
    });
    telegram.addChat({ id: chatId, first_name: "Bo" });
    telegram.blockChat(chatId);
    ollama.script(MODEL, [{ content: "Nothing on your calendar today." }]);
    const result = await cli()("brief", "--user", user.name, "--slot", "morning", "--deliver");
    expect(result.stdout).toMatch(new RegExp(`telegram ${chatId}: failed — .*blocked by the user`));
    expect(telegram.chat(chatId).botMessages()).toHaveLength(0);
  });

  it("says so when the user has no platform linked", async () => {
    const user = await createTestUser(getDb(), LONDON);
    ollama.script(MODEL, [{ content: "Nothing on your calendar today." }]);
    const result = await cli()("brief", "--user", user.name, "--slot", "morning", "--deliver");
    expect(result.stdout).toContain("not delivered: no Telegram or Slack account is linked to this user");
  });
});
