/**
 * `/export` and `/forget` through the real Bolt app against the Slack test server: the file goes up with
 * files.uploadV2 (getUploadURLExternal → upload URL → completeUploadExternal) and is read back from the bytes
 * the server received.
 */
import { expect, it } from "vitest";
import {
  ACTION_FORGET_NO,
  ACTION_FORGET_YES,
  FIRST_QUESTION,
  SECOND_QUESTION,
} from "../../../bots/slack/user-data.ts";
import { getUser } from "../../../db/queries/users.ts";
import { createUserData } from "../../../db/stores/index.ts";
import { START } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { expectOwnRedactedExport, seedUserData } from "../../helpers/seed-user-data.ts";
import type { PostedMessage } from "../../servers/slack-server.ts";
import { directMessage, linkedSlackUser, nextEventId, slackSuite } from "./harness.ts";

/** The token both buttons of a forget question carry. */
function tokenOf(post: PostedMessage): string {
  const actions = post.blocks.find((block) => block.type === "actions");
  const [yes] = (actions?.elements ?? []) as Array<{ action_id: string; value: string }>;
  if (!yes || yes.action_id !== ACTION_FORGET_YES) throw new Error(`no forget buttons under "${post.text}"`);
  return yes.value;
}

describeEachDatabase("slack /export and /forget", (getDb) => {
  const suite = slackSuite(getDb);

  const question = (channel: string, start: string, after = 0) =>
    suite.slack.waitForPost(
      (post) =>
        post.channel === channel && post.text.startsWith(start) && suite.slack.posts.indexOf(post) >= after,
    );
  const press = (actionId: string, post: PostedMessage, slackId: string) =>
    suite.slack.pressButton(actionId, tokenOf(post), slackId, {
      channel: post.channel,
      ts: post.ts,
      text: post.text,
      blocks: post.blocks,
    });

  it("/export uploads a JSON file with the user's tasks and receipts into their DM, none of another user's", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    const ann = await seedUserData(db, { user });
    const bob = await seedUserData(db);
    const ack = await suite.slack.sendCommand("/export", "", slackId);
    expect(ack.status).toBe(200);
    const dm = suite.slack.dmChannelOf(slackId);
    const file = await suite.slack.waitForFile((candidate) => candidate.channel === dm);
    expect(file.filename).toMatch(/^briefbot-[\w.@-]+-\d{4}-\d{2}-\d{2}\.json$/);
    expect(file.initialComment).toContain("as JSON");
    expectOwnRedactedExport(file.bytes?.toString("utf8") ?? "", ann, bob);
    expect(suite.slack.callsTo("files.getUploadURLExternal").length).toBeGreaterThan(0);
  });

  it("/forget asks twice in the DM, then deletes everything; the account is a stranger afterwards", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedUserData(db, { user });
    const bob = await seedUserData(db);
    const dm = suite.slack.dmChannelOf(slackId);
    const from = suite.slack.posts.length;
    await suite.slack.sendCommand("/forget", "", slackId);
    const first = await question(dm, FIRST_QUESTION.slice(0, 20), from);
    await press(ACTION_FORGET_YES, first, slackId);
    const second = await question(dm, SECOND_QUESTION.slice(0, 20), from);
    expect(await getUser(db, user.id)).toBeDefined();
    await press(ACTION_FORGET_YES, second, slackId);
    const done = await question(dm, "Done: I deleted everything", from);
    expect(done.text).toContain("tasks: 1");
    expect(await getUser(db, user.id)).toBeUndefined();
    expect((await createUserData(db).read(bob.user.id))?.tasks).toHaveLength(1);
    // The questions lost their buttons.
    expect(first.blocks.some((block) => block.type === "actions")).toBe(false);
    await suite.slack.sendEvent(directMessage(slackId, "hello again"), { eventId: nextEventId() });
    const refusal = await suite.slack.waitForEphemeral((message) => message.user === slackId);
    expect(refusal.text).toContain(`your Slack id is ${slackId}`);
  });

  it("Cancel, another message, a stale button or a late answer delete nothing", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedUserData(db, { user });
    const dm = suite.slack.dmChannelOf(slackId);
    let from = suite.slack.posts.length;
    await suite.slack.sendCommand("/forget", "", slackId);
    await press(ACTION_FORGET_YES, await question(dm, FIRST_QUESTION.slice(0, 20), from), slackId);
    await press(ACTION_FORGET_NO, await question(dm, SECOND_QUESTION.slice(0, 20), from), slackId);
    await question(dm, "Cancelled. Nothing was deleted.", from);

    from = suite.slack.posts.length;
    await suite.slack.sendCommand("/forget", "", slackId);
    const again = await question(dm, FIRST_QUESTION.slice(0, 20), from);
    const stale = { ...again, blocks: [...again.blocks] };
    await suite.slack.sendEvent(directMessage(slackId, "what's on today?"), { eventId: nextEventId() });
    await question(dm, "Forgetting cancelled.", from);
    const pressed = await press(ACTION_FORGET_YES, stale, slackId);
    const answer = await suite.slack.waitForResponse(pressed.responseUrlId);
    expect(String(answer.body.text)).toContain("no longer open");

    from = suite.slack.posts.length;
    await suite.slack.sendCommand("/forget", "", slackId);
    const late = await question(dm, FIRST_QUESTION.slice(0, 20), from);
    suite.running.clock.advance(6 * 60_000);
    try {
      await press(ACTION_FORGET_YES, late, slackId);
      await question(dm, "That question expired.", from);
    } finally {
      suite.running.clock.set(START);
    }
    expect((await createUserData(db).read(user.id))?.tasks).toHaveLength(1);
    expect(
      suite.slack.posts.slice(from).some((post) => post.text.startsWith(SECOND_QUESTION.slice(0, 20))),
    ).toBe(false);
  });
});
