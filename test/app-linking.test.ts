/**
 * The composed bot wires linking through: with `access.self_signup` (what `--allow-self-signup` sets) a
 * stranger's bare `/start` creates their user; off by default, the same `/start` is refused and a code from
 * `briefbot user invite` links instead. `startApp` with the Telegram test server, as the operator runs it.
 */
import { expect, it } from "vitest";
import { findUserByIdentity } from "../db/queries/users.ts";
import { createDbPorts } from "../db/stores/index.ts";
import { startApp } from "../src/app.ts";
import { type Config, loadConfig } from "../src/config/config.ts";
import { fixedClock } from "../src/core/clock.ts";
import { createLinking } from "../src/core/linking/linking.ts";
import { silentLogger } from "../src/logger.ts";
import { appSuite } from "./helpers/app-suite.ts";
import { createTestUser } from "./helpers/database.ts";
import type { TestUser } from "./servers/telegram-server.ts";

const suite = appSuite();
const clock = fixedClock("2026-12-01T12:00:00Z");

function configWith(yaml: string): Config {
  const env = {
    OLLAMA_HOST: suite.ollama.url,
    TELEGRAM_BOT_TOKEN: suite.telegram.token,
    TELEGRAM_API_ROOT: suite.telegram.url,
    BRIEFBOT_CONFIG: "/etc/briefbot.yaml",
  };
  return { ...loadConfig(env, () => yaml), port: 0 };
}

async function withApp(config: Config, body: () => Promise<void>): Promise<void> {
  const app = await startApp({
    db: suite.database.open.db,
    database: suite.database.open,
    config,
    clock,
    fetch: globalThis.fetch,
    logger: silentLogger,
  });
  try {
    await body();
  } finally {
    await app.stop();
  }
}

async function say(account: TestUser, text: string): Promise<string> {
  const before = suite.telegram.chat(account.id).botMessages().length;
  suite.telegram.sendUserMessage(account, text);
  const post = await suite.telegram.waitFor(() => suite.telegram.chat(account.id).botMessages()[before]);
  return post.text;
}

it("is off by default: a bare /start is refused, an invite code links", async () => {
  const config = configWith("");
  expect(config.access.selfSignup).toBe(false);
  const db = suite.database.open.db;
  const owner = await createTestUser(db, { timeZone: "Europe/London" });
  const ports = createDbPorts(db);
  const { code } = await createLinking({
    invites: ports.invites,
    platformState: ports.platformState,
    clock,
  }).invite(owner.id);
  const una: TestUser = { id: 5151, first_name: "Una", username: "una" };
  suite.telegram.addChat(una);
  await withApp(config, async () => {
    expect(await say(una, "/start")).toContain("/link CODE");
    expect(await findUserByIdentity(db, "telegram", "5151")).toBeUndefined();
    expect(await say(una, `/start ${code}`)).toContain(`You're linked as ${owner.name}.`);
  });
  expect((await findUserByIdentity(db, "telegram", "5151"))?.identity.chatId).toBe("5151");
});

it("access.self_signup: true lets a stranger's /start create a UTC user", async () => {
  const config = configWith("access:\n  self_signup: true\n");
  expect(config.access.selfSignup).toBe(true);
  const vic: TestUser = { id: 6161, first_name: "Vic", username: "vic_h" };
  suite.telegram.addChat(vic);
  await withApp(config, async () => {
    expect(await say(vic, "/start")).toContain("You're linked as vic_h.");
  });
  const account = await findUserByIdentity(suite.database.open.db, "telegram", "6161");
  expect(account?.user).toMatchObject({ name: "vic_h", timeZone: "UTC" });
});

it("refuses a config value that is not true or false", () => {
  expect(() => configWith("access:\n  self_signup: yes please\n")).toThrow(
    "BRIEFBOT_CONFIG: access.self_signup must be true or false",
  );
});
