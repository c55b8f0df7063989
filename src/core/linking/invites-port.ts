/**
 * The storage port of linking by one-time code. `db/stores/invites.ts` implements it; codes reach it in
 * their normalised form and are stored only as a hash.
 */
import type { LinkedAccount, Platform } from "../domain.ts";

/** The platform account asking to be linked, and where to reach it once it is. */
export interface LinkSender {
  platform: Platform;
  /** Telegram's numeric user id, or Slack's user id (U…). */
  externalUserId: string;
  /** Telegram private chat, Slack DM channel (D…), when known. */
  chatId?: string | undefined;
  /** Slack team (T…). */
  teamId?: string | undefined;
}

export type RedeemResult =
  | { kind: "linked"; account: LinkedAccount }
  /** Unknown, used, replaced or expired: deliberately one answer, so codes can't be probed. */
  | { kind: "invalid" }
  /** The account was linked (to someone) in the meantime; the code stays unused. */
  | { kind: "already-linked"; account: LinkedAccount };

export interface Invites {
  /** Stores a new code for the user and retires their earlier unused ones; returns how many it retired. */
  issue: (invite: { userId: number; code: string; createdAt: Date; expiresAt: Date }) => Promise<{
    replaced: number;
  }>;
  /**
   * Spends the code and links the sender to its user, atomically: of two concurrent redeems one links and
   * the other finds the code used. Success also forgets the sender's failed attempts.
   */
  redeem: (code: string, sender: LinkSender, at: Date) => Promise<RedeemResult>;
  /** When this sender's failed attempts at or after `since` were made, oldest first. */
  failuresSince: (sender: LinkSender, since: Date) => Promise<Date[]>;
  /** Counts a failed attempt; attempts older than `forgetBefore` (anyone's) are dropped. */
  recordFailure: (sender: LinkSender, at: Date, forgetBefore: Date) => Promise<void>;
  /**
   * Self-signup: a new user named `name`, or `name-2`, `name-3`… when taken, linked to the sender.
   * `already-linked` when the account got linked meanwhile (nothing is created then).
   */
  signup: (
    user: { name: string; timeZone: string },
    sender: LinkSender,
    at: Date,
  ) => Promise<Exclude<RedeemResult, { kind: "invalid" }>>;
}
