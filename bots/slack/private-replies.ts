/**
 * Messages only one person in a shared channel may read: ephemeral, in the thread they wrote in
 * (`chat.postEphemeral`, which only they see; `chat:write` covers it). When Slack refuses an ephemeral
 * message (they left the channel, or cannot be shown one there), the rest goes to their DM and the channel
 * gets the core's one-line pointer instead, naming nothing.
 */
import { webApi } from "@slack/bolt";
import { type LinkedAccount, SENT_PRIVATELY_TEXT } from "../../src/core/index.ts";
import { dmChannelOf } from "./dm-channels.ts";
import type { SlackMessage } from "./format.ts";
import type { SlackHandlerDeps } from "./handler-deps.ts";

/** Slack's refusals of an ephemeral message that a DM gets round. */
const EPHEMERAL_REFUSALS = new Set(["user_not_in_channel", "not_in_channel", "channel_not_found"]);

export interface PrivateTarget {
  linked: LinkedAccount;
  channel: string;
  /** The thread the person wrote in; undefined at the channel's top level. */
  threadTs: string | undefined;
  /** Where the pointer goes when the answer has to go to the DM. */
  pointerThreadTs: string | undefined;
}

export class PrivateReplies {
  /** Set once Slack refused an ephemeral message: everything after goes to the DM. */
  private dm: string | undefined;

  constructor(
    private readonly deps: Pick<SlackHandlerDeps, "platformState">,
    private readonly client: webApi.WebClient,
    private readonly target: PrivateTarget,
  ) {}

  /** Posts `message` for the person alone; its ts (the ephemeral's or the DM's). */
  async post(message: SlackMessage | { text: string }): Promise<string> {
    if (this.dm === undefined) {
      try {
        return await this.postEphemeral(message);
      } catch (error) {
        if (!refusesEphemeral(error)) throw error;
        this.dm = await this.openDm();
      }
    }
    const posted = await this.client.chat.postMessage({ channel: this.dm, ...message });
    return posted.ts ?? "";
  }

  /** A note such as "thinking…": shown if Slack takes it, never moved to the DM. */
  async note(text: string): Promise<void> {
    if (this.dm !== undefined) return;
    await this.postEphemeral({ text }).catch(() => undefined);
  }

  private async postEphemeral(message: SlackMessage | { text: string }): Promise<string> {
    const { channel, threadTs, linked } = this.target;
    const posted = await this.client.chat.postEphemeral({
      channel,
      user: linked.identity.externalUserId,
      ...message,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return posted.message_ts ?? "";
  }

  private async openDm(): Promise<string> {
    const { channel, pointerThreadTs, linked } = this.target;
    const dm = await dmChannelOf(
      { client: this.client, platformState: this.deps.platformState },
      linked.identity,
    );
    await this.client.chat.postMessage({
      channel,
      text: SENT_PRIVATELY_TEXT,
      ...(pointerThreadTs ? { thread_ts: pointerThreadTs } : {}),
    });
    return dm;
  }
}

function refusesEphemeral(error: unknown): boolean {
  return error instanceof webApi.WebAPIPlatformError && EPHEMERAL_REFUSALS.has(error.data.error);
}
