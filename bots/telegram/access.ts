/**
 * The access gate: only a Telegram account linked to a briefbot user gets past it, and only in a private
 * chat. A stranger gets one polite refusal with their numeric id (so the owner can link them) and nothing
 * else: no data, no model call. The private chat id is recorded so scheduled briefings can be delivered.
 */
import type { MiddlewareFn } from "grammy";
import type { Database } from "../../db/client.ts";
import { findUserByIdentity, setIdentityChat } from "../../db/queries/users.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { BotContext } from "./handlers.ts";
import type { TelegramLogger } from "./logger.ts";
import { refusalPiece } from "./render.ts";
import { sendPiece } from "./send.ts";

/** A stranger who keeps writing is refused again only after this long, so the bot cannot be made to spam. */
const REFUSAL_QUIET_MS = 60 * 60 * 1000;

export function accessGate(deps: {
  db: Database;
  clock: Clock;
  logger: TelegramLogger;
}): MiddlewareFn<BotContext> {
  const refusedAt = new Map<number, number>();

  return async (ctx, next) => {
    const from = ctx.from;
    if (!from || from.is_bot) return;
    const chat = ctx.chat;
    if (chat && chat.type !== "private") {
      // Briefings are personal; a group would show them to everyone in it.
      if (ctx.callbackQuery)
        await ctx.answerCallbackQuery({ text: "I only work in private chats.", show_alert: true });
      return;
    }
    const found = await findUserByIdentity(deps.db, "telegram", String(from.id));
    if (!found) {
      deps.logger.info({ telegramUserId: from.id }, "telegram message from an unlinked account refused");
      if (ctx.callbackQuery) {
        await ctx.answerCallbackQuery({
          text: `You are not linked to briefbot. Your Telegram id is ${from.id}.`,
          show_alert: true,
        });
        return;
      }
      const now = deps.clock.now().getTime();
      const last = refusedAt.get(from.id);
      if (last !== undefined && now - last < REFUSAL_QUIET_MS) return;
      if (refusedAt.size > 10_000) {
        for (const [id, at] of refusedAt) if (now - at >= REFUSAL_QUIET_MS) refusedAt.delete(id);
      }
      refusedAt.set(from.id, now);
      if (chat) await sendPiece(ctx.api, chat.id, refusalPiece(from.id));
      return;
    }
    if (chat && found.identity.chatId !== String(chat.id)) {
      await setIdentityChat(deps.db, found.identity.id, String(chat.id));
    }
    ctx.account = found;
    await next();
  };
}
