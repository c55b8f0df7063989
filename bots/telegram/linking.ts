/**
 * `/link CODE` and `/start CODE` (what Telegram sends for the deep link `t.me/<bot>?start=CODE`), before the
 * access gate: a stranger with a valid one-time code is linked here, and this chat becomes where their
 * briefings go. Everything else passes on to the gate, so a stranger still reaches no data and no model.
 * With self-signup on, `/start` without a code from a stranger creates their user.
 */
import type { MiddlewareFn } from "grammy";
import { type Linking, type Logger, linkReply, type ReplyStyle } from "../../src/core/index.ts";
import { text } from "./format.ts";
import type { BotContext } from "./handlers.ts";
import { sendPiece } from "./send.ts";

const STYLE: ReplyStyle = {
  linkCommand: "/link",
  deliveredWhere: "here",
  nextSteps: "Send /brief for a briefing now, or /help to see what I can do.",
};

export function linkingGate(deps: { linking: Linking; logger: Logger }): MiddlewareFn<BotContext> {
  const { linking, logger } = deps;
  return async (ctx, next) => {
    const message = ctx.message;
    const from = ctx.from;
    if (!message?.text || !from || from.is_bot || ctx.chat?.type !== "private") return next();
    const command = /^\/(start|link)(?:@\w+)?(?:\s+([\s\S]*))?$/i.exec(message.text.trim());
    const startsWithCommand = message.entities?.some(
      (entity) => entity.type === "bot_command" && entity.offset === 0,
    );
    if (!command || !startsWithCommand) return next();
    const name = command[1]?.toLowerCase();
    const code = (command[2] ?? "").trim();
    // A bare /start is the greeting (or the gate's refusal), unless it is how strangers sign up.
    if (name === "start" && code === "" && !linking.selfSignup) return next();
    const outcome = await linking.link(
      { platform: "telegram", externalUserId: String(from.id), chatId: String(message.chat.id) },
      code,
      { username: from.username },
    );
    if (name === "start" && code === "" && outcome.kind === "already-linked") return next();
    logger.info({ telegramUserId: from.id, outcome: outcome.kind }, "telegram link attempt");
    await sendPiece(ctx.api, message.chat.id, text(linkReply(outcome, STYLE)));
  };
}
