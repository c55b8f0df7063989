import { and, asc, eq, isNull } from "drizzle-orm";
import { NotFoundError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type Identity, identities, type NewUser, type Platform, type User, users } from "../schema/index.ts";

export async function findUserByName(db: Database, name: string): Promise<User | undefined> {
  const [user] = await db.select().from(users).where(eq(users.name, name)).limit(1);
  return user;
}

export async function requireUserByName(db: Database, name: string): Promise<User> {
  const user = await findUserByName(db, name);
  if (!user) throw new NotFoundError(`no user named "${name}" (see: briefbot user list)`);
  return user;
}

export async function getUser(db: Database, id: number): Promise<User | undefined> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user;
}

export async function listUsers(db: Database): Promise<User[]> {
  return db.select().from(users).orderBy(asc(users.name));
}

export async function createUser(db: Database, values: NewUser): Promise<User> {
  const [user] = await db.insert(users).values(values).returning();
  if (!user) throw new Error("user insert returned nothing");
  return user;
}

export async function updateUser(db: Database, id: number, changes: Partial<NewUser>): Promise<User> {
  const [user] = await db.update(users).set(changes).where(eq(users.id, id)).returning();
  if (!user) throw new NotFoundError(`no user with id ${id}`);
  return user;
}

/** Links a platform account to a user; an account already linked elsewhere moves to this user. */
export async function linkIdentity(
  db: Database,
  userId: number,
  identity: { platform: Platform; externalUserId: string; chatId?: string | null; teamId?: string | null },
): Promise<Identity> {
  const values = {
    userId,
    platform: identity.platform,
    externalUserId: identity.externalUserId,
    chatId: identity.chatId ?? null,
    teamId: identity.teamId ?? null,
  };
  const [row] = await db
    .insert(identities)
    .values(values)
    .onConflictDoUpdate({
      target: [identities.platform, identities.externalUserId],
      set: {
        userId,
        ...(identity.chatId ? { chatId: identity.chatId } : {}),
        ...(identity.teamId ? { teamId: identity.teamId } : {}),
      },
    })
    .returning();
  if (!row) throw new Error("identity upsert returned nothing");
  return row;
}

/** The user behind a platform account, or undefined for a stranger. */
export async function findUserByIdentity(
  db: Database,
  platform: Platform,
  externalUserId: string,
): Promise<{ user: User; identity: Identity } | undefined> {
  const [row] = await db
    .select({ user: users, identity: identities })
    .from(identities)
    .innerJoin(users, eq(users.id, identities.userId))
    .where(and(eq(identities.platform, platform), eq(identities.externalUserId, externalUserId)))
    .limit(1);
  return row;
}

export async function listIdentities(db: Database, userId: number): Promise<Identity[]> {
  return db.select().from(identities).where(eq(identities.userId, userId)).orderBy(asc(identities.id));
}

/** Records where to deliver (Telegram chat id, Slack DM channel) once the platform tells us. */
export async function setIdentityChat(db: Database, identityId: number, chatId: string): Promise<void> {
  await db.update(identities).set({ chatId }).where(eq(identities.id, identityId));
}

/** Linked accounts on a platform whose chat is not known yet (never wrote to the bot, no DM opened). */
export async function identitiesWithoutChat(db: Database, platform: Platform): Promise<Identity[]> {
  return db
    .select()
    .from(identities)
    .where(and(eq(identities.platform, platform), isNull(identities.chatId)))
    .orderBy(asc(identities.id));
}
