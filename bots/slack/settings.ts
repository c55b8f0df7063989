/**
 * /settings and /help on Slack. Both ack() first (Slack gives a command 3 seconds), then answer through the
 * response_url, ephemerally. A settings reply's choices become buttons whose value is the same short form a
 * person types after /settings, so a press is one more `Settings.handle`; the core decides everything.
 */
import type { App, BlockAction, ButtonAction, types } from "@slack/bolt";
import { commandHelpLines, errorMessage, type Settings, type SettingsReply } from "../../src/core/index.ts";
import { findLinkedUser, linkedOrRefused, refusalText } from "./access.ts";
import { escapeMrkdwn, fallbackText } from "./format.ts";
import { type SlackHandlerDeps, SORRY } from "./handler-deps.ts";

/** Action ids are `settings:<row>:<column>` (unique within a message, as Slack requires). */
type KnownBlock = types.KnownBlock;

const ACTION_PREFIX = "settings:";
const ACTION_PATTERN = /^settings:\d+:\d+$/;
/** Slack's limits: button text 75 characters, an actions block 25 elements. */
const MAX_BUTTON_TEXT = 75;
const MAX_ELEMENTS = 25;

export function registerSettings(app: App, deps: SlackHandlerDeps, settings: Settings): void {
  app.command("/settings", async ({ command, ack, respond }) => {
    await ack();
    const linked = await linkedOrRefused(deps, command.user_id, respond);
    if (!linked) return;
    const reply = await settings.handle(linked.user.id, command.text).catch((error: unknown) => {
      deps.logger.error({ userId: linked.user.id, error: errorMessage(error) }, "slack: /settings failed");
      return undefined;
    });
    await respond({ response_type: "ephemeral", ...(reply ? settingsMessage(reply) : { text: SORRY }) });
  });

  app.action<BlockAction<ButtonAction>>(ACTION_PATTERN, async ({ ack, body, action, respond }) => {
    await ack();
    const linked = await linkedOrRefused(deps, body.user.id, respond);
    if (!linked) return;
    const args = typeof action.value === "string" ? action.value : "";
    const reply = await settings.handle(linked.user.id, args).catch((error: unknown) => {
      deps.logger.error(
        { userId: linked.user.id, error: errorMessage(error) },
        "slack: settings button failed",
      );
      return undefined;
    });
    if (!reply) {
      await respond({ response_type: "ephemeral", replace_original: false, text: SORRY });
      return;
    }
    // A pick list or a zone proposal is answered once: the answer replaces it. The view is redrawn with the
    // new values and keeps its buttons; the confirmation comes under it.
    const answered = /^(pick|zone) /.test(args) && reply.kind !== "error";
    if (!answered && reply.kind === "changed") {
      const view = await settings.view(linked.user.id);
      await respond({ response_type: "ephemeral", replace_original: true, ...settingsMessage(view) });
    }
    await respond({ response_type: "ephemeral", replace_original: answered, ...settingsMessage(reply) });
  });
}

/** /help: the commands of the core's catalog. */
export function registerHelp(app: App, deps: SlackHandlerDeps): void {
  app.command("/help", async ({ command, ack, respond }) => {
    await ack();
    const linked = await findLinkedUser(deps, command.user_id);
    await respond(
      linked
        ? { response_type: "ephemeral", text: helpText() }
        : { response_type: "ephemeral", text: refusalText(command.user_id) },
    );
  });
}

/** What /help and "help" in the DM say. */
export function helpText(): string {
  return [
    "I send you short briefings from your calendar, tasks, feeds and the weather; every fact in them comes from a tool I called.",
    "Commands:",
    ...commandHelpLines().map((line) => `• ${line}`),
    "Reply in a briefing's thread to ask about it; any other DM is a normal chat.",
  ].join("\n");
}

export function settingsMessage(reply: SettingsReply): { text: string; blocks: KnownBlock[] } {
  const blocks: KnownBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: escapeMrkdwn(reply.text) } },
  ];
  reply.choices.forEach((row, rowIndex) => {
    blocks.push({
      type: "actions",
      elements: row.slice(0, MAX_ELEMENTS).map((choice, column) => ({
        type: "button",
        action_id: `${ACTION_PREFIX}${rowIndex}:${column}`,
        text: { type: "plain_text", text: shorten(choice.label, MAX_BUTTON_TEXT) },
        value: choice.args,
      })),
    });
  });
  return { text: fallbackText(reply.text), blocks };
}

function shorten(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}
