/**
 * Which thread (and run) a platform message belongs to. An adapter links every bot message of a thread
 * under the thread's root key, so a reply to any of them finds the run and continues one conversation.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../client.ts";
import { identities, type Platform, type PlatformMessage, platformMessages, users } from "../schema/index.ts";

/** A key already linked keeps its first link (a message belongs to one thread). */
export async function linkPlatformMessages(
  db: Database,
  link: {
    platform: Platform;
    userId: number;
    runId: number | null;
    threadKey: string;
    messageKeys: readonly string[];
    at: Date;
  },
): Promise<void> {
  if (link.messageKeys.length === 0) return;
  await db
    .insert(platformMessages)
    .values(
      link.messageKeys.map((messageKey) => ({
        platform: link.platform,
        messageKey,
        userId: link.userId,
        runId: link.runId,
        threadKey: link.threadKey,
        createdAt: link.at,
      })),
    )
    .onConflictDoNothing();
}

/** The link of one message, only when it is this user's. */
export async function findPlatformMessage(
  db: Database,
  platform: Platform,
  messageKey: string,
  userId: number,
): Promise<PlatformMessage | undefined> {
  const [row] = await db
    .select()
    .from(platformMessages)
    .where(
      and(
        eq(platformMessages.platform, platform),
        eq(platformMessages.messageKey, messageKey),
        eq(platformMessages.userId, userId),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Whose thread a message belongs to, whoever asks: the owner's name and account on the platform, and the run
 * the thread follows. Only for telling someone a thread is another person's, never for answering from it.
 */
export async function findMessageOwner(
  db: Database,
  platform: Platform,
  messageKey: string,
): Promise<
  { userId: number; runId: number | null; name: string; externalUserId: string | null } | undefined
> {
  const [row] = await db
    .select({
      userId: platformMessages.userId,
      runId: platformMessages.runId,
      name: users.name,
      externalUserId: identities.externalUserId,
    })
    .from(platformMessages)
    .innerJoin(users, eq(users.id, platformMessages.userId))
    .leftJoin(
      identities,
      and(eq(identities.userId, platformMessages.userId), eq(identities.platform, platform)),
    )
    .where(and(eq(platformMessages.platform, platform), eq(platformMessages.messageKey, messageKey)))
    .orderBy(asc(identities.id))
    .limit(1);
  return row;
}
