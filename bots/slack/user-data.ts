/**
 * `/export` uploads everything stored about the user into their DM as a JSON file (files.uploadV2, which
 * needs the `files:write` scope; addresses always redacted in chat). `/forget` asks twice in the DM, with
 * buttons, before deleting it all; anything else the user says in the DM meanwhile cancels.
 */
import type { App, BlockAction, ButtonAction, webApi } from "@slack/bolt";
import { describeCounts, type ForgetQuestion, type UserDataService } from "../../src/core/index.ts";
import { findLinkedUser, linkedOrRefused } from "./access.ts";
import { dmChannelOf } from "./dm-channels.ts";
import { escapeMrkdwn } from "./format.ts";
import { type SlackHandlerDeps, SORRY } from "./handler-deps.ts";

export const ACTION_FORGET_YES = "forget_yes";
export const ACTION_FORGET_NO = "forget_no";

export const FIRST_QUESTION =
  "Forget you? This deletes everything I have stored about you: tasks, notes, projects, events, calendar and feed subscriptions, briefings with their receipts, and our conversations.";
export const SECOND_QUESTION =
  "Are you sure? This deletes everything, at once, and cannot be undone. Afterwards I will not know you: someone would have to link your account again.";
const NOTHING_DELETED = "Nothing was deleted.";

export function registerUserData(app: App, deps: SlackHandlerDeps & { userData: UserDataService }): void {
  const { userData, logger } = deps;

  app.command("/export", async ({ command, ack, respond, client }) => {
    await ack();
    const linked = await linkedOrRefused(deps, command.user_id, respond);
    if (!linked) return;
    await userData.cancelForget(linked.user.id);
    try {
      const exported = await userData.exportUser(linked.user.id);
      if (!exported) return;
      const channel = await dmChannelOf({ client, platformState: deps.platformState }, linked.identity);
      await client.files.uploadV2({
        channel_id: channel,
        file: Buffer.from(exported.bytes),
        filename: exported.filename,
        title: exported.filename,
        initial_comment:
          "Everything I have stored about you, as JSON. Calendar and feed addresses are shortened: they work like passwords.",
      });
      if (command.channel_id !== channel)
        await respond({ response_type: "ephemeral", text: "Sent: the file is in our DM." });
    } catch (error) {
      logger.error({ err: error, userId: linked.user.id }, "slack: /export failed");
      await respond({ response_type: "ephemeral", text: SORRY });
    }
  });

  app.command("/forget", async ({ command, ack, respond, client }) => {
    await ack();
    const linked = await linkedOrRefused(deps, command.user_id, respond);
    if (!linked) return;
    const channel = await dmChannelOf({ client, platformState: deps.platformState }, linked.identity);
    await ask(client, channel, FIRST_QUESTION, await userData.beginForget(linked.user.id), false);
    if (command.channel_id !== channel)
      await respond({ response_type: "ephemeral", text: "I asked you in our DM." });
  });

  const answer = (confirmed: boolean) =>
    app.action<BlockAction<ButtonAction>>(
      confirmed ? ACTION_FORGET_YES : ACTION_FORGET_NO,
      async ({ action, body, ack, respond, client }) => {
        await ack();
        const linked = await linkedOrRefused(deps, body.user.id, respond);
        if (!linked) return;
        const outcome = await userData.answerForget(linked.user.id, action.value ?? "", confirmed);
        const channel = body.channel?.id ?? body.container.channel_id;
        if (outcome.kind === "stale") {
          await respond({
            response_type: "ephemeral",
            replace_original: false,
            text: `This question is no longer open. ${NOTHING_DELETED} Use /forget to start again.`,
          });
          return;
        }
        // The buttons go: each question is answered once.
        const pressed = body.message;
        if (pressed && channel) {
          const text = typeof pressed.text === "string" ? pressed.text : "";
          await client.chat
            .update({ channel, ts: pressed.ts, text, blocks: [section(text)] })
            .catch((error: unknown) => logger.warn({ err: error }, "slack: could not remove forget buttons"));
        }
        if (!channel) return;
        if (outcome.kind === "ask-again") {
          await ask(client, channel, SECOND_QUESTION, outcome.question, true);
        } else if (outcome.kind === "removed") {
          logger.info(
            { userId: linked.user.id, counts: outcome.counts },
            "slack: user forgotten at their request",
          );
          await client.chat.postMessage({
            channel,
            text: `Done: I deleted everything I had stored about you (${describeCounts(outcome.counts)}). Goodbye!`,
          });
        } else if (outcome.kind === "expired") {
          await client.chat.postMessage({
            channel,
            text: `That question expired. ${NOTHING_DELETED} Use /forget to start again.`,
          });
        } else {
          await client.chat.postMessage({ channel, text: `Cancelled. ${NOTHING_DELETED}` });
        }
      },
    );
  answer(true);
  answer(false);

  // Anything else said in the DM while a question is open is not a yes.
  app.event("message", async ({ event, client }) => {
    if (event.subtype !== undefined || event.bot_id !== undefined || event.channel_type !== "im") return;
    const user = "user" in event && typeof event.user === "string" ? event.user : undefined;
    if (!user) return;
    const linked = await findLinkedUser(deps, user);
    if (linked && (await userData.cancelForget(linked.user.id)))
      await client.chat.postMessage({
        channel: event.channel,
        text: `Forgetting cancelled. ${NOTHING_DELETED}`,
      });
  });
}

async function ask(
  client: webApi.WebClient,
  channel: string,
  question: string,
  open: ForgetQuestion,
  final: boolean,
): Promise<void> {
  await client.chat.postMessage({
    channel,
    text: question,
    blocks: [
      section(question),
      {
        type: "actions",
        block_id: "forget",
        elements: [
          {
            type: "button",
            action_id: ACTION_FORGET_YES,
            style: "danger",
            text: { type: "plain_text", text: final ? "Yes, delete everything" : "Yes, continue" },
            value: open.token,
          },
          {
            type: "button",
            action_id: ACTION_FORGET_NO,
            text: { type: "plain_text", text: "Cancel" },
            value: open.token,
          },
        ],
      },
    ],
  });
}

function section(text: string) {
  return { type: "section", text: { type: "mrkdwn", text: escapeMrkdwn(text) } };
}
