/**
 * Linking a platform account to a briefbot user without the owner typing platform ids: the owner issues a
 * one-time code (`briefbot user invite`), the person sends `/link CODE` (or Telegram's `/start CODE`), and
 * this service decides. A wrong, used and expired code get the same answer, and a sender who keeps guessing
 * is told to wait: the limit lives in the database, so replicas share it.
 */
import type { Clock } from "../clock.ts";
import type { LinkedAccount } from "../domain.ts";
import type { PlatformState } from "../ports.ts";
import { newCode, normaliseCode, type RandomBytes, webRandomBytes } from "./code.ts";
import type { Invites, LinkSender } from "./invites-port.ts";

const HOUR_MS = 60 * 60 * 1000;
export const DEFAULT_INVITE_HOURS = 24;
/** Failed codes per sender per window; enough for typos, far too few to guess 32⁸ codes. */
export const MAX_FAILED_ATTEMPTS = 5;
export const ATTEMPT_WINDOW_MS = HOUR_MS;

export type LinkOutcome =
  | { kind: "linked"; account: LinkedAccount; signedUp: boolean }
  | { kind: "already-linked"; account: LinkedAccount }
  /** Wrong, used or expired: the caller shows one line for all three. */
  | { kind: "refused" }
  | { kind: "rate-limited"; retryAfterMinutes: number }
  /** No code given and self-signup is off: the caller explains how to get a code. */
  | { kind: "code-needed" };

export interface IssuedInvite {
  /** As people type it, `XXXX-XXXX`; shown once and never stored. */
  code: string;
  expiresAt: Date;
  /** Earlier unused codes of the user that no longer work. */
  replaced: number;
}

export interface Linking {
  /** Whether `/start` (or `/link`) without a code creates a new user. */
  readonly selfSignup: boolean;
  /** A new one-time code for the user, valid for `validForMs` (default 24 h); earlier ones stop working. */
  invite(userId: number, validForMs?: number): Promise<IssuedInvite>;
  /** Links the sender with `typedCode`, or, with no code, signs them up when self-signup is on. */
  link(
    sender: LinkSender,
    typedCode: string,
    profile?: { username?: string | undefined },
  ): Promise<LinkOutcome>;
}

export interface LinkingDeps {
  invites: Invites;
  platformState: Pick<PlatformState, "findAccount" | "rememberChat">;
  clock: Clock;
  random?: RandomBytes | undefined;
  selfSignup?: boolean | undefined;
}

export function createLinking(deps: LinkingDeps): Linking {
  const { invites, platformState, clock } = deps;
  const random = deps.random ?? webRandomBytes;
  const selfSignup = deps.selfSignup ?? false;

  const existing = async (sender: LinkSender): Promise<LinkedAccount | undefined> => {
    const account = await platformState.findAccount(sender.platform, sender.externalUserId);
    if (!account || !sender.chatId || account.identity.chatId === sender.chatId) return account;
    await platformState.rememberChat(account.identity.id, sender.chatId);
    return { ...account, identity: { ...account.identity, chatId: sender.chatId } };
  };

  return {
    selfSignup,

    async invite(userId, validForMs = DEFAULT_INVITE_HOURS * HOUR_MS) {
      if (!(validForMs > 0)) throw new Error("an invite must be valid for some time");
      const now = clock.now();
      const code = newCode(random);
      const expiresAt = new Date(now.getTime() + validForMs);
      const normalised = normaliseCode(code);
      if (!normalised) throw new Error("generated an invalid code");
      const { replaced } = await invites.issue({ userId, code: normalised, createdAt: now, expiresAt });
      return { code, expiresAt, replaced };
    },

    async link(sender, typedCode, profile = {}) {
      // An account that is already linked changes nothing, whatever it sends: no code is spent or counted.
      const account = await existing(sender);
      if (account) return { kind: "already-linked", account };
      const now = clock.now();
      const trimmed = typedCode.trim();
      if (trimmed === "") {
        if (!selfSignup) return { kind: "code-needed" };
        const outcome = await invites.signup(
          { name: signupName(profile.username, sender), timeZone: "UTC" },
          sender,
          now,
        );
        return outcome.kind === "linked" ? { ...outcome, signedUp: true } : outcome;
      }
      const windowStart = new Date(now.getTime() - ATTEMPT_WINDOW_MS);
      const failures = await invites.failuresSince(sender, windowStart);
      if (failures.length >= MAX_FAILED_ATTEMPTS) {
        // The sender may try again once enough of the counted failures have aged out of the window.
        const freedAt =
          (failures[failures.length - MAX_FAILED_ATTEMPTS] as Date).getTime() + ATTEMPT_WINDOW_MS;
        return {
          kind: "rate-limited",
          retryAfterMinutes: Math.max(1, Math.ceil((freedAt - now.getTime()) / 60_000)),
        };
      }
      const code = normaliseCode(trimmed);
      const result = code ? await invites.redeem(code, sender, now) : { kind: "invalid" as const };
      if (result.kind === "linked") return { ...result, signedUp: false };
      if (result.kind === "already-linked") return result;
      await invites.recordFailure(sender, now, windowStart);
      return { kind: "refused" };
    },
  };
}

/** A user name from the platform's username (`ann.lee`), or the platform id when there is none. */
export function signupName(username: string | undefined, sender: LinkSender): string {
  const cleaned = (username ?? "")
    .normalize("NFKD")
    .replace(/[^\w.@-]+/g, "")
    .slice(0, 48);
  return cleaned !== "" ? cleaned : `${sender.platform}-${sender.externalUserId}`.slice(0, 48);
}
