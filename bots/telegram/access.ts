/**
 * The access gate: only a Telegram account linked to a briefbot user gets past it (the core's `identify`),
 * and only in a private chat, whose id is remembered so scheduled briefings can be delivered there. A
 * stranger gets one polite refusal with their numeric id (so the owner can link them) and nothing else: no
 * data, no model call.
 */
import type { MiddlewareFn } from "grammy";
import { type Clock, identify, type Logger, type PlatformState } from "../../src/core/index.ts";
import type { BotContext } from "./handlers.ts";
import { refusalPiece } from "./render.ts";
import { sendPiece } from "./send.ts";

/** A stranger who keeps writing is refused again only after this long, so the bot cannot be made to spam. */
const REFUSAL_QUIET_MS = 60 * 60 * 1000;

export function accessGate(deps: {
  platformState: PlatformState;
  clock: Clock;
  logger: Logger;
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
    const account = await identify(deps.platformState, {
      platform: "telegram",
      externalUserId: String(from.id),
      privateChat: chat ? String(chat.id) : undefined,
    });
    if (!account) {
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
    ctx.account = account;
    await next();
  };
}
