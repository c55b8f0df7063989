/**
 * Showing work in progress: the typing indicator (it fades after ~5 s, so it is repeated) and a message
 * that follows progress or streamed text with edits at least `minIntervalMs` apart, well inside
 * Telegram's per-chat limits. The final answer replaces it (see `post.ts`).
 */
import type { Api } from "grammy";
import { type Clock, errorMessage, type Logger } from "../../src/core/index.ts";
import { MESSAGE_LIMIT, truncate } from "./format.ts";

const TYPING_REPEAT_MS = 4_000;

export function startTyping(api: Api, chatId: number, logger: Logger): { stop(): void } {
  const send = () => {
    api.sendChatAction(chatId, "typing").catch((error: unknown) => {
      logger.warn({ chatId, error: errorMessage(error) }, "telegram typing indicator failed");
    });
  };
  send();
  const timer = setInterval(send, TYPING_REPEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

export interface LiveMessageOptions {
  replyTo?: number | undefined;
  minIntervalMs?: number;
  /** A message already showing (left by a process that stopped mid-answer): edited instead of a new one. */
  messageId?: number | undefined;
  /** Awaited once the message is sent, before the next edit (the update's progress records it). */
  onSent?: (messageId: number) => Promise<void>;
}

/** A plain-text message kept up to date, edits throttled; every API call runs in order. */
export class LiveMessage {
  messageId: number | undefined;
  private shown = "";
  private lastAt = Number.NEGATIVE_INFINITY;
  private chain: Promise<void> = Promise.resolve();
  private busy = false;
  private readonly minIntervalMs: number;

  constructor(
    private readonly api: Api,
    private readonly chatId: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: LiveMessageOptions = {},
  ) {
    this.minIntervalMs = options.minIntervalMs ?? 1_500;
    this.messageId = options.messageId;
  }

  /** Shows `content` if the last edit is old enough; otherwise skips it (a later update or the final answer wins). */
  update(content: string): void {
    const next = truncate(content.trim(), MESSAGE_LIMIT - 8);
    if (next === "" || next === this.shown || this.busy) return;
    const now = this.clock.now().getTime();
    if (this.messageId !== undefined && now - this.lastAt < this.minIntervalMs) return;
    this.busy = true;
    this.lastAt = now;
    this.shown = next;
    this.chain = this.chain
      .then(async () => {
        if (this.messageId === undefined) {
          const message = await this.api.sendMessage(this.chatId, next, {
            ...(this.options.replyTo !== undefined
              ? { reply_parameters: { message_id: this.options.replyTo, allow_sending_without_reply: true } }
              : {}),
          });
          this.messageId = message.message_id;
          await this.options.onSent?.(message.message_id);
        } else {
          await this.api.editMessageText(this.chatId, this.messageId, next);
        }
      })
      .catch((error: unknown) => {
        this.logger.warn({ chatId: this.chatId, error: errorMessage(error) }, "telegram live update failed");
      })
      .finally(() => {
        this.busy = false;
      });
  }

  /** Waits for the update in flight, so the final answer is not overwritten by a late edit. */
  settle(): Promise<void> {
    return this.chain;
  }
}
