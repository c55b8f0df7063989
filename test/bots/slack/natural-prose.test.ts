/**
 * A scripted model writes natural prose — honest sentences and one lie of every kind the gate stops
 * (test/core/grounding/corpus/natural-day.ts) — through the real Slack adapter (Bolt against the Slack test
 * server): the briefing and a DM answer carry every honest sentence and no lie, in any version of any post.
 */
import { expect, it } from "vitest";
import { ACTION_RECEIPTS } from "../../../bots/slack/format.ts";
import { MODEL } from "../../core/fixture.ts";
import {
  HONEST_SENTENCES,
  LIES,
  naturalDraft,
  plain,
  seedNaturalDay,
} from "../../core/grounding/corpus/natural-day.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { directMessage, linkedSlackUser, nextEventId, slackSuite } from "./harness.ts";

const decode = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

describeEachDatabase("slack: natural prose reaches the user only as far as the receipts back it", (getDb) => {
  const suite = slackSuite(getDb);

  it("delivers the honest sentences of a briefing and a DM answer, and no lie of any kind", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedNaturalDay(db, user);
    const draft = naturalDraft();
    const channel = suite.slack.dmChannelOf(slackId);

    suite.ollama.script(MODEL, [{ content: draft }, { content: draft }]);
    await suite.slack.sendCommand("/brief", "morning", slackId);
    const briefing = await suite.slack.waitForPost(
      (post) => post.channel === channel && JSON.stringify(post.blocks).includes(ACTION_RECEIPTS),
    );
    await suite.running.slackApp.idle();
    for (const sentence of HONEST_SENTENCES) expect(plain(decode(briefing.text))).toContain(plain(sentence));

    suite.ollama.script(MODEL, [{ content: draft }, { content: draft }]);
    const before = suite.slack.posts.length;
    await suite.slack.sendEvent(directMessage(slackId, "what's on today?"), { eventId: nextEventId() });
    await suite.running.slackApp.idle();
    const placeholder = suite.slack.posts.slice(before).find((post) => post.channel === channel);
    if (!placeholder) throw new Error("no answer posted");
    const answer = await suite.slack.waitForEdit(
      (post) => post.ts === placeholder.ts && !post.text.includes("thinking"),
    );
    for (const sentence of HONEST_SENTENCES) expect(plain(decode(answer.text))).toContain(plain(sentence));

    const shown = suite.slack.posts
      .filter((post) => post.channel === channel)
      .flatMap((post) => post.history.map((version) => plain(decode(version.text))));
    for (const [kind, lie] of Object.entries(LIES)) {
      expect(
        shown.some((text) => text.includes(plain(lie))),
        kind,
      ).toBe(false);
    }
  });
});
