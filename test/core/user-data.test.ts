/**
 * The core's side of export and forget, without a database: how stored rows become the document, and the
 * two-question flow with its expiry on the core's clock. The port is a plain object here, as any store is.
 */
import { describe, expect, it } from "vitest";
import { fixedClock } from "../../src/core/clock.ts";
import {
  createMemoryForgetQuestions,
  createUserDataService,
  describeCounts,
  exportFilename,
  type StoredUserData,
  type UserData,
} from "../../src/core/index.ts";

const SECRET = "https://calendar.example.com/ical/abcdef/private-s3cr3t/basic.ics";

function stored(): StoredUserData {
  return {
    user: { id: 7, name: "ann" },
    identities: [],
    projects: [],
    tasks: [{ id: 1, title: "Renew passport" }],
    notes: [],
    calendars: [{ id: 1, source: SECRET, lastError: `fetching ${SECRET} failed` }],
    events: [],
    feeds: [{ id: 1, url: "https://feeds.example.com/x.xml?key=s3cr3t", lastError: null }],
    feedItems: [],
    runs: [{ id: 10 }, { id: 11 }],
    runArchives: [{ runId: 11, receipts: [{ old: true }] }],
    conversations: [{ id: 20 }],
    messages: [
      { id: 1, role: "assistant", runId: 10, conversationId: null },
      { id: 2, role: "tool", runId: 10, conversationId: null, content: "receipt" },
      { id: 3, role: "user", runId: null, conversationId: 20 },
      { id: 4, role: "user", runId: 10, conversationId: 20 },
      { id: 5, role: "system", runId: null, conversationId: null },
    ],
    deliveries: [],
    pendingActions: [],
    platformMessages: [],
    invites: [],
    linkAttempts: [],
    // A store that handed out a sealed secret by mistake still exports none of it.
    accounts: [
      { id: 3, label: "Nextcloud", secretSealed: "SEALED-s3cr3t", secretKeyId: "k1", lastError: null },
    ],
  };
}

function portWith(data: StoredUserData | undefined) {
  const removed: number[] = [];
  const port: UserData = {
    read: async () => data,
    remove: async (userId) => {
      removed.push(userId);
      return { users: 1, tasks: 3, notes: 0, messages: 12 };
    },
  };
  return { port, removed };
}

describe("user data export", () => {
  it("builds a versioned document, each message once, receipts apart, addresses redacted", async () => {
    const clock = fixedClock("2025-06-02T09:30:00Z");
    const exported = await createUserDataService(
      portWith(stored()).port,
      createMemoryForgetQuestions(),
      clock,
    ).exportUser(7);
    const document = exported?.document;
    expect(document).toMatchObject({
      format: "briefbot-user-export",
      version: 1,
      exportedAt: "2025-06-02T09:30:00.000Z",
    });
    expect(document?.runs[0]?.receipts.map((m) => m.id)).toEqual([2]);
    expect(document?.runs[0]?.messages.map((m) => m.id)).toEqual([1, 4]);
    expect(document?.runs[1]?.archivedReceipts).toEqual([{ old: true }]);
    expect(document?.conversations[0]?.messages.map((m) => m.id)).toEqual([3]);
    expect(document?.otherMessages.map((m) => m.id)).toEqual([5]);
    const text = new TextDecoder().decode(exported?.bytes);
    expect(text).not.toContain("s3cr3t");
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(document)));
    expect(exported?.filename).toBe("briefbot-ann-2025-06-02.json");
  });

  it("keeps addresses in full when asked, and finds nothing for an unknown user", async () => {
    const service = createUserDataService(
      portWith(stored()).port,
      createMemoryForgetQuestions(),
      fixedClock("2025-06-02T09:30:00Z"),
    );
    const full = await service.exportUser(7, { includeSecrets: true });
    expect(full?.document.calendars[0]?.source).toBe(SECRET);
    expect(full?.document.secretsIncluded).toBe(true);
    const none = createUserDataService(
      portWith(undefined).port,
      createMemoryForgetQuestions(),
      fixedClock("2025-06-02T09:30:00Z"),
    );
    expect(await none.exportUser(8)).toBeUndefined();
  });

  it("names the file with characters every file system takes", () => {
    expect(exportFilename("a/b c", new Date("2025-01-02T00:00:00Z"))).toBe("briefbot-a_b_c-2025-01-02.json");
  });
});

describe("forgetting from chat", () => {
  it("deletes only on the second confirmation of the same user's open question", async () => {
    const { port, removed } = portWith(stored());
    const service = createUserDataService(
      port,
      createMemoryForgetQuestions(),
      fixedClock("2025-06-02T09:30:00Z"),
    );
    const first = await service.beginForget(7);
    expect(await service.answerForget(8, first.token, true)).toEqual({ kind: "stale" });
    const again = await service.answerForget(7, first.token, true);
    if (again.kind !== "ask-again") throw new Error(`expected a second question, got ${again.kind}`);
    expect(again.question.step).toBe(2);
    // The first question's button no longer counts.
    expect(await service.answerForget(7, first.token, true)).toEqual({ kind: "stale" });
    expect(removed).toEqual([]);
    expect(await service.answerForget(7, again.question.token, true)).toEqual({
      kind: "removed",
      counts: { users: 1, tasks: 3, notes: 0, messages: 12 },
    });
    expect(removed).toEqual([7]);
  });

  it("ends with nothing deleted on Cancel, on something else said, and after the question expires", async () => {
    const { port, removed } = portWith(stored());
    const clock = fixedClock("2025-06-02T09:30:00Z");
    const service = createUserDataService(port, createMemoryForgetQuestions(), clock, { questionMinutes: 5 });
    expect(await service.answerForget(7, (await service.beginForget(7)).token, false)).toEqual({
      kind: "cancelled",
    });
    const open = await service.beginForget(7);
    expect(await service.cancelForget(7)).toBe(true);
    expect(await service.cancelForget(7)).toBe(false);
    expect(await service.answerForget(7, open.token, true)).toEqual({ kind: "stale" });
    const late = await service.beginForget(7);
    clock.advance(5 * 60_000);
    expect(await service.answerForget(7, late.token, true)).toEqual({ kind: "expired" });
    expect(removed).toEqual([]);
  });

  it("says what was deleted, largest first, leaving out zeros", () => {
    expect(describeCounts({ users: 1, tasks: 3, notes: 0, messages: 12 })).toBe(
      "messages: 12, tasks: 3, users: 1",
    );
    expect(describeCounts({})).toBe("nothing");
  });
});
