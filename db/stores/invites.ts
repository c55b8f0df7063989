/** One-time link codes and the per-sender rate limit, for the core's linking service. */
import type { Database } from "../client.ts";
import {
  failureTimes,
  issueInvite,
  recordFailure,
  redeemInvite,
  type Sender,
  signupUser,
} from "../queries/invites.ts";

export function createInvites(db: Database) {
  return {
    issue: (invite: Parameters<typeof issueInvite>[1]) => issueInvite(db, invite),
    redeem: (code: string, sender: Sender, at: Date) => redeemInvite(db, code, sender, at),
    failuresSince: (sender: Sender, since: Date) => failureTimes(db, sender, since),
    recordFailure: (sender: Sender, at: Date, forgetBefore: Date) =>
      recordFailure(db, sender, at, forgetBefore),
    signup: (user: { name: string; timeZone: string }, sender: Sender, at: Date) =>
      signupUser(db, user, sender, at),
  };
}
