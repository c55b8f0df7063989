/**
 * `/brief [slot]` and `/receipts`. Slack gives a command 3 seconds, so both ack() before anything else
 * (even the access check) and do the work afterwards: the briefing lands in the user's DM as a thread
 * parent, receipts come back through the command's response_url.
 */
import type { App, RespondFn } from "@slack/bolt";
import {
  type BriefingEvent,
  isSlotName,
  type LinkedAccount,
  progressLine,
  SLOT_NAMES,
  type SlotName,
} from "../../src/core/index.ts";
import { linkedOrRefused } from "./access.ts";
import { postBriefing } from "./delivery.ts";
import { dmChannelOf } from "./dm-channels.ts";
import { receiptsMessages, receiptsSlice } from "./format.ts";
import { type SlackHandlerDeps, SORRY } from "./handler-deps.ts";

/** A response_url takes at most 5 posts: four pages, and More for the next (whose press brings its own). */
const PAGES_PER_RESPONSE = 4;

export function registerCommands(app: App, deps: SlackHandlerDeps): void {
  app.command("/brief", async ({ command, ack, respond, client }) => {
    await ack();
    const linked = await linkedOrRefused(deps, command.user_id, respond);
    if (!linked) return;
    const slot = parseSlot(command.text);
    if (slot === "invalid") {
      await respond({
        response_type: "ephemeral",
        text: `Unknown slot "${command.text.trim()}". Use /brief, or /brief ${SLOT_NAMES.join(" | ")}.`,
      });
      return;
    }
    await respond({
      response_type: "ephemeral",
      text: "Working on your briefing; it will appear in our DM.",
    });
    // One more use of the response_url (of its five) when sources are fetched first: "refreshing weather…".
    let progress: Promise<unknown> = Promise.resolve();
    const onEvent = (event: BriefingEvent) => {
      if (event.type !== "refresh-start") return;
      progress = respond({
        response_type: "ephemeral",
        replace_original: true,
        text: `Working on your briefing (${progressLine(event)}); it will appear in our DM.`,
      }).catch((error: unknown) => deps.logger.warn({ err: error }, "slack: /brief progress failed"));
    };
    try {
      const outcome = await deps.assistant.brief(linked.user.id, { ...(slot ? { slot } : {}), onEvent });
      await progress;
      const channel = await dmChannelOf({ client, platformState: deps.platformState }, linked.identity);
      await postBriefing({ ...deps, client }, channel, outcome);
    } catch (error) {
      deps.logger.error({ err: error, userId: linked.user.id }, "slack: /brief failed");
      await respond({ response_type: "ephemeral", text: SORRY });
    }
  });

  app.command("/receipts", async ({ command, ack, respond }) => {
    await ack();
    const linked = await linkedOrRefused(deps, command.user_id, respond);
    if (!linked) return;
    const runId = parseRunId(command.text);
    await respondWithReceipts(deps, linked, respond, runId);
  });
}

async function respondWithReceipts(
  deps: SlackHandlerDeps,
  linked: LinkedAccount,
  respond: RespondFn,
  runId: number | undefined,
): Promise<void> {
  const view = await deps.assistant.receipts(linked.user.id, runId);
  if (!view) {
    await respond({
      response_type: "ephemeral",
      text: runId === undefined ? "No briefing yet: try /brief." : `No briefing ${runId} of yours.`,
    });
    return;
  }
  const pages = receiptsSlice(
    receiptsMessages(view, linked.user.timeZone, deps.clock.now()),
    0,
    PAGES_PER_RESPONSE,
    view.run.id,
  );
  for (const page of pages) {
    await respond({ response_type: "ephemeral", text: page.text, blocks: page.blocks });
  }
}

function parseSlot(text: string): SlotName | undefined | "invalid" {
  const wanted = text.trim().toLowerCase();
  if (wanted === "") return undefined;
  return isSlotName(wanted) ? wanted : "invalid";
}

function parseRunId(text: string): number | undefined {
  const match = text.trim().match(/^#?(\d+)$/);
  return match?.[1] ? Number(match[1]) : undefined;
}
