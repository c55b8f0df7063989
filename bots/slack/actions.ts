/**
 * Buttons: Receipts (under a briefing) posts the run's receipts into its thread, a few pages at a time with
 * More for the rest; Confirm / Cancel resolve a change waiting for the user; Undo takes back a change a reply
 * reported. Only linked users get anywhere, and the core decides whose run or action it is, and whether what
 * a press shows may be read in the channel it came from (otherwise only the presser sees it).
 */
import type { App, BlockAction, ButtonAction, RespondFn, types, webApi } from "@slack/bolt";
import { audienceOf, type ConfirmationOutcome, type LinkedAccount } from "../../src/core/index.ts";
import { linkedOrRefused } from "./access.ts";
import {
  ACTION_CANCEL,
  ACTION_CONFIRM,
  ACTION_RECEIPTS,
  ACTION_RECEIPTS_MORE,
  ACTION_UNDO,
  confirmationMessage,
  escapeMrkdwn,
  fallbackText,
  receiptsMessages,
  receiptsSlice,
  undoBlock,
} from "./format.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";
import { spaceOf } from "./spaces.ts";

/** Pages one press posts (into a thread, so one press can't flood it) or answers ephemerally. */
const PAGES_PER_PRESS = 2;
export function registerActions(app: App, deps: SlackHandlerDeps): void {
  /** Pages from `from` on, where the pressed message is: into its thread, or ephemerally. */
  const showReceipts = async (
    linked: LinkedAccount,
    body: BlockAction<ButtonAction>,
    respond: RespondFn,
    client: webApi.WebClient,
    runId: number,
    from: number,
  ) => {
    const view = Number.isInteger(runId) ? await deps.assistant.receipts(linked.user.id, runId) : undefined;
    if (!view) {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        text: "These receipts belong to someone else's briefing, or are gone.",
      });
      return;
    }
    const all = receiptsMessages(view, linked.user.timeZone, deps.clock.now());
    const pages = receiptsSlice(all, Math.min(from, all.length - 1), PAGES_PER_PRESS, view.run.id);
    // Receipts are the person's data: into the thread only where everyone there may read them.
    const place = publicPlace(deps, body);
    for (const page of pages) {
      if (place) {
        await client.chat.postMessage({
          channel: place.channel,
          thread_ts: place.threadTs,
          text: page.text,
          blocks: page.blocks,
        });
      } else {
        await respond({
          response_type: "ephemeral",
          replace_original: false,
          text: page.text,
          blocks: page.blocks,
        });
      }
    }
  };

  app.action<BlockAction<ButtonAction>>(ACTION_RECEIPTS, async ({ action, body, ack, respond, client }) => {
    await ack();
    const linked = await linkedOrRefused(deps, body.user.id, respond);
    if (!linked) return;
    await showReceipts(linked, body, respond, client, Number(action.value), 0);
  });

  app.action<BlockAction<ButtonAction>>(
    ACTION_RECEIPTS_MORE,
    async ({ action, body, ack, respond, client }) => {
      await ack();
      const linked = await linkedOrRefused(deps, body.user.id, respond);
      if (!linked) return;
      const [runId, page] = (action.value ?? "").split(":").map(Number);
      await showReceipts(linked, body, respond, client, runId ?? Number.NaN, page ?? 0);
    },
  );

  app.action<BlockAction<ButtonAction>>(ACTION_UNDO, async ({ action, body, ack, respond, client }) => {
    await ack();
    const linked = await linkedOrRefused(deps, body.user.id, respond);
    if (!linked) return;
    const outcome = await deps.assistant.undo(linked.user.id, Number(action.value));
    const place = messagePlace(body);
    if (outcome.kind === "not-yours" || outcome.kind === "not-found" || !place || !body.message) {
      await respond({ response_type: "ephemeral", replace_original: false, text: outcome.text });
      return;
    }
    // The pressed button goes (it works once); the outcome, which names the person's item, is said in the
    // same thread where everyone there may read it, and to the presser alone elsewhere.
    const blocks = withoutButton(body.message.blocks as types.KnownBlock[] | undefined, action.value);
    await client.chat.update({
      channel: place.channel,
      ts: body.message.ts,
      text: typeof body.message.text === "string" ? body.message.text : outcome.text,
      blocks,
    });
    if (publicPlace(deps, body)) {
      await client.chat.postMessage({
        channel: place.channel,
        thread_ts: place.threadTs,
        text: fallbackText(outcome.text),
      });
    } else {
      await respond({ response_type: "ephemeral", replace_original: false, text: outcome.text });
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
      respond: RespondFn;
      client: webApi.WebClient;
    }): Promise<void> {
      await ack();
      const linked = await linkedOrRefused(deps, body.user.id, respond);
      if (!linked) return;
      const pendingId = Number(action.value);
      const outcome = await deps.assistant.resolveConfirmation(linked.user.id, pendingId, confirmed);
      const ephemeral = body.container.is_ephemeral === true;
      const place =
        body.message && body.channel ? { channel: body.channel.id, ts: body.message.ts } : undefined;
      if (outcome.kind === "not-yours" || outcome.kind === "not-found" || (!place && !ephemeral)) {
        // The buttons stay for their owner; only the presser hears why nothing happened.
        await respond({ response_type: "ephemeral", replace_original: false, text: outcome.text });
        return;
      }
      const message = { text: fallbackText(outcome.text), blocks: outcomeBlocks(outcome) };
      // A prompt only its owner saw is replaced through the press's response_url: chat.update can't reach it.
      if (ephemeral || !place)
        await respond({ response_type: "ephemeral", replace_original: true, ...message });
      else await client.chat.update({ channel: place.channel, ts: place.ts, ...message });
      // Changed on its server since: the same change against the new version gets fresh buttons, seen by
      // whoever saw the prompt pressed.
      if (outcome.kind !== "asked-again") return;
      const thread = messagePlace(body);
      for (const pending of outcome.pending) {
        const prompt = confirmationMessage(pending, linked.user.timeZone);
        if (ephemeral || !thread)
          await respond({ response_type: "ephemeral", replace_original: false, ...prompt });
        else
          await client.chat.postMessage({ channel: thread.channel, thread_ts: thread.threadTs, ...prompt });
      }
    };

  app.action<BlockAction<ButtonAction>>(ACTION_CONFIRM, resolve(true));
  app.action<BlockAction<ButtonAction>>(ACTION_CANCEL, resolve(false));
}

/** The resolved prompt: what happened, and the Undo of a change made. */
function outcomeBlocks(outcome: ConfirmationOutcome): types.KnownBlock[] {
  const mark =
    outcome.kind === "done"
      ? "✓"
      : outcome.kind === "cancelled"
        ? "✗"
        : outcome.kind === "asked-again"
          ? "↻"
          : "⌛";
  const undo =
    outcome.kind === "done" && outcome.undo
      ? undoBlock([{ report: outcome.text.replace(/^Done: /, "").replace(/\.$/, ""), undo: outcome.undo }])
      : undefined;
  return [
    {
      type: "section",
      text: { type: "mrkdwn", text: `${mark} ${escapeMrkdwn(outcome.text).slice(0, 2900)}` },
    },
    ...(undo ? [undo] : []),
  ];
}

/**
 * Where a press may be answered for everyone to read: the pressed message's place, when it is no ephemeral
 * message and the core lets the person's data be shown in its space. Undefined means: to the presser only.
 */
function publicPlace(
  deps: SlackHandlerDeps,
  body: BlockAction<ButtonAction>,
): { channel: string; threadTs: string } | undefined {
  if (body.container.is_ephemeral === true) return undefined;
  const place = messagePlace(body);
  return place && audienceOf(spaceOf(deps, place.channel), true) === "space" ? place : undefined;
}

/** Where the pressed message lives: its channel and the thread to post into (its own, or the one it is in). */
function messagePlace(body: BlockAction<ButtonAction>): { channel: string; threadTs: string } | undefined {
  const channel = body.channel?.id ?? body.container.channel_id;
  const message = body.message;
  const threadTs = message?.thread_ts ?? message?.ts ?? body.container.message_ts;
  if (typeof channel !== "string" || typeof threadTs !== "string") return undefined;
  return { channel, threadTs };
}

/** The message's blocks without the button whose value was pressed (and without an actions block left empty). */
function withoutButton(
  blocks: types.KnownBlock[] | undefined,
  value: string | undefined,
): types.KnownBlock[] {
  const kept: types.KnownBlock[] = [];
  for (const block of blocks ?? []) {
    if (block.type !== "actions") {
      kept.push(block);
      continue;
    }
    const elements = block.elements.filter((element) => !("value" in element) || element.value !== value);
    if (elements.length > 0) kept.push({ ...block, elements } as types.ActionsBlock);
  }
  return kept;
}
