/**
 * /settings and /help through Bolt against the Slack test server: acked at once, answered ephemerally with
 * Block Kit buttons; a short form moving the morning (and the scheduler then posting at the new local time),
 * the pick list for an ambiguous place with the proposed zone; /help and the app manifest list the core's
 * command catalog.
 */
import { readFileSync } from "node:fs";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { getUser } from "../../../db/queries/users.ts";
import { briefingRuns } from "../../../db/schema/index.ts";
import { COMMAND_MENU } from "../../../src/core/command-menu.ts";
import { createOpenMeteoGeocoder } from "../../../src/sources/weather/geocoder.ts";
import { MODEL } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../../servers/open-meteo-server.ts";
import { tickAt } from "../scheduled-tick.ts";
import { directMessage, linkedSlackUser, nextEventId, slackSuite } from "./harness.ts";

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}

const buttonsOf = (body: Record<string, unknown>): Button[] =>
  ((body.blocks as Array<{ type: string; elements?: Button[] }> | undefined) ?? [])
    .filter((block) => block.type === "actions")
    .flatMap((block) => block.elements ?? []);

describe("slack-app-manifest.yml", () => {
  it("declares exactly the core catalog's commands, with their descriptions and usage hints", () => {
    const manifest = parse(
      readFileSync(new URL("../../../slack-app-manifest.yml", import.meta.url), "utf8"),
    ) as {
      features: {
        slash_commands: Array<{ command: string; url: string; description: string; usage_hint?: string }>;
      };
    };
    const declared = manifest.features.slash_commands.map((entry) => ({
      command: entry.command,
      description: entry.description,
      usage: entry.usage_hint ?? "",
    }));
    expect(declared).toEqual(
      COMMAND_MENU.map((entry) => ({
        command: `/${entry.command}`,
        description: entry.description,
        usage: entry.usage,
      })),
    );
    for (const entry of manifest.features.slash_commands) expect(entry.url).toMatch(/\/slack\/events$/);
  });

  it("grants the scopes the commands need: a DM to write in, and files for /export", () => {
    const manifest = parse(
      readFileSync(new URL("../../../slack-app-manifest.yml", import.meta.url), "utf8"),
    ) as { oauth_config: { scopes: { bot: string[] } } };
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(["commands", "chat:write", "im:write", "im:history", "files:write"]),
    );
  });
});

describeEachDatabase("slack /settings and /help", (getDb) => {
  let meteo: OpenMeteoServer;
  // Registered before the suite's: the geocoder needs the server's address when the app starts.
  beforeAll(async () => {
    meteo = await startOpenMeteoServer();
  });
  afterAll(async () => {
    await meteo?.close();
  });
  const suite = slackSuite(getDb, () => ({ geocoder: createOpenMeteoGeocoder(fetch, meteo.url) }));

  it("acks /settings at once and answers ephemerally with the settings and buttons", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    suite.running.clock.set("2025-06-02T04:00:00Z"); // Monday 05:00 in London
    const ack = await suite.slack.sendCommand("/settings", "", slackId);
    expect(ack.status).toBe(200);
    expect(ack.body).toBe("");
    const view = await suite.slack.waitForResponse(ack.responseUrlId);
    expect(view.body.response_type).toBe("ephemeral");
    expect(String(view.body.text)).toContain(
      "briefings: morning 07:00 · midday 12:30 · afternoon 16:30 · evening off",
    );
    expect(String(view.body.text)).toContain("next morning briefing: Mon 07:00");
    const buttons = buttonsOf(view.body);
    expect(new Set(buttons.map((button) => button.action_id)).size).toBe(buttons.length);
    expect(buttons.map((button) => button.value)).toEqual(
      expect.arrayContaining(["morning 06:30", "mode legacy"]),
    );

    // A press: the view is redrawn in place with the new mode, then the confirmation follows.
    const toggle = buttons.find((button) => button.value === "mode legacy");
    const message = { channel: suite.slack.dmChannelOf(slackId), ts: "1800000000.000300" };
    const pressed = await suite.slack.pressButton(
      toggle?.action_id ?? "",
      toggle?.value ?? "",
      slackId,
      message,
    );
    const posted = () => suite.slack.responses.filter((response) => response.id === pressed.responseUrlId);
    for (let waited = 0; posted().length < 2 && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [redrawn, confirmation] = posted();
    expect([redrawn?.body.replace_original, confirmation?.body.replace_original]).toEqual([true, false]);
    expect(String(redrawn?.body.text)).toContain("mode: legacy");
    expect(buttonsOf(redrawn?.body ?? {}).map((button) => button.value)).toContain("mode agentic");
    expect(String(confirmation?.body.text)).toMatch(/^Briefing mode: legacy/);
  });

  it("/settings morning 06:45 moves the slot, and the scheduler posts the next briefing at 06:45 local", {
    timeout: 60_000,
  }, async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    suite.running.clock.set("2025-06-02T04:00:00Z");
    const ack = await suite.slack.sendCommand("/settings", "morning 06:45", slackId);
    const reply = await suite.slack.waitForResponse(ack.responseUrlId);
    expect(reply.body.text).toBe(
      "Morning briefing at 06:45 (Europe/London).\nnext morning briefing: Mon 06:45",
    );
    expect((await getUser(db, user.id))?.slots.morning).toBe("06:45");

    suite.ollama.setModel(MODEL, { reply: () => ({ content: "Good morning." }) });
    await tickAt(
      db,
      suite.running.clock,
      suite.ollama.url,
      suite.running.slackApp.sender,
      "2025-06-02T05:44:00Z",
    );
    const mine = () =>
      db
        .select()
        .from(briefingRuns)
        .where(and(eq(briefingRuns.userId, user.id), eq(briefingRuns.slot, "morning")));
    expect(await mine()).toEqual([]);
    await tickAt(
      db,
      suite.running.clock,
      suite.ollama.url,
      suite.running.slackApp.sender,
      "2025-06-02T05:45:00Z",
    );
    expect((await mine()).map((run) => [run.claimedAt.toISOString(), run.state])).toEqual([
      ["2025-06-02T05:45:00.000Z", "delivered"],
    ]);
    await suite.slack.waitForPost(
      (post) => post.channel === suite.slack.dmChannelOf(slackId) && post.text.includes("Good morning."),
    );
  });

  it("offers a pick list for an ambiguous place; a press sets it and proposes the zone, another accepts it", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    const ack = await suite.slack.sendCommand("/settings", "place Springfield", slackId);
    const list = await suite.slack.waitForResponse(ack.responseUrlId);
    expect(String(list.body.text).split("\n")[0]).toBe("Which Springfield?");
    const candidates = buttonsOf(list.body);
    expect(candidates.map((button) => button.text.text)).toEqual([
      "Springfield, Missouri, United States",
      "Springfield, Massachusetts, United States",
      "Springfield, Illinois, United States",
      "Springfield, Ohio, United States",
      "Springfield, Oregon, United States",
    ]);
    const illinois = candidates[2];
    const message = { channel: suite.slack.dmChannelOf(slackId), ts: "1800000000.000200" };
    const pressed = await suite.slack.pressButton(
      illinois?.action_id ?? "",
      illinois?.value ?? "",
      slackId,
      message,
    );
    expect(pressed.status).toBe(200);
    const proposal = await suite.slack.waitForResponse(pressed.responseUrlId);
    // The answer replaces the list, so it cannot be picked from twice.
    expect(proposal.body.replace_original).toBe(true);
    expect(String(proposal.body.text)).toContain(
      "Its time zone is America/Chicago; your briefings follow Europe/London.",
    );
    const zoneButtons = buttonsOf(proposal.body);
    expect(zoneButtons.map((button) => [button.text.text, button.value])).toEqual([
      ["Use America/Chicago", "zone America/Chicago"],
      ["Keep Europe/London", "zone Europe/London"],
    ]);
    expect((await getUser(db, user.id))?.locationName).toBe("Springfield, Illinois, United States");

    const use = zoneButtons[0];
    const accepted = await suite.slack.pressButton(use?.action_id ?? "", use?.value ?? "", slackId, message);
    const done = await suite.slack.waitForResponse(accepted.responseUrlId);
    expect(String(done.body.text)).toMatch(
      /^Time zone: America\/Chicago; your briefing times are now in America\/Chicago\./,
    );
    expect((await getUser(db, user.id))?.timeZone).toBe("America/Chicago");
  });

  it("refuses bad input in one line, and refuses strangers", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const bad = await suite.slack.sendCommand("/settings", "midday 12:75", slackId);
    expect((await suite.slack.waitForResponse(bad.responseUrlId)).body.text).toBe(
      'Midday needs a time as HH:MM (24-hour) or "off", e.g. /settings midday off',
    );
    const stranger = await suite.slack.sendCommand("/settings", "morning 06:00", "U0STRANGER1");
    expect(String((await suite.slack.waitForResponse(stranger.responseUrlId)).body.text)).toMatch(
      /^Sorry, I only talk to people linked/,
    );
  });

  it("/help and help in the DM list every command of the catalog", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const ack = await suite.slack.sendCommand("/help", "", slackId);
    const help = String((await suite.slack.waitForResponse(ack.responseUrlId)).body.text);
    for (const entry of COMMAND_MENU) expect(help).toContain(`/${entry.command}`);

    await suite.slack.sendEvent(directMessage(slackId, "help"), { eventId: nextEventId() });
    const posted = await suite.slack.waitForPost(
      (post) => post.channel === suite.slack.dmChannelOf(slackId) && post.text.includes("/settings"),
    );
    for (const entry of COMMAND_MENU) expect(posted.text).toContain(`/${entry.command}`);
  });
});
