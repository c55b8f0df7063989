/**
 * The contracts between the platform-neutral core and its edges:
 * - `Assistant` is what a platform adapter (Telegram, Slack, the terminal) calls: it translates, the core decides.
 * - `PlatformSender` is what the delivery outbox calls to post a generated briefing.
 * Implementations: `createAssistant` in `src/core/assistant-service.ts`; senders in `bots/*`.
 */

import type { SpaceKind } from "./audience.ts";
import type {
  ConversationPlatform,
  GroundingVerdict,
  Identity,
  Platform,
  Receipt,
  RunMode,
  SlotName,
  StatusCheck,
} from "./domain.ts";
import { BriefbotError } from "./errors.ts";
import type { BriefingObserver } from "./events.ts";

/** One item of the status row, e.g. "✓ checked calendar". */
export type { Receipt, StatusCheck } from "./domain.ts";

/** A generated briefing, ready to show or deliver. */
export interface BriefingMessage {
  runId: number;
  userId: number;
  slot: SlotName;
  localDate: string;
  prose: string;
  checks: StatusCheck[];
  /** "✓ checked calendar · ✓ looked at tasks · ✓ pulled weather" */
  statusRow: string;
  mode: RunMode;
}

export interface BriefingOutcome extends BriefingMessage {
  receipts: Receipt[];
  grounding: { claimsChecked: number; unbacked: string[]; action: string } | null;
  timings: Record<string, number>;
}

/** Where a conversation happens; the thread key is the platform's own (reply chain root, Slack thread_ts). */
export interface ThreadRef {
  platform: ConversationPlatform;
  threadKey: string;
  /** The briefing this thread follows up on, if any. */
  runId?: number | undefined;
  /**
   * Where the conversation is read: a person's own DM (the default), or a space others read too. In a
   * shared space nothing of the person's is looked at unless the answer needs it, so an answer that needs
   * nothing stays where it was asked.
   */
  space?: SpaceKind | undefined;
}

/** A change waiting for the user to press Confirm or Cancel. */
export interface PendingConfirmation {
  id: number;
  /** Exactly what would change, e.g. `Delete task 12 "Renew passport"?` */
  summary: string;
  expiresAt: Date;
}

/** The Undo button under a change already made; pressing it calls `Assistant.undo(id)`. */
export interface UndoOffer {
  id: number;
  /** `Undo: Created task 12 "Book dentist"` */
  summary: string;
  expiresAt: Date;
}

/** A change the answer made, as its reply states it (from the receipt), with its Undo when it has one. */
export interface ChangeNotice {
  /** `Created task 12 "Book dentist" (due 2025-06-06)` */
  report: string;
  undo?: UndoOffer;
}

export interface ChatReply {
  /** The answer, every change it made stated in it, and what waits for a Confirm. */
  text: string;
  /** Receipts made while answering (fresh tool calls). */
  receipts: Receipt[];
  pending: PendingConfirmation[];
  /** Changes made: each is also stated in `text`; platforms add an Undo button per `undo`. */
  changes: ChangeNotice[];
  /** How the grounding gate judged the answer; null when the model gave none (an apology instead). */
  grounding: GroundingVerdict | null;
  /**
   * The answer read the person's own data (`readsPersonalData` in `audience.ts`): in a shared space it goes
   * to them only (`audienceOf`).
   */
  personal: boolean;
}

export interface ReceiptsView {
  run: { id: number; slot: string; localDate: string; createdAt: Date; archived: boolean };
  receipts: Receipt[];
  /** The grounding gate's verdict on the delivered briefing, sentence by sentence; null before it ran. */
  grounding?: GroundingVerdict | null;
}

export type ConfirmationOutcome =
  | { kind: "done"; text: string; undo?: UndoOffer }
  /**
   * The object changed on its server since the user was asked: nothing was written, `text` says what
   * changed, and the same change against the server's version waits for a new Confirm (platforms show its
   * buttons, as under a reply).
   */
  | { kind: "asked-again"; text: string; pending: PendingConfirmation[] }
  | { kind: "cancelled"; text: string }
  | { kind: "expired"; text: string }
  | { kind: "not-yours" | "not-found" | "already-resolved"; text: string };

export interface Assistant {
  /** Runs a briefing now (manual trigger) and stores it; `slot` defaults from the user's local time. */
  brief(userId: number, options?: { slot?: SlotName; onEvent?: BriefingObserver }): Promise<BriefingOutcome>;
  /** Receipts of one run, or of the user's latest briefing. Undefined when there is none. */
  receipts(userId: number, runId?: number): Promise<ReceiptsView | undefined>;
  /** A message from the user: a follow-up to `thread.runId` (answered from its receipts) or plain chat. */
  reply(
    userId: number,
    thread: ThreadRef,
    text: string,
    options?: { onToken?: (fragment: string) => void },
  ): Promise<ChatReply>;
  /** The user pressed Confirm or Cancel. Only the user who owns the action may resolve it. */
  resolveConfirmation(userId: number, pendingId: number, confirmed: boolean): Promise<ConfirmationOutcome>;
  /** The user pressed Undo under a change. Only the user who made it, once, before it expires. */
  undo(userId: number, undoId: number): Promise<ConfirmationOutcome>;
}

/** Why a platform refused a delivery, so the outbox knows whether to retry. */
export class DeliveryError extends BriefbotError<"delivery_refused" | "delivery_failed"> {
  constructor(
    message: string,
    /** Permanent: blocked by the user, chat or channel not found. Never retried. */
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(permanent ? "delivery_refused" : "delivery_failed", message, options);
  }
}

export interface DeliveryReceipt {
  /** Telegram message id, or Slack `ts` of the thread parent. */
  platformMessageId: string;
  /** Where it was posted: the Telegram chat, the Slack DM or channel. */
  target: string;
}

/** One send of a briefing, as the outbox hands it to a platform's sender. */
export interface DeliveryAttempt {
  /** The user's linked account on the sender's platform, with its private chat when known. */
  recipient: Identity;
  message: BriefingMessage;
  /**
   * The outbox's claim on this send, naming where it goes (the chat or channel the sender chose): call it
   * once the post's turn has come (the sender paces) and before anything is posted. False means another
   * process holds the send: post nothing and return undefined.
   */
  begin(target?: string): Promise<boolean>;
  /**
   * What an earlier attempt already posted of this briefing (the sender's own encoding, as it last saved
   * it), so a retry — on this process or another — resumes after it; undefined on a first attempt.
   */
  progress: unknown;
  /** Saves what is posted so far, after each part of a briefing split over several messages. */
  saveProgress(progress: unknown): Promise<void>;
}

/** A sender's turn under its platform's limits; the edge's flood gate (`src/delivery/flood-gate.ts`) gives it. */
export interface SendPacer {
  /** Resolves when a post to `target` (a chat or channel) may go out; its first request then goes at once. */
  acquire(target: string): Promise<void>;
}

/**
 * Posts generated briefings on one platform; implemented by each bot adapter. A sender owns where a
 * briefing goes (a Telegram chat, a Slack DM it may open, or a configured channel) and its pacing under the
 * platform's limits; the outbox owns the exactly-once bookkeeping. A failure before `begin()` is recorded
 * on the outbox like any other.
 */
export interface PlatformSender {
  platform: Platform;
  /** The receipt of the post, or undefined when `begin()` said another process has it. */
  deliver(attempt: DeliveryAttempt): Promise<DeliveryReceipt | undefined>;
}
