/**
 * Private by default in shared spaces, through Bolt against the Slack test server: what a channel sees
 * (`channelView`: every version of every post there) apart from what one person is shown
 * (`chat.postEphemeral`, or their DM). A linked person's mention in a public channel shows the channel none of
 * their items; a briefing thread in `SLACK_CHANNEL` mode answers only its owner; a team channel is read by all.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ACTION_CONFIRM, ACTION_RECEIPTS, ACTION_UNDO } from "../../../bots/slack/format.ts";
import type { Database } from "../../../db/client.ts";
import { createTask, getTask } from "../../../db/queries/tasks.ts";
import { call, MODEL, MORNING_COVERAGE, seedTasks, seedWeather } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import type { EphemeralMessage, PostedMessage, SlackBlock, SlackServer } from "../../servers/slack-server.ts";
import {
  channelMessage,
  deliverNow,
  linkedSlackUser,
  mentionInChannel,
  nextEventId,
  nextSlackUserId,
  type RunningSlackApp,
  type SlackSuite,
  slackSuite,
} from "./harness.ts";

/** Every title seedTasks gives a person: none may reach a channel that is not a team channel. */
const TASK_TITLES = ["Renew passport", "File expenses"];
const DUE_TODAY = '"Renew passport" is due today at 14:30.';
const BRIEFING =
  'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue.';
const FOLLOW_UP = '"File expenses" was due on 2025-05-30.';

const buttonValue = (blocks: SlackBlock[], actionId: string): string =>
  blocks
    .flatMap((block) =>
      block.type === "actions" ? (block.elements as Array<{ action_id: string; value: string }>) : [],
    )
    .find((element) => element.action_id === actionId)?.value ?? "";

/** Posts made in `channel` since `from` (a suite's tests share its channels). */
function postsIn(slack: SlackServer, channel: string, from: number): PostedMessage[] {
  return slack.posts.slice(from).filter((post) => post.channel === channel);
}

function ephemeralsTo(slack: SlackServer, user: string, from = 0): EphemeralMessage[] {
  return slack.ephemerals.slice(from).filter((message) => message.user === user);
}

/** A linked person with two tasks and a cached forecast. */
async function personWithTasks(db: Database) {
  const person = await linkedSlackUser(db);
  await seedTasks(db, person.user);
  await seedWeather(db);
  return person;
}

/** The person's morning briefing, generated and delivered by the app's sender (to SLACK_CHANNEL when set). */
async function deliveredBriefing(suite: SlackSuite, person: Awaited<ReturnType<typeof personWithTasks>>) {
  suite.ollama.script(MODEL, { content: BRIEFING });
  const outcome = await suite.running.assistant.brief(person.user.id, { slot: "morning" });
  const receipt = await deliverNow(suite.running, person.identity, outcome);
  const parent = suite.slack.posts.find((post) => post.ts === receipt?.platformMessageId);
  if (!parent) throw new Error("the briefing was not posted");
  return { outcome, parent };
}

async function settled(running: RunningSlackApp): Promise<void> {
  await running.slackApp.idle();
}

describeEachDatabase("slack shared spaces", (getDb) => {
  describe("a public channel", () => {
    const suite = slackSuite(getDb);
    const channel = "C0PUBLIC";

    it("answers a linked person's mention that reads her tasks to her alone; the channel sees nothing of them", async () => {
      const ana = await personWithTasks(getDb());
      suite.ollama.script(MODEL, [
        { toolCalls: [call("list_tasks", { filter: "due_today" })] },
        { content: DUE_TODAY },
      ]);
      const from = suite.slack.ephemerals.length;
      const postsFrom = suite.slack.posts.length;
      await mentionInChannel(suite.slack, ana.slackId, channel, "what's due today?");
      await suite.slack.waitForEphemeral((message) => message.text.includes("Renew passport"));
      await settled(suite.running);

      const shown = ephemeralsTo(suite.slack, ana.slackId, from);
      expect(shown.map((message) => message.text)).toEqual(["_thinking…_", DUE_TODAY]);
      // A top-level mention: shown right under it, in the channel, to her.
      for (const message of shown) expect(message).toMatchObject({ channel, threadTs: undefined });
      const seen = suite.slack.channelView(channel).join("\n");
      for (const title of TASK_TITLES) expect(seen).not.toContain(title);
      expect(postsIn(suite.slack, channel, postsFrom)).toEqual([]);
      expect(postsIn(suite.slack, suite.slack.dmChannelOf(ana.slackId), postsFrom)).toEqual([]);
    });

    it("answers within the thread she wrote in, still to her alone", async () => {
      const ana = await personWithTasks(getDb());
      suite.ollama.script(MODEL, [
        { toolCalls: [call("list_tasks", { filter: "overdue" })] },
        { content: '"File expenses" is overdue.' },
      ]);
      const thread = "1800000000.000001";
      await mentionInChannel(suite.slack, ana.slackId, channel, "anything overdue?", thread);
      const answer = await suite.slack.waitForEphemeral((message) => message.text.includes("File expenses"));
      await settled(suite.running);
      expect(answer).toMatchObject({ channel, user: ana.slackId, threadTs: thread });
      expect(suite.slack.channelView(channel).join("\n")).not.toContain("File expenses");
    });

    it("leaves an answer that read nothing of hers in the channel, in a thread under the mention", async () => {
      const ana = await personWithTasks(getDb());
      const greeting = "Hello! Mention me with a question, or write to me in a DM.";
      suite.ollama.script(MODEL, { content: greeting });
      const mention = await mentionInChannel(suite.slack, ana.slackId, channel, "hello there");
      const post = await suite.slack.waitForPost((candidate) => candidate.threadTs === mention.ts);
      await settled(suite.running);
      expect(post).toMatchObject({ channel, text: greeting });
    });

    it("sends the answer to her DM, with one line in the channel, when Slack can't show her an ephemeral message", async () => {
      const ana = await personWithTasks(getDb());
      suite.slack.leaveChannel(channel, ana.slackId);
      suite.ollama.script(MODEL, [
        { toolCalls: [call("list_tasks", { filter: "due_today" })] },
        { content: DUE_TODAY },
      ]);
      const postsFrom = suite.slack.posts.length;
      const mention = await mentionInChannel(suite.slack, ana.slackId, channel, "what's due today?");
      const dm = await suite.slack.waitForPost((post) => post.text.includes("Renew passport"));
      await settled(suite.running);
      expect(dm.channel).toBe(suite.slack.dmChannelOf(ana.slackId));
      const inChannel = postsIn(suite.slack, channel, postsFrom);
      expect(inChannel.map((post) => [post.threadTs, post.text])).toEqual([
        [mention.ts, "I've sent you that privately."],
      ]);
      const seen = suite.slack.channelView(channel).join("\n");
      for (const title of TASK_TITLES) expect(seen).not.toContain(title);
    });

    it("asks her privately to confirm a deletion, and her press answers through the ephemeral message", async () => {
      const db = getDb();
      const ana = await linkedSlackUser(db);
      const chore = await createTask(db, { userId: ana.user.id, title: "Old chore", dueDate: "2025-06-02" });
      suite.ollama.script(MODEL, [
        { toolCalls: [call("delete_task", { id: chore.id })] },
        { content: "Please confirm the deletion." },
      ]);
      await mentionInChannel(suite.slack, ana.slackId, channel, "delete the old chore");
      const prompt = await suite.slack.waitForEphemeral(
        (message) => message.user === ana.slackId && JSON.stringify(message.blocks).includes(ACTION_CONFIRM),
      );
      await settled(suite.running);
      expect(JSON.stringify(prompt.blocks)).toContain("Old chore");

      const press = await suite.slack.pressButton(
        ACTION_CONFIRM,
        buttonValue(prompt.blocks, ACTION_CONFIRM),
        ana.slackId,
        { channel, ts: prompt.messageTs, ephemeral: true },
      );
      const outcome = await suite.slack.waitForResponse(press.responseUrlId);
      await settled(suite.running);
      expect(outcome.body).toMatchObject({ response_type: "ephemeral", replace_original: true });
      expect(String(outcome.body.text)).toMatch(/^Done: Delete task/);
      expect(JSON.stringify(outcome.body.blocks)).not.toContain(ACTION_CONFIRM);
      expect(await getTask(db, ana.user.id, chore.id)).toBeUndefined();
      expect(suite.slack.channelView(channel).join("\n")).not.toContain("Old chore");
    });

    it("states a change privately with its Undo, and the Undo answers her alone", async () => {
      const db = getDb();
      const ana = await linkedSlackUser(db);
      suite.ollama.script(MODEL, [
        { toolCalls: [call("create_task", { title: "Buy a birthday present for Bob" })] },
        { content: "Added it." },
      ]);
      const postsFrom = suite.slack.posts.length;
      await mentionInChannel(suite.slack, ana.slackId, channel, "add a task: buy a birthday present for Bob");
      const answer = await suite.slack.waitForEphemeral(
        (message) => message.user === ana.slackId && JSON.stringify(message.blocks).includes(ACTION_UNDO),
      );
      await settled(suite.running);
      const id = Number(/Created task (\d+)/.exec(answer.text)?.[1]);
      expect(await getTask(db, ana.user.id, id)).toBeDefined();

      const press = await suite.slack.pressButton(
        ACTION_UNDO,
        buttonValue(answer.blocks, ACTION_UNDO),
        ana.slackId,
        { channel, ts: answer.messageTs, ephemeral: true },
      );
      const outcome = await suite.slack.waitForResponse(press.responseUrlId);
      await settled(suite.running);
      expect(outcome.body).toMatchObject({
        response_type: "ephemeral",
        text: `Undone: deleted task ${id} "Buy a birthday present for Bob".`,
      });
      expect(await getTask(db, ana.user.id, id)).toBeUndefined();
      expect(postsIn(suite.slack, channel, postsFrom)).toEqual([]);
      expect(suite.slack.channelView(channel).join("\n")).not.toContain("birthday present");
    });

    it("tells a stranger who mentions it how to link, privately, and nothing else", async () => {
      const stranger = nextSlackUserId();
      const modelBefore = suite.ollama.chatRequests().length;
      const postsFrom = suite.slack.posts.length;
      await mentionInChannel(suite.slack, stranger, channel, "what's due today?");
      const refusal = await suite.slack.waitForEphemeral((message) => message.user === stranger);
      await settled(suite.running);
      expect(refusal.text).toContain(`--slack ${stranger}`);
      expect(suite.ollama.chatRequests().length).toBe(modelBefore);
      expect(postsIn(suite.slack, channel, postsFrom)).toEqual([]);
    });
  });

  describe("SLACK_CHANNEL mode", () => {
    const channel = "C0BRIEFS";
    const suite = slackSuite(getDb, () => ({ channel }));

    it("gives anyone but the owner who writes in a briefing thread one line, for them alone, and nothing of hers", async () => {
      const db = getDb();
      const ana = await personWithTasks(db);
      const bob = await personWithTasks(db);
      const stranger = nextSlackUserId();
      const { parent } = await deliveredBriefing(suite, ana);
      expect(parent.channel).toBe(channel);
      const modelBefore = suite.ollama.chatRequests().length;
      const from = suite.slack.ephemerals.length;
      const postsFrom = suite.slack.posts.length;

      await suite.slack.sendEvent(
        channelMessage(bob.slackId, channel, "what's the overdue one?", parent.ts),
        {
          eventId: nextEventId(),
        },
      );
      await suite.slack.sendEvent(channelMessage(stranger, channel, "nice", parent.ts), {
        eventId: nextEventId(),
      });
      await mentionInChannel(suite.slack, bob.slackId, channel, "and my tasks?", parent.ts);
      await settled(suite.running);

      const line = `This is <@${ana.slackId}>'s briefing; send me a DM for yours.`;
      // The three are handled concurrently (Bolt acks each event first), so in any order.
      const told = suite.slack.ephemerals
        .slice(from)
        .map((message) => [message.user, message.channel, message.threadTs, message.text].join(" "))
        .sort();
      expect(told).toEqual(
        [bob.slackId, bob.slackId, stranger].sort().map((user) => `${user} ${channel} ${parent.ts} ${line}`),
      );
      // No model call, and nothing in the channel after the briefing itself.
      expect(suite.ollama.chatRequests().length).toBe(modelBefore);
      expect(postsIn(suite.slack, channel, postsFrom)).toEqual([]);
    });

    it("answers the owner's reply in her briefing thread from its receipts, to her alone", async () => {
      const ana = await personWithTasks(getDb());
      const { parent } = await deliveredBriefing(suite, ana);
      suite.ollama.script(MODEL, { content: FOLLOW_UP });
      await suite.slack.sendEvent(
        channelMessage(ana.slackId, channel, "what's the overdue one about?", parent.ts),
        { eventId: nextEventId() },
      );
      const answer = await suite.slack.waitForEphemeral((message) => message.text === FOLLOW_UP);
      await settled(suite.running);
      expect(answer).toMatchObject({ channel, user: ana.slackId, threadTs: parent.ts });
      const request = suite.ollama.chatRequests(MODEL).at(-1);
      const tools = request?.messages.filter((message) => message.role === "tool") ?? [];
      expect(tools.map((message) => message.tool_name)).toEqual(MORNING_COVERAGE.map(([name]) => name));
      expect(suite.slack.thread(channel, parent.ts)).toEqual([parent]);
      expect(suite.slack.channelView(channel).join("\n")).not.toContain("2025-05-30");
    });

    it("shows the receipts to the owner who presses Receipts, not to the channel", async () => {
      const ana = await personWithTasks(getDb());
      const { parent, outcome } = await deliveredBriefing(suite, ana);
      const press = await suite.slack.pressButton(ACTION_RECEIPTS, String(outcome.runId), ana.slackId, {
        channel,
        ts: parent.ts,
        blocks: parent.blocks,
      });
      const receipts = await suite.slack.waitForResponse(press.responseUrlId);
      await settled(suite.running);
      expect(receipts.body.response_type).toBe("ephemeral");
      expect(JSON.stringify(receipts.body.blocks)).toContain("*list_tasks*");
      expect(suite.slack.thread(channel, parent.ts)).toEqual([parent]);
    });
  });

  describe("a team channel", () => {
    const channel = "C0TEAM";
    const suite = slackSuite(getDb, () => ({ channel, teamChannels: [channel] }));

    it("answers a mention that reads her tasks in the channel, where everyone is meant to read it", async () => {
      const ana = await personWithTasks(getDb());
      suite.ollama.script(MODEL, [
        { toolCalls: [call("list_tasks", { filter: "due_today" })] },
        { content: DUE_TODAY },
      ]);
      const from = suite.slack.ephemerals.length;
      const mention = await mentionInChannel(suite.slack, ana.slackId, channel, "what's due today?");
      const answer = await suite.slack.waitForEdit(
        (post) => post.threadTs === mention.ts && post.text === DUE_TODAY,
      );
      await settled(suite.running);
      expect(answer.channel).toBe(channel);
      expect(answer.history[0]?.text).toBe("_thinking…_");
      expect(ephemeralsTo(suite.slack, ana.slackId, from)).toEqual([]);
    });

    it("follows up in the briefing thread for all to read, but still answers only the owner", async () => {
      const db = getDb();
      const ana = await personWithTasks(db);
      const bob = await personWithTasks(db);
      const { parent, outcome } = await deliveredBriefing(suite, ana);

      suite.ollama.script(MODEL, { content: FOLLOW_UP });
      await suite.slack.sendEvent(
        channelMessage(ana.slackId, channel, "what's the overdue one about?", parent.ts),
        { eventId: nextEventId() },
      );
      const answer = await suite.slack.waitForEdit(
        (post: PostedMessage) => post.threadTs === parent.ts && post.text === FOLLOW_UP,
      );
      await settled(suite.running);
      expect(answer.channel).toBe(channel);

      await suite.slack.pressButton(ACTION_RECEIPTS, String(outcome.runId), ana.slackId, {
        channel,
        ts: parent.ts,
        blocks: parent.blocks,
      });
      const receipts = await suite.slack.waitForPost(
        (post) => post.threadTs === parent.ts && post.text.startsWith("Receipts"),
      );
      expect(receipts.channel).toBe(channel);

      const modelBefore = suite.ollama.chatRequests().length;
      await suite.slack.sendEvent(channelMessage(bob.slackId, channel, "and mine?", parent.ts), {
        eventId: nextEventId(),
      });
      const line = await suite.slack.waitForEphemeral((message) => message.user === bob.slackId);
      await settled(suite.running);
      expect(line.text).toBe(`This is <@${ana.slackId}>'s briefing; send me a DM for yours.`);
      expect(suite.ollama.chatRequests().length).toBe(modelBefore);
    });
  });
});

describe("slack-app-manifest.yml", () => {
  it("grants what shared spaces need: mentions and channel replies heard, ephemeral answers by chat:write", () => {
    const manifest = parse(
      readFileSync(new URL("../../../slack-app-manifest.yml", import.meta.url), "utf8"),
    ) as {
      oauth_config: { scopes: { bot: string[] } };
      settings: { event_subscriptions: { bot_events: string[] } };
    };
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(["chat:write", "app_mentions:read", "channels:history", "groups:history"]),
    );
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_mention", "message.channels", "message.groups"]),
    );
  });
});
