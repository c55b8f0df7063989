import { eq } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { ACTION_RECEIPTS } from "../../../bots/slack/format.ts";
import { findUserByIdentity } from "../../../db/queries/users.ts";
import { deliveries, type Identity } from "../../../db/schema/index.ts";
import { createDbPorts, createPlatformState } from "../../../db/stores/index.ts";
import type { BriefingMessage } from "../../../src/core/assistant.ts";
import { DeliveryError } from "../../../src/core/assistant.ts";
import type { DeliveryOutcome } from "../../../src/delivery/hooks.ts";
import { createOutbox } from "../../../src/delivery/outbox.ts";
import { createSlackTransports, type PlatformTransports } from "../../../src/delivery/platform-transports.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { generatedManualRun, HELPER_OWNER } from "../../helpers/runs.ts";
import { deliverNow, linkedSlackUser, slackSuite, startApp } from "./harness.ts";

describeEachDatabase("slack sender", (getDb) => {
  const suite = slackSuite(getDb);

  async function briefing(): Promise<{ message: BriefingMessage; slackId: string; identity: Identity }> {
    const db = getDb();
    const { user, slackId, identity } = await linkedSlackUser(db);
    const run = await generatedManualRun(db, { userId: user.id }, "stored", suite.running.clock.now());
    return {
      slackId,
      identity,
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
    const { message, slackId, identity } = await briefing();
    const receipt = await deliverNow(suite.running, identity, message);
    const channel = suite.slack.dmChannelOf(slackId);
    expect(receipt?.target).toBe(channel);
    const ts = receipt?.platformMessageId ?? "";
    const thread = suite.slack.thread(channel, ts);
    const [parent, ...replies] = thread;
    expect(parent?.ts).toBe(ts);
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
    const link = await createPlatformState(db).findMessage("slack", `slack:${channel}:${ts}`, message.userId);
    expect(link?.runId).toBe(message.runId);
  });

  it("posts every briefing to the configured channel instead of the DM, opening none", async () => {
    const { message, identity } = await briefing();
    const channelled = await startApp(getDb(), suite.slack, suite.ollama, { channel: "C0BRIEFS" });
    try {
      const opened = suite.slack.callsTo("conversations.open").length;
      const receipt = await deliverNow(channelled, identity, message);
      expect(receipt?.target).toBe("C0BRIEFS");
      expect(suite.slack.thread("C0BRIEFS", receipt?.platformMessageId ?? "")).toHaveLength(1);
      expect(suite.slack.callsTo("conversations.open")).toHaveLength(opened);
    } finally {
      await channelled.close();
    }
  });

  it("maps a gone channel to a permanent error and an unknown failure to a transient one", async () => {
    const { message, identity } = await briefing();
    // The user's DM, as the identity knows it, is a channel that is gone.
    const gone = { ...identity, chatId: "C0GONE" };
    for (const error of ["channel_not_found", "is_archived", "not_in_channel", "account_inactive"]) {
      suite.slack.failChannel("C0GONE", error);
      const failure = await deliverNow(suite.running, gone, message).catch((caught: unknown) => caught);
      expect(failure).toBeInstanceOf(DeliveryError);
      expect((failure as DeliveryError).permanent).toBe(true);
      expect((failure as DeliveryError).message).toContain(error);
    }
    suite.slack.failChannel("C0GONE", undefined);
    suite.slack.failNext("chat.postMessage", "internal_error");
    const transient = await deliverNow(suite.running, gone, message).catch((caught: unknown) => caught);
    expect(transient).toBeInstanceOf(DeliveryError);
    expect((transient as DeliveryError).permanent).toBe(false);
  });

  it("hands a ratelimited 429 back with retryAfterMs instead of waiting", async () => {
    const { message, identity } = await briefing();
    const team = { ...identity, chatId: "C0TEAM" };
    suite.slack.rateLimit("chat.postMessage", { times: 1, retryAfterSec: 1, channel: "C0TEAM" });
    const failure = await deliverNow(suite.running, team, message).catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect((failure as DeliveryError).permanent).toBe(false);
    expect((failure as DeliveryError).retryAfterMs).toBe(1000);
    // The outbox retries once the wait is over.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const retried = await deliverNow(suite.running, team, message);
    expect(suite.slack.thread("C0TEAM", retried?.platformMessageId ?? "")).toHaveLength(1);
    expect(suite.slack.callsBeforeRetryAfter()).toEqual([]);
  });

  it("opens DMs for linked users who never wrote to the bot, when it starts", async () => {
    const db = getDb();
    const { slackId } = await linkedSlackUser(db);
    await suite.running.slackApp.start();
    expect((await findUserByIdentity(db, "slack", slackId))?.identity.chatId).toBe(
      suite.slack.dmChannelOf(slackId),
    );
  });

  it("wires Socket Mode when an app token is set, leaving /slack/events unused", async () => {
    const socket = await startApp(getDb(), suite.slack, suite.ollama, { appToken: "xapp-1-test" });
    try {
      const answer = await fetch(socket.url, { method: "POST", body: "{}" });
      expect(answer.status).toBe(404);
      expect(await answer.text()).toContain("Socket Mode");
    } finally {
      await socket.close();
    }
  });
});

describeEachDatabase("slack sender: send outcomes and rate limits", (getDb) => {
  let transports: PlatformTransports | undefined;
  // Registered before the suite's, so it runs after the app is closed.
  afterAll(() => transports?.close());
  const suite = slackSuite(getDb, () => {
    transports = createSlackTransports();
    return { transports };
  });

  async function generatedBriefing() {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    const run = await generatedManualRun(
      db,
      { userId: user.id },
      "Good morning. Nothing on the calendar today.",
      suite.running.clock.now(),
    );
    const outcomes: DeliveryOutcome[] = [];
    const worker = createOutbox({
      ports: createDbPorts(db),
      clock: suite.running.clock,
      owner: HELPER_OWNER,
      senders: [suite.running.slackApp.sender],
      retry: { baseBackoffMs: 1000 },
      observer: { deliveryAttempt: (_platform, _seconds, outcome) => outcomes.push(outcome) },
    });
    return { runId: run.id, channel: suite.slack.dmChannelOf(slackId), worker, outcomes };
  }

  const postsTo = (channel: string) => suite.slack.posts.filter((post) => post.channel === channel);

  it("retries a post whose connection was reset before the request was written, and posts it once", async () => {
    const { runId, channel, worker, outcomes } = await generatedBriefing();
    suite.slack.failNetwork("chat.postMessage", "reset-before-body");
    await worker.enqueue(runId);
    // The first retry of a request that never left goes at once; the worker wakes itself for it.
    for (let tick = 0; tick < 2000 && outcomes.length < 2; tick += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await worker.drain();

    expect(postsTo(channel)).toHaveLength(1);
    const [row] = await getDb().select().from(deliveries).where(eq(deliveries.runId, runId));
    expect(row).toMatchObject({ state: "sent", attempts: 2, platformMessageId: postsTo(channel)[0]?.ts });
    expect(outcomes).toEqual(["not_sent", "sent"]);
  });

  it("does not re-post when the answer was lost after Slack posted, and records the unknown outcome", async () => {
    const { runId, channel, worker, outcomes } = await generatedBriefing();
    suite.slack.failNetwork("chat.postMessage", "drop-response");
    await worker.enqueue(runId);
    await worker.drain();
    suite.running.clock.advance(30 * 60_000);
    await worker.runDue();

    expect(postsTo(channel)).toHaveLength(1);
    expect(
      suite.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === channel),
    ).toHaveLength(1);
    const [row] = await getDb().select().from(deliveries).where(eq(deliveries.runId, runId));
    expect(row?.state).toBe("failed");
    expect(row?.lastError).toMatch(/^send outcome unknown \(slack network error: .*answer was lost/);
    expect(outcomes).toEqual(["unknown"]);
  });

  it("sends nothing to a ratelimited method and channel before Retry-After has elapsed, from any client", async () => {
    const channel = "C0RUSH";
    const { identity } = await linkedSlackUser(getDb());
    const rush = { ...identity, chatId: channel };
    suite.slack.rateLimit("chat.postMessage", { times: 1, retryAfterSec: 1, channel });
    const message = {
      runId: 0,
      userId: 0,
      slot: "morning" as const,
      localDate: "2025-06-02",
      prose: "Good morning.",
      checks: [],
      statusRow: "",
      mode: "agentic" as const,
    };
    const failure = await deliverNow(suite.running, rush, message).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "DeliveryError", retryAfterMs: 1000 });
    // A chat reply (Bolt's own client) and the outbox's retry both wait for the gate.
    const [reply, retried] = await Promise.all([
      suite.running.slackApp.app.client.chat.postMessage({ channel, text: "a reply in the meantime" }),
      deliverNow(suite.running, rush, message),
    ]);
    expect(reply.ok).toBe(true);
    expect(retried?.platformMessageId).toMatch(/^\d+\.\d{6}$/);

    const calls = suite.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === channel);
    const limited = calls.find((call) => call.status === 429);
    expect(limited?.limitScope).toBe(`method:chat.postMessage|channel:${channel}`);
    const openAt = (limited?.answeredAt ?? 0) + 1000;
    const later = calls.filter((call) => call.receivedAt > (limited?.answeredAt ?? 0));
    expect(later).toHaveLength(2);
    for (const call of later) expect(call.receivedAt).toBeGreaterThanOrEqual(openAt);
    expect(suite.slack.callsBeforeRetryAfter()).toEqual([]);
    expect(postsTo(channel)).toHaveLength(2);
  });
});
