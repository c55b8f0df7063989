/**
 * One-time link codes and failed link attempts. Codes arrive normalised and are stored only as their
 * sha256; spending one is a single conditional UPDATE, so a code links at most once however many redeem it.
 */
import { createHash } from "node:crypto";
import { and, asc, eq, gt, gte, isNull, like, lt, or } from "drizzle-orm";
import { DEFAULT_SLOT_TIMES } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import {
  type Identity,
  identities,
  invites,
  linkAttempts,
  type Platform,
  type User,
  users,
} from "../schema/index.ts";
import { findUserByIdentity } from "./users.ts";

export interface Sender {
  platform: Platform;
  externalUserId: string;
  chatId?: string | undefined;
  teamId?: string | undefined;
}

type Account = { user: User; identity: Identity };
export type Redeemed =
  | { kind: "linked"; account: Account }
  | { kind: "invalid" }
  | { kind: "already-linked"; account: Account };

export function hashCode(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}

/** Stores a new code for the user; their earlier unused codes are retired (marked used) in the same step. */
export async function issueInvite(
  db: Database,
  invite: { userId: number; code: string; createdAt: Date; expiresAt: Date },
): Promise<{ replaced: number }> {
  return db.transaction(async (tx) => {
    const retired = await tx
      .update(invites)
      .set({ usedAt: invite.createdAt })
      .where(
        and(
          eq(invites.userId, invite.userId),
          isNull(invites.usedAt),
          gt(invites.expiresAt, invite.createdAt),
        ),
      )
      .returning({ id: invites.id });
    await tx.insert(invites).values({
      userId: invite.userId,
      codeHash: hashCode(invite.code),
      createdAt: invite.createdAt,
      expiresAt: invite.expiresAt,
    });
    return { replaced: retired.length };
  });
}

/** Thrown inside the transaction to undo spending the code when the account turned out to be linked. */
class AccountTaken extends Error {}

export async function redeemInvite(db: Database, code: string, sender: Sender, at: Date): Promise<Redeemed> {
  try {
    return await db.transaction(async (tx) => {
      const [spent] = await tx
        .update(invites)
        .set({ usedAt: at })
        .where(and(eq(invites.codeHash, hashCode(code)), isNull(invites.usedAt), gt(invites.expiresAt, at)))
        .returning({ userId: invites.userId });
      if (!spent) return { kind: "invalid" } as const;
      const identity = await insertIdentity(tx, spent.userId, sender, at);
      if (!identity) throw new AccountTaken();
      await clearAttempts(tx, sender);
      const [user] = await tx.select().from(users).where(eq(users.id, spent.userId));
      if (!user) throw new Error(`invite of a missing user ${spent.userId}`);
      return { kind: "linked", account: { user, identity } } as const;
    });
  } catch (error) {
    if (!(error instanceof AccountTaken)) throw error;
    return alreadyLinked(db, sender);
  }
}

/** A new user named `name` (or `name-2`, `name-3`…), linked to the sender, in one transaction. */
export async function signupUser(
  db: Database,
  user: { name: string; timeZone: string },
  sender: Sender,
  at: Date,
): Promise<Exclude<Redeemed, { kind: "invalid" }>> {
  // Two newcomers with one username may pick the same free name at once; the loser tries the next one.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await signupOnce(db, user, sender, at);
    } catch (error) {
      if (attempt >= 3 || !isUniqueViolation(error)) throw error;
    }
  }
}

function isUniqueViolation(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as Error & { code?: unknown }).code === "23505") return true;
  }
  return false;
}

async function signupOnce(
  db: Database,
  user: { name: string; timeZone: string },
  sender: Sender,
  at: Date,
): Promise<Exclude<Redeemed, { kind: "invalid" }>> {
  try {
    return await db.transaction(async (tx) => {
      const taken = new Set(
        (
          await tx
            .select({ name: users.name })
            .from(users)
            .where(or(eq(users.name, user.name), like(users.name, `${escapeLike(user.name)}-%`)))
        ).map((row) => row.name),
      );
      let name = user.name;
      for (let n = 2; taken.has(name); n += 1) name = `${user.name}-${n}`;
      const [created] = await tx
        .insert(users)
        .values({ name, timeZone: user.timeZone, slots: { ...DEFAULT_SLOT_TIMES }, createdAt: at })
        .returning();
      if (!created) throw new Error("user insert returned nothing");
      const identity = await insertIdentity(tx, created.id, sender, at);
      if (!identity) throw new AccountTaken();
      await clearAttempts(tx, sender);
      return { kind: "linked", account: { user: created, identity } } as const;
    });
  } catch (error) {
    if (!(error instanceof AccountTaken)) throw error;
    const outcome = await alreadyLinked(db, sender);
    if (outcome.kind === "invalid") throw new Error("the account was linked and unlinked during sign-up");
    return outcome;
  }
}

export async function failureTimes(db: Database, sender: Sender, since: Date): Promise<Date[]> {
  const rows = await db
    .select({ at: linkAttempts.attemptedAt })
    .from(linkAttempts)
    .where(and(senderIs(sender), gte(linkAttempts.attemptedAt, since)))
    .orderBy(asc(linkAttempts.attemptedAt));
  return rows.map((row) => row.at);
}

export async function recordFailure(
  db: Database,
  sender: Sender,
  at: Date,
  forgetBefore: Date,
): Promise<void> {
  await db.delete(linkAttempts).where(lt(linkAttempts.attemptedAt, forgetBefore));
  await db
    .insert(linkAttempts)
    .values({ platform: sender.platform, externalUserId: sender.externalUserId, attemptedAt: at });
}

/** The identity row, or undefined when the account is linked already (the unique index decides races). */
async function insertIdentity(db: Database, userId: number, sender: Sender, at: Date) {
  const [row] = await db
    .insert(identities)
    .values({
      userId,
      platform: sender.platform,
      externalUserId: sender.externalUserId,
      chatId: sender.chatId ?? null,
      teamId: sender.teamId ?? null,
      createdAt: at,
    })
    .onConflictDoNothing({ target: [identities.platform, identities.externalUserId] })
    .returning();
  return row;
}

async function clearAttempts(db: Database, sender: Sender): Promise<void> {
  await db.delete(linkAttempts).where(senderIs(sender));
}

async function alreadyLinked(db: Database, sender: Sender): Promise<Redeemed> {
  const account = await findUserByIdentity(db, sender.platform, sender.externalUserId);
  return account ? { kind: "already-linked", account } : { kind: "invalid" };
}

function senderIs(sender: Sender) {
  return and(
    eq(linkAttempts.platform, sender.platform),
    eq(linkAttempts.externalUserId, sender.externalUserId),
  );
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (symbol) => `\\${symbol}`);
}
