import { expect, it } from "vitest";
import {
  ACTION_CANCEL,
  ACTION_CONFIRM,
  ACTION_RECEIPTS,
  MAX_SECTION_TEXT,
} from "../../../bots/slack/format.ts";
import { findConversation } from "../../../db/queries/conversations.ts";
import { createTask } from "../../../db/queries/tasks.ts";
import { findUserByIdentity, updateUser } from "../../../db/queries/users.ts";
import { createPlatformState } from "../../../db/stores/index.ts";
import type { AccountService } from "../../../src/core/accounts/service.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { createSourceRefresher } from "../../../src/sources/refresh-sources.ts";
import { call, MODEL, MORNING_COVERAGE, START, seedTasks, seedWeather } from "../../core/fixture.ts";
import { describeEachDatabase } from "../../helpers/database.ts";
import { todoistAccountService, todoistTaskOf } from "../../helpers/todoist-account.ts";
import { startOpenMeteoServer } from "../../servers/open-meteo-server.ts";
import type { PostedMessage, SlackBlock } from "../../servers/slack-server.ts";
import { startTodoistServer } from "../../servers/todoist-server.ts";
import {
  directMessage,
  linkedSlackUser,
  nextEventId,
  nextSlackUserId,
  slackSuite,
  startApp,
} from "./harness.ts";

const PROSE =
  'Nothing on your calendar today. "Renew passport" is due at 14:30 and "File expenses" is overdue.';

const blockTypes = (post: PostedMessage) => post.blocks.map((block) => block.type);
const sectionTexts = (blocks: SlackBlock[]) =>
  blocks.flatMap((block) =>
    block.type === "section" ? [String((block.text as { text: string }).text)] : [],
  );
/** The `value` of each button in a post, in order. */
const buttonValues = (post: PostedMessage): string[] =>
  post.blocks.flatMap((block) =>
    block.type === "actions"
      ? (block.elements as Array<{ value?: string }>).map((element) => element.value ?? "")
      : [],
  );
const hasReceiptsButton = (post: PostedMessage) => JSON.stringify(post.blocks).includes(ACTION_RECEIPTS);

describeEachDatabase("slack app", (getDb) => {
  const suite = slackSuite(getDb);

  /** A linked user with data, and their briefing delivered by /brief as a thread parent in the DM. */
  async function briefedUser() {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedTasks(db, user);
    await seedWeather(db);
    suite.ollama.script(MODEL, [{ content: PROSE }]);
    const ack = await suite.slack.sendCommand("/brief", "morning", slackId);
    expect(ack.status).toBe(200);
    const parent = await suite.slack.waitForPost(
      (post) => post.channel === suite.slack.dmChannelOf(slackId) && hasReceiptsButton(post),
    );
    await suite.running.slackApp.idle();
    return { db, user, slackId, parent };
  }

  it("acks /brief before the model answers, then posts a thread parent with the status row and a Receipts button", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedTasks(db, user);
    await seedWeather(db);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let released = false;
    suite.ollama.script(MODEL, [{ content: PROSE, waitFor: gate }]);

    const ack = await suite.slack.sendCommand("/brief", "", slackId);
    // The HTTP answer arrived while the model was still held: the ack did not wait for the work.
    expect(released).toBe(false);
    expect(ack.status).toBe(200);
    expect(ack.body).toBe("");
    const working = await suite.slack.waitForResponse(ack.responseUrlId);
    expect(String(working.body.text)).toMatch(/Working on your briefing/);
    released = true;
    release();

    const channel = suite.slack.dmChannelOf(slackId);
    const parent = await suite.slack.waitForPost(
      (post) => post.channel === channel && hasReceiptsButton(post),
    );
    await suite.running.slackApp.idle();
    expect(parent.threadTs).toBeUndefined();
    expect(blockTypes(parent)).toEqual(["section", "context", "actions"]);
    expect(sectionTexts(parent.blocks).join("\n")).toContain("Renew passport");
    const context = JSON.stringify(parent.blocks[1]);
    expect(context).toContain("✓");
    expect(parent.text).toContain("Renew passport");
    // The DM channel is now known for scheduled deliveries, and the thread is tied to the run.
    expect((await findUserByIdentity(db, "slack", slackId))?.identity.chatId).toBe(channel);
    const thread = await createPlatformState(db).findMessage(
      "slack",
      `slack:${channel}:${parent.ts}`,
      user.id,
    );
    expect(thread).toEqual({
      userId: user.id,
      runId: Number(buttonValues(parent)[0]),
      threadKey: `slack:${channel}:${parent.ts}`,
    });
  });

  it("says 'refreshing weather…' through the response_url while a stale forecast is fetched first", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await updateUser(db, user.id, { latitude: 38.72, longitude: -9.13, locationName: "Lisbon, Portugal" });
    const meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
    const clock = fixedClock(START);
    const refreshing = await startApp(db, suite.slack, suite.ollama, {
      clock,
      refresh: createSourceRefresher({
        db,
        fetch,
        clock,
        forecastUrl: meteo.url,
        maxAgeMinutes: { calendar: 15, feeds: 30, weather: 30 },
      }),
    });
    suite.slack.setAppUrl(refreshing.url);
    try {
      suite.ollama.script(MODEL, [{ content: "Partly cloudy in Lisbon, 12 to 21 degrees." }]);
      const ack = await suite.slack.sendCommand("/brief", "morning", slackId);
      const parent = await suite.slack.waitForPost(
        (post) => post.channel === suite.slack.dmChannelOf(slackId) && hasReceiptsButton(post),
      );
      await refreshing.slackApp.idle();
      const said = suite.slack.responses
        .filter((posted) => posted.id === ack.responseUrlId)
        .map((posted) => posted.body);
      expect(said).toEqual([
        { response_type: "ephemeral", text: "Working on your briefing; it will appear in our DM." },
        {
          response_type: "ephemeral",
          replace_original: true,
          text: "Working on your briefing (refreshing weather…); it will appear in our DM.",
        },
      ]);
      expect(meteo.forecastRequests()).toHaveLength(1);
      expect(parent.text).toContain("12 to 21 degrees");
    } finally {
      suite.slack.setAppUrl(suite.running.url);
      await refreshing.close();
      await meteo.close();
    }
  });

  it("posts the run's receipts into the briefing's thread when the Receipts button is pressed", async () => {
    const { slackId, parent } = await briefedUser();
    const pressed = await suite.slack.pressButton(ACTION_RECEIPTS, buttonValues(parent)[0] ?? "", slackId, {
      channel: parent.channel,
      ts: parent.ts,
      blocks: parent.blocks,
    });
    expect(pressed.status).toBe(200);
    const receipts = await suite.slack.waitForPost(
      (post) => post.threadTs === parent.ts && post.text.startsWith("Receipts"),
    );
    expect(receipts.channel).toBe(parent.channel);
    const text = sectionTexts(receipts.blocks).join("\n");
    expect(text).toContain("*list_tasks*");
    expect(text).toContain("*get_weather*");
    expect(text).toContain("File expenses");
  });

  it("answers a reply in the briefing's thread in that thread, from that run's receipts, via a thinking… message", async () => {
    const { slackId, parent } = await briefedUser();
    const before = suite.ollama.chatRequests(MODEL).length;
    suite.ollama.script(MODEL, { content: '"File expenses" was due on 2025-05-30.' });
    const event = directMessage(slackId, "what's the overdue one about?", parent.ts);
    const acked = await suite.slack.sendEvent(event, { eventId: nextEventId() });
    expect(acked.status).toBe(200);
    const answer = await suite.slack.waitForEdit(
      (post) => post.threadTs === parent.ts && post.text.includes("File expenses"),
    );
    await suite.running.slackApp.idle();

    expect(answer.history[0]?.text).toBe("_thinking…_");
    expect(answer.channel).toBe(parent.channel);
    const request = suite.ollama.chatRequests(MODEL).at(-1);
    expect(suite.ollama.chatRequests(MODEL).length).toBe(before + 1);
    const toolMessages = request?.messages.filter((message) => message.role === "tool") ?? [];
    expect(toolMessages.map((message) => message.tool_name)).toEqual(MORNING_COVERAGE.map(([name]) => name));
    expect(request?.messages.at(-1)).toMatchObject({
      role: "user",
      content: "what's the overdue one about?",
    });
  });

  it("treats a DM outside any briefing thread as plain chat, answered at the top level", async () => {
    const db = getDb();
    const { slackId } = await linkedSlackUser(db);
    suite.ollama.script(MODEL, { content: "Hello! How can I help?" });
    await suite.slack.sendEvent(directMessage(slackId, "hi there"), { eventId: nextEventId() });
    const answer = await suite.slack.waitForEdit((post) => post.channel === suite.slack.dmChannelOf(slackId));
    await suite.running.slackApp.idle();
    expect(answer.threadTs).toBeUndefined();
    expect(answer.text).toBe("Hello! How can I help?");
    const conversation = await findConversation(db, "slack", `slack:${suite.slack.dmChannelOf(slackId)}`);
    expect(conversation?.runId).toBeNull();
  });

  it("handles a retried event_id once, even when the retry reaches another replica on the same database", async () => {
    const { slackId, parent } = await briefedUser();
    const replica = await startApp(getDb(), suite.slack, suite.ollama, { clock: suite.running.clock });
    try {
      const postsBefore = suite.slack.posts.length;
      const modelBefore = suite.ollama.chatRequests(MODEL).length;
      // A second handling would get the server's default reply and a second model request.
      suite.ollama.script(MODEL, { content: "It is due at 14:30." });
      const event = directMessage(slackId, "when is the passport one due?", parent.ts);
      const eventId = nextEventId();
      const first = await suite.slack.sendEvent(event, { eventId });
      suite.slack.setAppUrl(replica.url);
      const retries = await Promise.all([
        suite.slack.sendEvent(event, { eventId, retryNum: 1, retryReason: "http_timeout" }),
        suite.slack.sendEvent(event, { eventId, retryNum: 2, retryReason: "http_timeout" }),
      ]);
      suite.slack.setAppUrl(suite.running.url);
      expect([first.status, ...retries.map((retry) => retry.status)]).toEqual([200, 200, 200]);
      await Promise.all([suite.running.slackApp.idle(), replica.slackApp.idle()]);

      expect(suite.ollama.chatRequests(MODEL).length).toBe(modelBefore + 1);
      const newPosts = suite.slack.posts.slice(postsBefore);
      expect(newPosts).toHaveLength(1);
      expect(newPosts[0]?.text).toBe("It is due at 14:30.");
    } finally {
      suite.slack.setAppUrl(suite.running.url);
      await replica.close();
    }
  });

  it("acknowledges a message inside Slack's 3 s while the model takes longer, so Slack never re-sends it", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const modelBefore = suite.ollama.chatRequests(MODEL).length;
    suite.ollama.script(MODEL, { content: "Here is a slow answer.", latency: { timeToFirstTokenMs: 4500 } });
    const delivery = await suite.slack.deliverEvent(directMessage(slackId, "tell me something"), {
      eventId: nextEventId(),
      retryDelaysMs: [0, 100, 200],
    });
    const answer = await suite.slack.waitForEdit(
      (post) => post.channel === suite.slack.dmChannelOf(slackId) && post.text === "Here is a slow answer.",
    );
    await suite.running.slackApp.idle();

    expect(delivery.attempts.map((attempt) => attempt.outcome)).toEqual(["acked"]);
    expect(suite.ollama.chatRequests(MODEL).length).toBe(modelBefore + 1);
    expect(suite.slack.thread(answer.channel, answer.ts)).toHaveLength(1);
  });

  it("refuses a bad signature and a 6-minute-old timestamp with 401, running nothing", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const callsBefore = suite.slack.calls.length;
    const modelBefore = suite.ollama.chatRequests().length;
    const forged = await suite.slack.sendCommand("/brief", "", slackId, { badSignature: true });
    const stale = await suite.slack.sendCommand("/brief", "", slackId, { timestampAgeSec: 360 });
    const staleEvent = await suite.slack.sendEvent(directMessage(slackId, "hello"), {
      eventId: nextEventId(),
      timestampAgeSec: 360,
    });
    expect([forged.status, stale.status, staleEvent.status]).toEqual([401, 401, 401]);
    await suite.running.slackApp.idle();
    expect(suite.slack.calls.length).toBe(callsBefore);
    expect(
      suite.slack.responses.filter((posted) =>
        [forged.responseUrlId, stale.responseUrlId].includes(posted.id),
      ),
    ).toEqual([]);
    expect(suite.ollama.chatRequests().length).toBe(modelBefore);
  });

  it("refuses a stranger with their id and never calls the model", async () => {
    const modelBefore = suite.ollama.chatRequests().length;
    const stranger = nextSlackUserId();
    const command = await suite.slack.sendCommand("/brief", "", stranger);
    expect(command.status).toBe(200);
    const refusal = await suite.slack.waitForResponse(command.responseUrlId);
    expect(refusal.body.text).toContain(`briefbot user link <name> --slack ${stranger}`);
    expect(refusal.body.response_type).toBe("ephemeral");

    await suite.slack.sendEvent(directMessage(stranger, "show me the tasks"), { eventId: nextEventId() });
    const ephemeral = await suite.slack.waitForEphemeral((message) => message.user === stranger);
    expect(ephemeral.text).toContain(stranger);

    const receipts = await suite.slack.sendCommand("/receipts", "", stranger);
    expect((await suite.slack.waitForResponse(receipts.responseUrlId)).body.text).toContain(stranger);
    await suite.running.slackApp.idle();
    expect(suite.ollama.chatRequests().length).toBe(modelBefore);
    expect(suite.slack.posts.filter((post) => post.channel === suite.slack.dmChannelOf(stranger))).toEqual(
      [],
    );
  });

  it("ignores echoes of its own posts and other bots' messages", async () => {
    const { slackId, parent } = await briefedUser();
    const postsBefore = suite.slack.posts.length;
    const modelBefore = suite.ollama.chatRequests().length;
    await suite.slack.sendEvent(suite.slack.echoOf(parent), { eventId: nextEventId() });
    await suite.slack.sendEvent(
      {
        ...directMessage(slackId, "beep", parent.ts),
        user: "U0OTHERBOT",
        bot_id: "B0OTHER",
        subtype: "bot_message",
      },
      { eventId: nextEventId() },
    );
    await suite.slack.sendEvent(
      { ...directMessage(slackId, "boop"), user: "U0OTHERBOT", bot_id: "B0OTHER" },
      { eventId: nextEventId() },
    );
    await suite.running.slackApp.idle();
    expect(suite.slack.posts.length).toBe(postsBefore);
    expect(suite.slack.ephemerals.filter((message) => message.user === "U0OTHERBOT")).toEqual([]);
    expect(suite.ollama.chatRequests().length).toBe(modelBefore);
  });

  it("answers /receipts through response_url in pages that respect Block Kit limits", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    await seedWeather(db);
    for (let index = 0; index < 40; index += 1) {
      await createTask(db, {
        userId: user.id,
        title: `Task ${index} <${"x".repeat(160)}> & more`,
        dueDate: "2025-06-02",
      });
    }
    // 16 tool calls (the most one turn runs) with long results: far more than 50 blocks and 3000
    // characters per section.
    const calls = Array.from({ length: 16 }, () => call("list_tasks", { filter: "due_today" }));
    suite.ollama.script(MODEL, [{ toolCalls: calls }, { content: "You have many tasks due today." }]);
    const brief = await suite.slack.sendCommand("/brief", "morning", slackId);
    await suite.slack.waitForPost(
      (post) => post.channel === suite.slack.dmChannelOf(slackId) && hasReceiptsButton(post),
    );
    await suite.running.slackApp.idle();
    expect(brief.status).toBe(200);

    const command = await suite.slack.sendCommand("/receipts", "", slackId);
    expect(command.status).toBe(200);
    await suite.running.slackApp.idle();
    const pages = suite.slack.responses.filter((posted) => posted.id === command.responseUrlId);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.length).toBeLessThanOrEqual(5);
    for (const page of pages) {
      const blocks = page.body.blocks as SlackBlock[];
      expect(blocks.length).toBeLessThanOrEqual(50);
      for (const text of sectionTexts(blocks)) expect(text.length).toBeLessThanOrEqual(MAX_SECTION_TEXT);
    }
    const allText = pages.flatMap((page) => sectionTexts(page.body.blocks as SlackBlock[])).join("\n");
    // Data is escaped: a title can't open a link or a mention.
    expect(allText).toContain("Task 0 &lt;xxx");
    expect(allText).not.toContain("<xxx");
  });

  it("shows Confirm/Cancel for a destructive action; only the same user can confirm, and expiry says so", async () => {
    const db = getDb();
    const { user, slackId } = await linkedSlackUser(db);
    const other = await linkedSlackUser(db);
    const task = await createTask(db, { userId: user.id, title: "Renew passport", dueDate: "2025-06-02" });
    const doomed = await createTask(db, { userId: user.id, title: "Old chore", dueDate: "2025-06-02" });
    const channel = suite.slack.dmChannelOf(slackId);
    const ask = async (taskId: number) => {
      suite.ollama.script(MODEL, [
        { toolCalls: [call("delete_task", { id: taskId })] },
        { content: "Please confirm the deletion." },
      ]);
      await suite.slack.sendEvent(directMessage(slackId, `delete task ${taskId}`), {
        eventId: nextEventId(),
      });
      await suite.running.slackApp.idle();
      const prompt = suite.slack.posts
        .filter((post) => post.channel === channel && JSON.stringify(post.blocks).includes(ACTION_CONFIRM))
        .at(-1);
      if (!prompt) throw new Error("no confirmation prompt");
      return { prompt, pendingId: buttonValues(prompt)[0] ?? "" };
    };

    const first = await ask(task.id);
    expect(JSON.stringify(first.prompt.blocks)).toContain(ACTION_CANCEL);
    expect(sectionTexts(first.prompt.blocks).join()).toContain("Renew passport");
    // Someone else pressing Confirm changes nothing and only they hear why.
    await suite.slack.pressButton(ACTION_CONFIRM, first.pendingId, other.slackId, {
      channel,
      ts: first.prompt.ts,
    });
    await suite.running.slackApp.idle();
    expect(first.prompt.edits).toBe(0);
    expect(suite.slack.responses.at(-1)?.body.text).toMatch(/Only the person who asked/);

    await suite.slack.pressButton(ACTION_CONFIRM, first.pendingId, slackId, { channel, ts: first.prompt.ts });
    await suite.running.slackApp.idle();
    expect(first.prompt.text).toMatch(/^Done: Delete task/);
    expect(JSON.stringify(first.prompt.blocks)).not.toContain(ACTION_CONFIRM);

    const second = await ask(doomed.id);
    suite.running.clock.advance(60 * 60_000);
    await suite.slack.pressButton(ACTION_CONFIRM, second.pendingId, slackId, {
      channel,
      ts: second.prompt.ts,
    });
    await suite.running.slackApp.idle();
    expect(second.prompt.text).toMatch(/expired/);
  });

  it("keeps running after a handler fails, and honours a ratelimited 429 on the way", async () => {
    const { slackId } = await linkedSlackUser(getDb());
    const channel = suite.slack.dmChannelOf(slackId);
    suite.slack.failNext("chat.postMessage", "internal_error");
    await suite.slack.sendEvent(directMessage(slackId, "first"), { eventId: nextEventId() });
    await suite.running.slackApp.idle();
    expect(suite.slack.posts.filter((post) => post.channel === channel)).toEqual([]);

    suite.ollama.script(MODEL, { content: "Second time lucky." });
    suite.slack.rateLimit("chat.update", { times: 1, retryAfterSec: 1 });
    await suite.slack.sendEvent(directMessage(slackId, "second"), { eventId: nextEventId() });
    await suite.running.slackApp.idle();
    const answered = suite.slack.posts.filter((post) => post.channel === channel);
    expect(answered.map((post) => post.text)).toEqual(["Second time lucky."]);
    expect(suite.slack.callsTo("chat.update").filter((recorded) => recorded.status === 429)).toHaveLength(1);
  });
});

describeEachDatabase("slack app over a Todoist account", (getDb) => {
  let accounts: AccountService | undefined;
  const suite = slackSuite(getDb, (db) => {
    accounts = todoistAccountService(db, fixedClock(START));
    return { accounts };
  });

  it("asks again with fresh Confirm / Cancel when the task changed on its Todoist after the prompt", async () => {
    const todoist = await startTodoistServer();
    try {
      const db = getDb();
      const { user, slackId } = await linkedSlackUser(db);
      if (!accounts) throw new Error("the suite has no account service");
      const { remoteId, task } = await todoistTaskOf(
        db,
        accounts,
        todoist,
        user,
        "Call the vet",
        fixedClock(START),
      );
      const channel = suite.slack.dmChannelOf(slackId);
      const prompts = () =>
        suite.slack.posts.filter(
          (post) => post.channel === channel && JSON.stringify(post.blocks).includes(ACTION_CONFIRM),
        );
      suite.ollama.script(MODEL, [
        { toolCalls: [call("delete_task", { id: task.id })] },
        { content: "Please confirm the deletion." },
      ]);
      await suite.slack.sendEvent(directMessage(slackId, "delete the vet task"), { eventId: nextEventId() });
      await suite.running.slackApp.idle();
      const [prompt] = prompts();
      if (!prompt) throw new Error("no confirmation prompt");
      const first = buttonValues(prompt)[0] ?? "";
      todoist.editTask(remoteId, { content: "Call the vet about the cat" });

      await suite.slack.pressButton(ACTION_CONFIRM, first, slackId, { channel, ts: prompt.ts });
      await suite.running.slackApp.idle();
      // The pressed prompt says what changed and loses its buttons; a new one asks about the new version.
      expect(sectionTexts(prompt.blocks).join()).toContain("Call the vet about the cat");
      expect(JSON.stringify(prompt.blocks)).not.toContain(ACTION_CONFIRM);
      const again = prompts().filter((post) => post.ts !== prompt.ts);
      expect(again).toHaveLength(1);
      const [fresh] = again;
      if (!fresh) throw new Error("not asked again");
      expect(sectionTexts(fresh.blocks).join()).toContain(
        `Delete task ${task.id} "Call the vet about the cat"?`,
      );
      expect(JSON.stringify(fresh.blocks)).toContain(ACTION_CANCEL);
      const [confirm, cancel] = buttonValues(fresh);
      expect(confirm).toBe(cancel);
      expect(confirm).not.toBe(first);
      expect(todoist.task(remoteId)?.is_deleted).toBe(false);

      await suite.slack.pressButton(ACTION_CONFIRM, confirm ?? "", slackId, { channel, ts: fresh.ts });
      await suite.running.slackApp.idle();
      expect(todoist.task(remoteId)?.is_deleted).toBe(true);
      expect(fresh.text).toMatch(/^Done: Delete task/);
    } finally {
      await todoist.close();
    }
  });
});
