/**
 * Hands an update's `UpdateProgress` (bots/durable-intake.ts) from the intake to the handlers, which grammY
 * gives only the update: keyed by the update object itself, which becomes `ctx.update` unchanged.
 */
import type { Bot, Context } from "grammy";
import type { Update } from "grammy/types";
import { UNTRACKED, type UpdateProgress } from "../durable-intake.ts";

const progressByUpdate = new WeakMap<Update, UpdateProgress>();

/** `bot.handleUpdate`, with `progress` where the handlers of this update find it (`progressOf`). */
export function handleTracked<C extends Context>(
  bot: Bot<C>,
  update: Update,
  progress: UpdateProgress,
): Promise<void> {
  progressByUpdate.set(update, progress);
  return bot.handleUpdate(update);
}

/** The progress of the update `ctx` handles; untracked when it came through no durable intake. */
export function progressOf(ctx: Context): UpdateProgress {
  return progressByUpdate.get(ctx.update) ?? UNTRACKED;
}
