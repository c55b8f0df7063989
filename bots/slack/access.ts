/**
 * Who may talk to briefbot on Slack: only accounts linked to a briefbot user (`briefbot user link --slack`),
 * through the core's one identity gate. Everyone else learns their id and how to get linked, and nothing
 * else: no data, no model call.
 */
import { identify, type LinkedAccount } from "../../src/core/index.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";

/**
 * The linked account behind a Slack user, or undefined for a stranger. A message in the bot's DM (`D…`)
 * also records that DM, so scheduled briefings can find it.
 */
export function findLinkedUser(
  deps: Pick<SlackHandlerDeps, "platformState">,
  slackUserId: string,
  channel?: string,
): Promise<LinkedAccount | undefined> {
  return identify(deps.platformState, {
    platform: "slack",
    externalUserId: slackUserId,
    privateChat: channel?.startsWith("D") ? channel : undefined,
  });
}

export function refusalText(slackUserId: string): string {
  return (
    `Sorry, I only talk to people linked to briefbot. If the owner gave you a code, send /link CODE. ` +
    `Otherwise ask them for one (briefbot user invite <name>), or to run: ` +
    `briefbot user link <name> --slack ${slackUserId} (your Slack id is ${slackUserId}).`
  );
}

/**
 * The linked account behind a slash command or a button press; a stranger is told why not, privately,
 * and gets undefined (the press's message stays as it was).
 */
export async function linkedOrRefused(
  deps: Pick<SlackHandlerDeps, "platformState">,
  slackUserId: string,
  respond: (message: {
    response_type: "ephemeral";
    replace_original: false;
    text: string;
  }) => Promise<unknown>,
): Promise<LinkedAccount | undefined> {
  const linked = await findLinkedUser(deps, slackUserId);
  if (!linked)
    await respond({ response_type: "ephemeral", replace_original: false, text: refusalText(slackUserId) });
  return linked;
}
