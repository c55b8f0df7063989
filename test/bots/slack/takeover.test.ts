/**
 * A question whose process stopped while the model was answering: the "thinking…" placeholder it posted is
 * recorded with the update, and the process that takes the update over answers into that placeholder
 * instead of posting a second one beside it.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { THINKING_TEXT } from "../../../bots/slack/conversation.ts";
import { createLeases } from "../../../db/stores/index.ts";
import { MODEL } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "../../servers/ollama-server.ts";
import { type PostedMessage, type SlackServer, startSlackServer } from "../../servers/slack-server.ts";
import {
  directMessage,
  linkedSlackUser,
  nextEventId,
  type RunningSlackApp,
  SIGNING_SECRET,
  startApp,
} from "./harness.ts";

const ANSWER = "Your afternoon is free.";

describeEachDatabase("slack: an answer taken over from a stopped process", (getDb) => {
  let ollama: OllamaTestServer;
  let slack: SlackServer;
  const running: RunningSlackApp[] = [];
  /** Let the first processes' model calls end, once the tests are over. */
  const heldCalls: Array<() => void> = [];

  beforeAll(async () => {
    // Several at once: each first process's question stays with the model while the taker's is answered.
    ollama = await startOllamaServer({ models: { [MODEL]: {} }, parallel: 3 });
    slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
  });
  afterAll(async () => {
    for (const release of heldCalls) release();
    for (const app of running) await app.close();
    await slack.close();
    await ollama.close();
  });

  /**
   * A first process posts its placeholder and asks the model, which holds the question; then it stops (its
   * lease gone, as after a kill -9) and a second process over the same database takes the update over.
   */
  async function stopMidAnswer(options: { beforeTakeover?: (placeholder: PostedMessage) => void } = {}) {
    const db = getDb();
    const { slackId } = await linkedSlackUser(db);
    const channel = slack.dmChannelOf(slackId);
    const first = await startApp(db, slack, ollama);
    running.push(first);
    slack.setAppUrl(first.url);
    const held = new Promise<void>((resolve) => {
      heldCalls.push(resolve);
    });
    const asked = ollama.chatRequests(MODEL).length;
    ollama.script(MODEL, [
      { content: "The first process's answer, never shown.", waitFor: held },
      { content: ANSWER },
    ]);

    await slack.sendEvent(directMessage(slackId, "What is on this afternoon?"), { eventId: nextEventId() });
    const placeholder = await slack.waitForPost(
      (post) => post.channel === channel && post.text === THINKING_TEXT,
    );
    // The model has the question: the placeholder was recorded before it was asked.
    await vi.waitFor(() => expect(ollama.chatRequests(MODEL)).toHaveLength(asked + 1));

    await createLeases(db).release(`process:${first.owner}`, first.owner);
    options.beforeTakeover?.(placeholder);
    const second = await startApp(db, slack, ollama);
    running.push(second);
    await second.slackApp.start();
    return { channel, placeholder, second, asked };
  }

  const thinkingPostsIn = (channel: string) =>
    slack
      .callsTo("chat.postMessage")
      .filter((call) => call.args.channel === channel && call.args.text === THINKING_TEXT);

  it("answers into the placeholder the stopped process left, and posts no second placeholder", async () => {
    const { channel, placeholder, second, asked } = await stopMidAnswer();
    const answered = await slack.waitForEdit((post) => post.channel === channel && post.text === ANSWER);
    await second.slackApp.idle();

    expect(answered.ts).toBe(placeholder.ts);
    expect(answered.history.map((version) => version.text)).toEqual([THINKING_TEXT, ANSWER]);
    expect(thinkingPostsIn(channel)).toHaveLength(1);
    expect(slack.posts.filter((post) => post.channel === channel)).toHaveLength(1);
    expect(ollama.chatRequests(MODEL)).toHaveLength(asked + 2);
  });

  it("posts the answer anew when the person deleted the placeholder the stopped process left", async () => {
    const { channel, placeholder, second } = await stopMidAnswer({
      beforeTakeover: (left) => slack.removePost(left.channel, left.ts),
    });
    const answered = await slack.waitForPost((post) => post.channel === channel && post.text === ANSWER);
    await second.slackApp.idle();

    expect(answered.ts).not.toBe(placeholder.ts);
    expect(slack.posts.filter((post) => post.channel === channel).map((post) => post.text)).toEqual([ANSWER]);
    expect(thinkingPostsIn(channel)).toHaveLength(1);
  });
});
