/**
 * The one identity gate of every platform: who a platform account is, and where to reach them. Only an
 * account linked to a user (`briefbot user link`) gets past it; what a stranger is told is each adapter's
 * own refusal text, and a stranger reaches no data and no model.
 */
import type { LinkedAccount, Platform } from "./domain.ts";
import type { PlatformState } from "./ports.ts";

export interface AccountLookup {
  platform: Platform;
  /** Telegram's numeric user id, or Slack's user id (U…). */
  externalUserId: string;
  /**
   * The private chat the message came from (Telegram private chat, Slack DM channel), so scheduled briefings
   * can be delivered there; leave it out for group chats and channels.
   */
  privateChat?: string | undefined;
}

/** The linked account behind a platform user, its private chat remembered; undefined for a stranger. */
export async function identify(
  state: PlatformState,
  lookup: AccountLookup,
): Promise<LinkedAccount | undefined> {
  const account = await state.findAccount(lookup.platform, lookup.externalUserId);
  if (!account) return undefined;
  const chat = lookup.privateChat;
  if (chat === undefined || account.identity.chatId === chat) return account;
  await state.rememberChat(account.identity.id, chat);
  return { ...account, identity: { ...account.identity, chatId: chat } };
}
