/**
 * Buttons: Receipts (under a briefing) posts the run's receipts into its thread; Confirm / Cancel resolve a
 * destructive action. Only linked users get anywhere, and the core decides whose run or action it is.
 */
import type { App, BlockAction, ButtonAction, webApi } from "@slack/bolt";
import { findLinkedUser, refusalText } from "./access.ts";
import { limitPages } from "./commands.ts";
import {
  ACTION_CANCEL,
  ACTION_CONFIRM,
  ACTION_RECEIPTS,
  escapeMrkdwn,
  fallbackText,
  receiptsMessages,
} from "./format.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";

/** Receipts posted into a thread are capped so one press can't flood a channel. */
const MAX_THREAD_PAGES = 10;

export function registerActions(app: App, deps: SlackHandlerDeps): void {
  app.action<BlockAction<ButtonAction>>(ACTION_RECEIPTS, async ({ action, body, ack, respond, client }) => {
    await ack();
    const linked = await findLinkedUser(deps, body.user.id);
    if (!linked) {
      await respond({ response_type: "ephemeral", replace_original: false, text: refusalText(body.user.id) });
      return;
    }
    const runId = Number(action.value);
    const view = Number.isInteger(runId) ? await deps.assistant.receipts(linked.user.id, runId) : undefined;
    if (!view) {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        text: "These receipts belong to someone else's briefing, or are gone.",
      });
      return;
    }
    const place = messagePlace(body);
    const pages = limitPages(
      receiptsMessages(view, linked.user.timeZone, deps.clock.now()),
      MAX_THREAD_PAGES,
      view.run.id,
    );
    if (!place) {
      for (const page of pages.slice(0, 5)) {
        await respond({
          response_type: "ephemeral",
          replace_original: false,
          text: page.text,
          blocks: page.blocks,
        });
      }
      return;
    }
    for (const page of pages) {
      await client.chat.postMessage({
        channel: place.channel,
        thread_ts: place.threadTs,
        text: page.text,
        blocks: page.blocks,
      });
    }
  });

  const resolve = (confirmed: boolean) =>
    async function resolvePending({
      action,
      body,
      ack,
      respond,
      client,
    }: {
      action: ButtonAction;
      body: BlockAction<ButtonAction>;
      ack: () => Promise<void>;
      respond: (message: {
        response_type: "ephemeral";
        replace_original: false;
        text: string;
      }) => Promise<unknown>;
      client: webApi.WebClient;
    }): Promise<void> {
      await ack();
      const linked = await findLinkedUser(deps, body.user.id);
      if (!linked) {
        await respond({
          response_type: "ephemeral",
          replace_original: false,
          text: refusalText(body.user.id),
        });
        return;
      }
      const pendingId = Number(action.value);
      const outcome = await deps.assistant.resolveConfirmation(linked.user.id, pendingId, confirmed);
      const place =
        body.message && body.channel ? { channel: body.channel.id, ts: body.message.ts } : undefined;
      if (outcome.kind === "not-yours" || outcome.kind === "not-found" || !place) {
        // The buttons stay for their owner; only the presser hears why nothing happened.
        await respond({ response_type: "ephemeral", replace_original: false, text: outcome.text });
        return;
      }
      const mark = outcome.kind === "done" ? "✓" : outcome.kind === "cancelled" ? "✗" : "⌛";
      await client.chat.update({
        channel: place.channel,
        ts: place.ts,
        text: fallbackText(outcome.text),
        blocks: [
          {
            type: "section",
            text: { type: "mrkdwn", text: `${mark} ${escapeMrkdwn(outcome.text).slice(0, 2900)}` },
          },
        ],
      });
    };

  app.action<BlockAction<ButtonAction>>(ACTION_CONFIRM, resolve(true));
  app.action<BlockAction<ButtonAction>>(ACTION_CANCEL, resolve(false));
}

/** Where the pressed message lives: its channel and the thread to post into (its own, or the one it is in). */
function messagePlace(body: BlockAction<ButtonAction>): { channel: string; threadTs: string } | undefined {
  const channel = body.channel?.id ?? body.container.channel_id;
  const message = body.message;
  const threadTs = message?.thread_ts ?? message?.ts ?? body.container.message_ts;
  if (typeof channel !== "string" || typeof threadTs !== "string") return undefined;
  return { channel, threadTs };
}
