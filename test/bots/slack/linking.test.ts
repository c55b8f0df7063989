/**
 * A stranger links themselves on Slack with a one-time code, through the real Bolt app and the local Slack
 * server: `/link CODE` (acked at once, answered ephemerally) links and remembers the DM and team, then
 * /brief works; a reused or expired code gets the one refusal line, no data and no model call; `link CODE`
 * typed in the DM works too; self-signup off and on.
 */
import { expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { findUserByIdentity, findUserByName } from "../../../db/queries/users.ts";
import { createDbPorts } from "../../../db/stores/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { createLinking } from "../../../src/core/linking/linking.ts";
import { INVALID_CODE_TEXT } from "../../../src/core/linking/replies.ts";
import { LONDON, MODEL, START, seedTasks, seedWeather } from "../../core/fixture.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { directMessage, nextEventId, nextSlackUserId, slackSuite, startApp } from "./harness.ts";

const HOUR = 3_600_000;
const PROSE =
  'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue.';

function linkingFor(db: Database, clock: ReturnType<typeof fixedClock>, selfSignup = false) {
  const ports = createDbPorts(db);
  return createLinking({ invites: ports.invites, platformState: ports.platformState, clock, selfSignup });
}

describeEachDatabase("slack linking by code", (getDb) => {
  const clock = fixedClock(START);
  const suite = slackSuite(getDb, (db) => ({ clock, linking: linkingFor(db, clock) }));

  /** Sends `/link text` as `user` and returns the ephemeral answer. */
  async function link(user: string, text: string) {
    const ack = await suite.slack.sendCommand("/link", text, user);
    expect(ack.status).toBe(200);
    expect(ack.body).toBe("");
    const answer = await suite.slack.waitForResponse(ack.responseUrlId);
    expect(answer.body.response_type).toBe("ephemeral");
    return String(answer.body.text);
  }

  it("links a stranger with /link CODE, remembers the DM and team, then /brief works", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedTasks(db, user);
    await seedWeather(db);
    const { code } = await linkingFor(db, clock).invite(user.id);
    const stranger = nextSlackUserId();

    expect(await link(stranger, code)).toContain(`You're linked as ${user.name}.`);
    const linked = await findUserByIdentity(db, "slack", stranger);
    expect(linked?.user.id).toBe(user.id);
    expect(linked?.identity.chatId).toBe(suite.slack.dmChannelOf(stranger));
    expect(linked?.identity.teamId).toBe(suite.slack.teamId);

    suite.ollama.script(MODEL, [{ content: PROSE }]);
    await suite.slack.sendCommand("/brief", "morning", stranger);
    const parent = await suite.slack.waitForPost(
      (post) =>
        post.channel === suite.slack.dmChannelOf(stranger) &&
        JSON.stringify(post.blocks).includes("Renew passport"),
    );
    expect(parent.text).toContain("Renew passport");

    expect(await link(stranger, code)).toBe(
      `This account is already linked to ${user.name}; nothing changed.`,
    );
    await suite.running.slackApp.idle();
  });

  it("refuses a reused and an expired code with one line, no data and no model call", async () => {
    const db = getDb();
    const modelBefore = suite.ollama.chatRequests().length;
    const owner = await createTestUser(db, LONDON);
    await seedTasks(db, owner);
    const linking = linkingFor(db, clock);
    const used = await linking.invite(owner.id);
    expect(await link(nextSlackUserId(), used.code)).toContain("You're linked as");
    const late = await createTestUser(db, LONDON);
    const expired = await linking.invite(late.id, HOUR);

    const eve = nextSlackUserId();
    expect(await link(eve, used.code)).toBe(INVALID_CODE_TEXT);
    clock.advance(HOUR);
    try {
      expect(await link(eve, expired.code)).toBe(INVALID_CODE_TEXT);
    } finally {
      clock.advance(-HOUR);
    }
    expect(await findUserByIdentity(db, "slack", eve)).toBeUndefined();
    // Still a stranger: /brief is refused, pointing at /link.
    const brief = await suite.slack.sendCommand("/brief", "", eve);
    expect(String((await suite.slack.waitForResponse(brief.responseUrlId)).body.text)).toContain(
      "send /link CODE",
    );
    const toEve = suite.slack.responses.map((response) => JSON.stringify(response.body)).join("\n");
    expect(toEve).not.toContain(late.name);
    expect(toEve).not.toContain("Renew passport");
    expect(suite.ollama.chatRequests().length).toBe(modelBefore);
    await suite.running.slackApp.idle();
  });

  it("links with `link CODE` typed in the DM, and refuses a wrong one there", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const { code } = await linkingFor(db, clock).invite(user.id);
    const stranger = nextSlackUserId();
    const channel = suite.slack.dmChannelOf(stranger);

    await suite.slack.sendEvent(directMessage(stranger, "link ZZZZ-ZZZZ"), { eventId: nextEventId() });
    const refusal = await suite.slack.waitForPost((post) => post.channel === channel);
    expect(refusal.text).toBe(INVALID_CODE_TEXT);

    await suite.slack.sendEvent(directMessage(stranger, `link ${code.toLowerCase()}`), {
      eventId: nextEventId(),
    });
    const welcome = await suite.slack.waitForPost(
      (post) => post.channel === channel && post.text.startsWith("You're"),
    );
    expect(welcome.text).toContain(`You're linked as ${user.name}.`);
    expect((await findUserByIdentity(db, "slack", stranger))?.identity.chatId).toBe(channel);
    await suite.running.slackApp.idle();
  });

  it("self-signup: /link without a code asks for one when off, creates a UTC user when on", async () => {
    const db = getDb();
    const newcomer = nextSlackUserId();
    expect(await link(newcomer, "")).toBe(
      "Send /link followed by the code the owner gave you, like: /link K7QX-29MB",
    );
    expect(await findUserByIdentity(db, "slack", newcomer)).toBeUndefined();

    const open = await startApp(db, suite.slack, suite.ollama, {
      clock,
      linking: linkingFor(db, clock, true),
    });
    suite.slack.setAppUrl(open.url);
    try {
      const welcome = await link(newcomer, "");
      expect(welcome).toContain("/settings place <city>");
      const account = await findUserByIdentity(db, "slack", newcomer);
      expect(account?.user.timeZone).toBe("UTC");
      expect(welcome).toContain(`You're linked as ${account?.user.name}.`);
      expect(await findUserByName(db, account?.user.name ?? "")).toBeDefined();
    } finally {
      suite.slack.setAppUrl(suite.running.url);
      await open.close();
    }
  });
});
