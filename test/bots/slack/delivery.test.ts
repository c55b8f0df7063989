import { afterAll, beforeAll, expect, it } from "vitest";
import { ACTION_RECEIPTS } from "../../../bots/slack/format.ts";
import { findConversation } from "../../../db/queries/conversations.ts";
import { claimEvent } from "../../../db/queries/processed-events.ts";
import { createRun } from "../../../db/queries/runs.ts";
import { findUserByIdentity } from "../../../db/queries/users.ts";
import type { BriefingMessage } from "../../../src/core/assistant.ts";
import { DeliveryError } from "../../../src/core/assistant.ts";
import { startModelServer } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import type { OllamaTestServer } from "../../servers/ollama-server.ts";
import { type SlackServer, startSlackServer } from "../../servers/slack-server.ts";
import { linkedSlackUser, type RunningSlackApp, SIGNING_SECRET, startApp } from "./harness.ts";

describeEachDatabase("slack sender", (getDb) => {
  let ollama: OllamaTestServer;
  let slack: SlackServer;
  let running: RunningSlackApp;

  beforeAll(async () => {
    ollama = await startModelServer();
    slack = await startSlackServer({ signingSecret: SIGNING_SECRET });
    running = await startApp(getDb(), slack, ollama);
  });
  afterAll(async () => {
    await running?.close();
    await slack?.close();
    await ollama?.close();
  });

  async function briefing(): Promise<{ message: BriefingMessage; slackId: string }> {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    const run = await createRun(db, {
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      trigger: "manual",
      at: running.clock.now(),
    });
    return {
      slackId,
      message: {
        runId: run.id,
        userId: user.id,
        slot: "morning",
        localDate: "2025-06-02",
        prose: "Rain <later> & wind. ".repeat(400),
        checks: [{ label: "pulled weather", ok: true }],
        statusRow: "✓ pulled weather",
        mode: "agentic",
      },
    };
  }

  it("delivers to a user id by opening the DM, returns the parent ts and maps the thread to the run", async () => {
    const db = getDb();
    const { message, slackId } = await briefing();
    const receipt = await running.slackApp.sender.deliver(slackId, message);
    const channel = slack.dmChannelOf(slackId);
    const thread = slack.thread(channel, receipt.platformMessageId);
    const [parent, ...replies] = thread;
    expect(parent?.ts).toBe(receipt.platformMessageId);
    const types = parent?.blocks.map((block) => block.type) ?? [];
    expect(types.slice(-2)).toEqual(["context", "actions"]);
    expect(types.filter((type) => type === "section").length).toBeGreaterThan(3);
    for (const block of parent?.blocks ?? []) {
      if (block.type === "section")
        expect((block.text as { text: string }).text.length).toBeLessThanOrEqual(3000);
    }
    expect(JSON.stringify(parent?.blocks)).toContain(ACTION_RECEIPTS);
    expect(JSON.stringify(parent?.blocks)).toContain("Rain &lt;later&gt; &amp; wind.");
    expect(replies).toEqual([]);
    expect((await findUserByIdentity(db, "slack", slackId))?.identity.chatId).toBe(channel);
    const conversation = await findConversation(db, "slack", `slack:${channel}:${receipt.platformMessageId}`);
    expect(conversation?.runId).toBe(message.runId);
  });

  it("maps a gone channel to a permanent error and an unknown failure to a transient one", async () => {
    const { message } = await briefing();
    for (const error of ["channel_not_found", "is_archived", "not_in_channel", "account_inactive"]) {
      slack.failChannel("C0GONE", error);
      const failure = await running.slackApp.sender
        .deliver("C0GONE", message)
        .catch((caught: unknown) => caught);
      expect(failure).toBeInstanceOf(DeliveryError);
      expect((failure as DeliveryError).permanent).toBe(true);
      expect((failure as DeliveryError).message).toContain(error);
    }
    slack.failChannel("C0GONE", undefined);
    slack.failNext("chat.postMessage", "internal_error");
    const transient = await running.slackApp.sender
      .deliver("C0GONE", message)
      .catch((caught: unknown) => caught);
    expect(transient).toBeInstanceOf(DeliveryError);
    expect((transient as DeliveryError).permanent).toBe(false);
  });

  it("hands a ratelimited 429 back with retryAfterMs instead of waiting", async () => {
    const { message } = await briefing();
    slack.rateLimit("chat.postMessage", { times: 1, retryAfterSec: 7 });
    const failure = await running.slackApp.sender
      .deliver("C0TEAM", message)
      .catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect((failure as DeliveryError).permanent).toBe(false);
    expect((failure as DeliveryError).retryAfterMs).toBe(7000);
    const retried = await running.slackApp.sender.deliver("C0TEAM", message);
    expect(slack.thread("C0TEAM", retried.platformMessageId)).toHaveLength(1);
  });

  it("opens DMs for linked users who never wrote to the bot, and forgets day-old event claims, when it starts", async () => {
    const db = getDb();
    const { slackId } = await linkedSlackUser(db);
    const eventId = `EvOld${slackId}`;
    await claimEvent(db, "slack", eventId, new Date(running.clock.now().getTime() - 2 * 86_400_000));
    await running.slackApp.start();
    expect(await claimEvent(db, "slack", eventId, running.clock.now())).toBe(true);
    expect(await claimEvent(db, "slack", eventId, running.clock.now())).toBe(false);
    expect((await findUserByIdentity(db, "slack", slackId))?.identity.chatId).toBe(
      slack.dmChannelOf(slackId),
    );
  });

  it("wires Socket Mode when an app token is set, leaving /slack/events unused", async () => {
    const socket = await startApp(getDb(), slack, ollama, { appToken: "xapp-1-test" });
    try {
      const answer = await fetch(socket.url, { method: "POST", body: "{}" });
      expect(answer.status).toBe(404);
      expect(await answer.text()).toContain("Socket Mode");
    } finally {
      await socket.close();
    }
  });
});
