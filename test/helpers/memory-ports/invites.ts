/**
 * The `Invites` port in memory: one-time link codes kept as their sha256, spent once; failed attempts per
 * sender. Each call checks and writes with nothing awaited in between, as the database's transaction is.
 */
import { createHash } from "node:crypto";
import type { Identity, LinkedAccount } from "../../../src/core/domain.ts";
import type { Invites, LinkSender } from "../../../src/core/linking/invites-port.ts";
import { copyRow, type MemoryTables, removeWhere } from "./tables.ts";
import { insertMemoryUser } from "./users.ts";

export function hashCode(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}

export function createMemoryInvites(tables: MemoryTables): Invites {
  const isSender = (sender: LinkSender) => (row: { platform: string; externalUserId: string }) =>
    row.platform === sender.platform && row.externalUserId === sender.externalUserId;

  function accountOf(sender: LinkSender): LinkedAccount | undefined {
    const identity = tables.identities.find(isSender(sender));
    const user = identity && tables.users.find((row) => row.id === identity.userId);
    return identity && user ? { user: copyRow(user), identity: copyRow(identity) } : undefined;
  }

  /** The new identity, or undefined when the account is linked already (the unique index decides). */
  function insertIdentity(userId: number, sender: LinkSender, at: Date): Identity | undefined {
    if (tables.identities.some(isSender(sender))) return undefined;
    const identity: Identity = {
      id: tables.nextId("identities"),
      userId,
      platform: sender.platform,
      externalUserId: sender.externalUserId,
      chatId: sender.chatId ?? null,
      teamId: sender.teamId ?? null,
      createdAt: at,
    };
    tables.identities.push(identity);
    return copyRow(identity);
  }

  return {
    async issue(invite) {
      let replaced = 0;
      for (const row of tables.invites) {
        if (row.userId === invite.userId && row.usedAt === null && row.expiresAt > invite.createdAt) {
          row.usedAt = invite.createdAt;
          replaced += 1;
        }
      }
      tables.invites.push({
        id: tables.nextId("invites"),
        userId: invite.userId,
        codeHash: hashCode(invite.code),
        createdAt: invite.createdAt,
        expiresAt: invite.expiresAt,
        usedAt: null,
      });
      return { replaced };
    },
    async redeem(code, sender, at) {
      const hash = hashCode(code);
      const invite = tables.invites.find(
        (row) => row.codeHash === hash && row.usedAt === null && row.expiresAt > at,
      );
      if (!invite) return { kind: "invalid" };
      // The account got linked meanwhile: the code stays unspent (the transaction rolls back).
      const already = accountOf(sender);
      if (already) return { kind: "already-linked", account: already };
      const user = tables.users.find((row) => row.id === invite.userId);
      if (!user) throw new Error(`invite of a missing user ${invite.userId}`);
      const identity = insertIdentity(invite.userId, sender, at) as Identity;
      invite.usedAt = at;
      removeWhere(tables.linkAttempts, isSender(sender));
      return { kind: "linked", account: { user: copyRow(user), identity } };
    },
    failuresSince: async (sender, since) =>
      tables.linkAttempts
        .filter((row) => isSender(sender)(row) && row.attemptedAt >= since)
        .sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime())
        .map((row) => new Date(row.attemptedAt)),
    async recordFailure(sender, at, forgetBefore) {
      removeWhere(tables.linkAttempts, (row) => row.attemptedAt < forgetBefore);
      tables.linkAttempts.push({
        id: tables.nextId("link_attempts"),
        platform: sender.platform,
        externalUserId: sender.externalUserId,
        attemptedAt: at,
      });
    },
    async signup(user, sender, at) {
      const already = accountOf(sender);
      if (already) return { kind: "already-linked", account: already };
      const taken = new Set(tables.users.map((row) => row.name));
      let name = user.name;
      for (let n = 2; taken.has(name); n += 1) name = `${user.name}-${n}`;
      const created = insertMemoryUser(tables, { name, timeZone: user.timeZone, createdAt: at });
      const identity = insertIdentity(created.id, sender, at) as Identity;
      removeWhere(tables.linkAttempts, isSender(sender));
      return { kind: "linked", account: { user: created, identity } };
    },
  };
}
