/**
 * One user with at least one row in every table that holds user data, each carrying `marker` in a text
 * field, so a test can tell whose rows an export or a deletion touched. Shared caches get rows too
 * (weather at the user's place, a handled platform event), which must outlive any one user.
 */
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { Database } from "../../db/client.ts";
import {
  briefingRuns,
  calendars,
  conversations,
  deliveries,
  events,
  feedItems,
  feeds,
  forgetQuestions,
  identities,
  invites,
  leases,
  linkAttempts,
  messages,
  notes,
  pendingActions,
  platformMessages,
  projects,
  rateBuckets,
  runArchives,
  tasks,
  type User,
  weatherCache,
} from "../../db/schema/index.ts";
import { createAccounts } from "../../db/stores/index.ts";
import { createTestUser } from "./database.ts";

export interface SeededUser {
  user: User;
  marker: string;
  /** The secret part of the subscription addresses. */
  token: string;
  /** The calendar and feed addresses, whose tokens an export must not show unless asked. */
  calendarSource: string;
  feedUrl: string;
  runId: number;
}

const AT = new Date("2025-06-02T06:00:00Z");

export async function seedUserData(
  db: Database,
  options: { marker?: string; telegramId?: string; slackId?: string; user?: User } = {},
): Promise<SeededUser> {
  const marker = options.marker ?? `mk${randomBytes(4).toString("hex")}`;
  const user = options.user ?? (await createTestUser(db, { profile: `profile ${marker}` }));
  const userId = user.id;
  const token = `tok_${marker}_secret`;
  const calendarSource = `https://calendar.example.com/ical/${marker}/private-${token}/basic.ics`;
  const feedUrl = `https://feeds.example.com/${marker}.xml?key=${token}`;

  if (!options.user) {
    const accounts = await db
      .insert(identities)
      .values([
        {
          userId,
          platform: "telegram",
          externalUserId: options.telegramId ?? String(900_000_000 + Math.floor(Math.random() * 99_999_999)),
        },
        {
          userId,
          platform: "slack",
          externalUserId: options.slackId ?? `U${randomBytes(5).toString("hex").toUpperCase()}`,
        },
      ])
      .returning();
    // A failed `/link` from the account before the owner linked it from the terminal.
    const telegram = accounts.find((account) => account.platform === "telegram");
    if (telegram)
      await db
        .insert(linkAttempts)
        .values({ platform: "telegram", externalUserId: telegram.externalUserId, attemptedAt: AT });
  }
  await db.insert(invites).values({
    userId,
    codeHash: `hash-${marker}`,
    expiresAt: new Date(AT.getTime() + 86_400_000),
  });
  const [project] = await db
    .insert(projects)
    .values({ userId, name: `project ${marker}`, summary: `summary ${marker}` })
    .returning();
  await db
    .insert(tasks)
    .values({ userId, projectId: project?.id, title: `task ${marker}`, dueDate: "2025-06-02" });
  await db.insert(notes).values({ userId, title: `note ${marker}`, body: `body ${marker}` });
  const [calendar] = await db
    .insert(calendars)
    .values({
      userId,
      source: calendarSource,
      name: `calendar ${marker}`,
      lastError: `fetching ${calendarSource} failed`,
    })
    .returning();
  if (!calendar) throw new Error("calendar insert returned nothing");
  await db.insert(events).values([
    {
      userId,
      calendarId: calendar.id,
      uid: `synced-${marker}`,
      title: `synced event ${marker}`,
      startsAt: AT,
      endsAt: new Date(AT.getTime() + 3_600_000),
    },
    { userId, uid: `chat-${marker}`, title: `chat event ${marker}`, startsAt: AT, endsAt: AT },
  ]);
  const [feed] = await db
    .insert(feeds)
    .values({ userId, url: feedUrl, title: `feed ${marker}` })
    .returning();
  if (!feed) throw new Error("feed insert returned nothing");
  await db
    .insert(feedItems)
    .values({ userId, feedId: feed.id, guid: `guid-${marker}`, title: `headline ${marker}` });
  const [run] = await db
    .insert(briefingRuns)
    .values({
      userId,
      slot: "morning",
      localDate: "2025-06-02",
      state: "delivered",
      prose: `prose ${marker}`,
    })
    .returning();
  if (!run) throw new Error("run insert returned nothing");
  const [conversation] = await db
    .insert(conversations)
    .values({ userId, platform: "telegram", threadKey: `telegram:${marker}:1`, runId: run.id })
    .returning();
  if (!conversation) throw new Error("conversation insert returned nothing");
  await db.insert(messages).values([
    {
      userId,
      runId: run.id,
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", function: { name: "list_tasks", arguments: { filter: "open" } } }],
    },
    {
      userId,
      runId: run.id,
      role: "tool",
      toolName: "list_tasks",
      toolCallId: "call_1",
      content: JSON.stringify({ tasks: [{ title: `receipt ${marker}` }] }),
      metadata: { kind: "receipt", run_id: run.id },
    },
    { userId, conversationId: conversation.id, role: "user", content: `question ${marker}` },
    { userId, conversationId: conversation.id, role: "assistant", content: `answer ${marker}` },
  ]);
  await db
    .insert(runArchives)
    .values({ runId: run.id, userId, receipts: [{ archived: `archived ${marker}` }] });
  await db
    .insert(deliveries)
    .values({ runId: run.id, userId, platform: "telegram", target: `chat-${marker}` });
  await db.insert(pendingActions).values({
    userId,
    conversationId: conversation.id,
    toolName: "delete_task",
    arguments: { id: 1 },
    summary: `delete task ${marker}`,
    expiresAt: new Date(AT.getTime() + 600_000),
  });
  await db.insert(platformMessages).values({
    platform: "telegram",
    messageKey: `msg-${marker}`,
    userId,
    runId: run.id,
    threadKey: `telegram:${marker}:1`,
  });
  await db.insert(forgetQuestions).values({ userId, token: marker, step: 1, expiresAt: AT });
  // A CalDAV account with one mirrored object.
  const accounts = createAccounts(db);
  const account = await accounts.create({
    userId,
    kind: "caldav",
    label: `Nextcloud ${marker}`,
    url: `https://cloud.example/dav/${token}`,
    username: marker,
    secret: { keyId: "k", sealed: `sealed-${token}` },
    collections: [{ remoteId: "/p/", name: "Personal", holds: ["tasks"], enabled: true, syncState: null }],
    createdAt: AT,
  });
  await accounts.storeObject(account.id, "/p/", {
    remoteId: `${marker}.ics`,
    etag: "e1",
    format: "icalendar",
    body: `BEGIN:VTODO ${marker}`,
    derived: {
      // No derived task: the suites that count a user's tasks expect the one seeded above.
      tasks: [],
      events: [],
    },
  });
  // Shared caches: keyed by place, never by user.
  await db
    .insert(weatherCache)
    .values({ latitude: 38 + Math.random(), longitude: -9, payload: { place: marker }, fetchedAt: AT })
    .onConflictDoNothing();
  // Coordination between processes: leases name processes and sources, rate buckets chats and tokens.
  await db
    .insert(leases)
    .values({ name: `source:${marker}`, holder: "some-process", acquiredAt: AT, expiresAt: AT })
    .onConflictDoNothing();
  await db
    .insert(rateBuckets)
    .values({ scope: `chat:${marker}`, theoreticalArrival: AT })
    .onConflictDoNothing();
  return { user, marker, token, calendarSource, feedUrl, runId: run.id };
}

/** An export as a reader of its JSON sees it: the parts every export path checks. */
export interface ExportedJson {
  profile: { id: number; name: string };
  tasks: Array<{ title: string }>;
  runs: Array<{ receipts: Array<{ content: string }> }>;
}

/**
 * What every export path (CLI, Telegram, Slack) promises by default: `mine`'s tasks and receipts, nothing
 * of `other`'s, and no subscription token. Returns the parsed document for the path's own checks.
 */
export function expectOwnRedactedExport<T extends ExportedJson = ExportedJson>(
  raw: string,
  mine: SeededUser,
  other: SeededUser,
): T {
  expect(raw).not.toContain(other.marker);
  expect(raw).not.toContain(mine.token);
  const document = JSON.parse(raw) as T;
  expect(document.profile).toMatchObject({ id: mine.user.id, name: mine.user.name });
  expect(document.tasks.map((task) => task.title)).toEqual([`task ${mine.marker}`]);
  expect(document.runs.flatMap((run) => run.receipts.map((receipt) => receipt.content)).join()).toContain(
    `receipt ${mine.marker}`,
  );
  return document;
}
