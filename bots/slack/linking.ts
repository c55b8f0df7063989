/**
 * Linking by one-time code on Slack: the `/link CODE` slash command, and `link CODE` (or `/link CODE`) typed
 * as a DM, for people Slack won't let run a command there. A valid code links the stranger and remembers
 * the DM and team; anything else gets one line and no data. With self-signup on, `/link` without a code
 * creates their user.
 */
import type { App, webApi } from "@slack/bolt";
import {
  type Linking,
  type LinkSender,
  linkReply,
  normaliseCode,
  type ReplyStyle,
} from "../../src/core/index.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";

const STYLE: ReplyStyle = {
  linkCommand: "/link",
  deliveredWhere: "in our DM",
  nextSteps: "Use /brief for a briefing now, or write to me here.",
};

export function registerLinkCommand(app: App, deps: SlackHandlerDeps & { linking: Linking }): void {
  app.command("/link", async ({ command, ack, respond }) => {
    // Slack gives a command three seconds; the database work comes after the ack.
    await ack();
    const sender: LinkSender = {
      platform: "slack",
      externalUserId: command.user_id,
      chatId: command.channel_id.startsWith("D") ? command.channel_id : undefined,
      teamId: command.team_id || undefined,
    };
    const outcome = await deps.linking.link(sender, command.text, { username: command.user_name });
    deps.logger.info({ slackUser: command.user_id, outcome: outcome.kind }, "slack: link attempt");
    await respond({ response_type: "ephemeral", text: linkReply(outcome, STYLE) });
  });
}

/** The code of a DM that asks to link (`link K7QX-29MB`, `/link …`, a bare `link`), or undefined. */
export function linkRequestIn(text: string): string | undefined {
  const match = /^\s*(\/?)link\b(?:\s+([\s\S]*))?$/i.exec(text);
  if (!match) return undefined;
  const argument = (match[2] ?? "").trim();
  // "link my notes to the project" is chat, not a code; with the slash it is always the command.
  if (match[1] === "" && argument !== "" && normaliseCode(argument) === undefined) return undefined;
  return argument;
}

/** Handles a DM that asks to link; false when the message is something else. */
export async function linkFromDirectMessage(
  deps: SlackHandlerDeps & { linking: Linking },
  client: webApi.WebClient,
  message: { user: string; channel: string; text: string; teamId: string | undefined },
): Promise<boolean> {
  const code = linkRequestIn(message.text);
  if (code === undefined) return false;
  const outcome = await deps.linking.link(
    { platform: "slack", externalUserId: message.user, chatId: message.channel, teamId: message.teamId },
    code,
  );
  deps.logger.info({ slackUser: message.user, outcome: outcome.kind }, "slack: link attempt by DM");
  await client.chat.postMessage({ channel: message.channel, text: linkReply(outcome, STYLE) });
  return true;
}
