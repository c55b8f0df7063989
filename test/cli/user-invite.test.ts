/**
 * `briefbot user invite` and `user add --invite`: the code, its expiry in the user's own time, how to use
 * it (with the Telegram deep link when the bot's username can be learned from the Telegram test server),
 * re-invites retiring the earlier code, and bad input refused in one line.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { findUserByIdentity } from "../../db/queries/users.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { createLinking } from "../../src/core/linking/linking.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";

const CODE = /[0-9A-Z]{4}-[0-9A-Z]{4}/;

describeEachDatabase("briefbot user invite", (getDb) => {
  let telegram: TelegramTestServer;
  beforeAll(async () => {
    telegram = await startTelegramServer({
      bot: { id: 4242, first_name: "Brief", username: "brief_test_bot" },
    });
  });
  afterAll(async () => {
    await telegram?.close();
  });
  const clock = fixedClock("2025-06-02T06:00:00Z");
  const run = cliHarness(getDb, { clock });
  const withTelegram = cliHarness(getDb, {
    clock,
    config: {
      telegram: {
        get token() {
          return telegram.token;
        },
        get apiRoot() {
          return telegram.url;
        },
        webhookUrl: undefined,
        webhookSecret: undefined,
      },
    },
  });
  const redeem = (code: string, externalUserId: string) => {
    const ports = createDbPorts(getDb());
    return createLinking({ invites: ports.invites, platformState: ports.platformState, clock }).link(
      { platform: "telegram", externalUserId },
      code,
    );
  };

  it("prints a code, its expiry in the user's zone, /link and the deep link with the bot's username", async () => {
    await run("user", "add", "iris", "--tz", "Europe/Lisbon");
    const result = await withTelegram("user", "invite", "iris");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const code = CODE.exec(result.stdout)?.[0] ?? "";
    expect(result.stdout.split("\n")).toEqual([
      `invite for iris: ${code}`,
      "  expires   Tue 3 Jun 2025 07:00 (Europe/Lisbon); works once",
      `  Telegram  open https://t.me/brief_test_bot?start=${code}, or send /link ${code} to the bot`,
      `  Slack     send /link ${code} to the app, or "link ${code}" in its DM`,
      "",
    ]);
    expect(await redeem(code, "81000001")).toMatchObject({
      kind: "linked",
      account: { user: { name: "iris" } },
    });
  });

  it("without Telegram configured prints the link with a placeholder and says why", async () => {
    await run("user", "add", "jon", "--tz", "UTC");
    const result = await run("user", "invite", "jon", "--expires", "90m");
    expect(result.code).toBe(0);
    const code = CODE.exec(result.stdout)?.[0] ?? "";
    expect(result.stdout).toContain("expires   Mon 2 Jun 2025 07:30 (UTC)");
    expect(result.stdout).toContain(`https://t.me/<bot username>?start=${code}`);
    expect(result.stdout).toContain("TELEGRAM_BOT_TOKEN is not set here");
  });

  it("re-inviting says the earlier code no longer works, and it doesn't", async () => {
    await run("user", "add", "kim", "--tz", "UTC");
    const first = CODE.exec((await run("user", "invite", "kim")).stdout)?.[0] ?? "";
    const second = await run("user", "invite", "kim");
    expect(second.stdout).toContain("an earlier unused code of kim no longer works");
    expect(await redeem(first, "81000002")).toEqual({ kind: "refused" });
    expect(await redeem(CODE.exec(second.stdout)?.[0] ?? "", "81000002")).toMatchObject({ kind: "linked" });
  });

  it("user add --invite prints the new user's code; --json folds it into the user", async () => {
    const added = await run("user", "add", "lea", "--tz", "Asia/Tokyo", "--invite");
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^added lea \(Asia\/Tokyo\)\ninvite for lea: [0-9A-Z]{4}-[0-9A-Z]{4}\n/);
    expect(added.stdout).toContain("expires   Tue 3 Jun 2025 15:00 (Asia/Tokyo)");

    const json = await run("user", "add", "max", "--tz", "UTC", "--invite", "--json");
    const parsed = JSON.parse(json.stdout) as { name: string; invite: { code: string; expiresAt: string } };
    expect(parsed.name).toBe("max");
    expect(parsed.invite.expiresAt).toBe("2025-06-03T06:00:00.000Z");
    expect(await redeem(parsed.invite.code, "81000003")).toMatchObject({ kind: "linked" });
    expect((await findUserByIdentity(getDb(), "telegram", "81000003"))?.user.name).toBe("max");
  });

  it("--json gives the code, expiry, replaced count and the deep link", async () => {
    await run("user", "add", "ona", "--tz", "UTC");
    const result = await withTelegram("user", "invite", "ona", "--expires", "2h", "--json");
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(parsed).toEqual({
      user: "ona",
      code: expect.stringMatching(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/),
      expiresAt: "2025-06-02T08:00:00.000Z",
      replaced: 0,
      telegramLink: `https://t.me/brief_test_bot?start=${String(parsed.code)}`,
    });
  });

  it("refuses a bad duration and an unknown user in one line", async () => {
    await run("user", "add", "ned", "--tz", "UTC");
    expect(await run("user", "invite", "ned", "--expires", "soon")).toEqual({
      code: 2,
      stdout: "",
      stderr: 'briefbot: --expires "soon" is not a duration like 30m, 24h or 7d\n',
    });
    expect((await run("user", "invite", "ned", "--expires", "31d")).stderr).toBe(
      'briefbot: --expires "31d" is longer than 30 days\n',
    );
    expect((await run("user", "invite", "ghost")).stderr).toBe(
      'briefbot: no user named "ghost" (see: briefbot user list)\n',
    );
  });
});
