import { expect, it } from "vitest";
import { insertMessages, listRunReceipts } from "../../db/queries/messages.ts";
import {
  createRun,
  failRun,
  finishRun,
  getUserRun,
  latestFinishedRun,
  startClaimedRun,
} from "../../db/queries/runs.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

const at = new Date("2025-06-02T06:00:00Z");
const result = {
  mode: "agentic" as const,
  route: "briefing",
  endpoint: "default",
  model: "qwen2.5:7b",
  turns: 2,
  toolCalls: 4,
  promptTokens: 900,
  evalTokens: 120,
  timings: { totalMs: 12 },
  grounding: { claimsChecked: 3, unbacked: [], action: "none" as const },
  prose: "Morning.",
  reason: null,
};

describeEachDatabase("briefing runs", (getDb) => {
  it("creates, finishes and finds runs scoped to their user", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const other = await createTestUser(db);
    const run = await createRun(db, {
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      trigger: "manual",
      at,
    });
    expect(run.state).toBe("generating");
    expect(await latestFinishedRun(db, user.id)).toBeUndefined();
    await finishRun(db, run.id, result, at);
    expect(await latestFinishedRun(db, user.id)).toMatchObject({
      id: run.id,
      state: "generated",
      promptTokens: 900,
    });
    expect(await getUserRun(db, other.id, run.id)).toBeUndefined();
    const failed = await createRun(db, {
      userId: user.id,
      slot: "midday",
      localDate: "2025-06-02",
      trigger: "manual",
      at,
    });
    await failRun(db, failed.id, "boom", at);
    expect((await latestFinishedRun(db, user.id))?.id).toBe(run.id);
    await expect(startClaimedRun(db, run.id, at)).rejects.toThrow(/is generated, not claimed/);
  });

  it("reads receipts back with arguments, parsed results and their time", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const run = await createRun(db, {
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      trigger: "manual",
      at,
    });
    await insertMessages(db, [
      {
        userId: user.id,
        runId: run.id,
        role: "tool",
        toolName: "list_events",
        content: '{"events":[]}',
        metadata: { arguments: { range: "today" } },
        createdAt: at,
      },
      {
        userId: user.id,
        runId: run.id,
        role: "tool",
        toolName: "get_weather",
        content: "not json",
        metadata: { error: true },
        createdAt: at,
      },
    ]);
    const receipts = await listRunReceipts(db, run.id);
    expect(receipts).toMatchObject([
      { toolName: "list_events", arguments: { range: "today" }, result: { events: [] }, error: false, at },
      { toolName: "get_weather", arguments: {}, result: "not json", error: true },
    ]);
  });
});
