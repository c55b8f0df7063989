/**
 * What a person is told after `/link CODE` (or `/start CODE`), the same on every platform. A wrong, used and
 * expired code share one line, so trying codes teaches nothing; the other answers hold no data but the
 * person's own account.
 */
import { SLOT_NAMES } from "../domain.ts";
import type { LinkOutcome } from "./linking.ts";

export const INVALID_CODE_TEXT =
  "That code is not valid — it may have expired or been used. Ask the owner for a new one.";

/** How a person on this platform types the command, e.g. "/link" (Slack also takes "link" in a DM). */
export interface ReplyStyle {
  linkCommand: string;
  /** Where briefings will arrive, e.g. "here" or "in this DM". */
  deliveredWhere: string;
  /** What to try first, e.g. "Send /brief for a briefing now." */
  nextSteps: string;
}

export function linkReply(outcome: LinkOutcome, style: ReplyStyle): string {
  switch (outcome.kind) {
    case "linked": {
      const { user } = outcome.account;
      const slots = SLOT_NAMES.flatMap((slot) => {
        const time = user.slots[slot];
        return time ? [`${slot} ${time}`] : [];
      });
      const schedule =
        slots.length > 0
          ? `Your briefings will arrive ${style.deliveredWhere}: ${slots.join(", ")} (${user.timeZone} time).`
          : "No briefing slots are on yet, so nothing arrives on its own.";
      const zone = outcome.signedUp
        ? " Your time zone is UTC for now: send /settings place <city> to set your place and time zone."
        : "";
      return `You're linked as ${user.name}. ${schedule}${zone} ${style.nextSteps}`;
    }
    case "already-linked":
      return `This account is already linked to ${outcome.account.user.name}; nothing changed.`;
    case "refused":
      return INVALID_CODE_TEXT;
    case "rate-limited":
      return `Too many codes tried. Please wait ${outcome.retryAfterMinutes === 1 ? "a minute" : `${outcome.retryAfterMinutes} minutes`}, then try again.`;
    case "code-needed":
      return `Send ${style.linkCommand} followed by the code the owner gave you, like: ${style.linkCommand} K7QX-29MB`;
  }
}
