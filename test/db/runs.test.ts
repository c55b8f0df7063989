import { expect, it } from "vitest";
import { insertMessages, listRunReceipts } from "../../db/queries/messages.ts";
import { getUserRun, latestFinishedRun } from "../../db/queries/runs.ts";
import { createRunLifecycle } from "../../db/stores/index.ts";
import type { RunResult } from "../../src/core/domain.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

const at = new Date("2025-06-02T06:00:00Z");
const result: RunResult = {
  mode: "agentic",
  route: "briefing",
  endpoint: "default",
  model: "qwen2.5:7b",
  turns: 2,
  toolCalls: 4,
  promptTokens: 900,
  evalTokens: 120,
  timings: { totalMs: 12 },
  grounding: { claimsChecked: 3, unbacked: [], action: "none" },
  prose: "Morning.",
  checks: [],
  reason: null,
};

describeEachDatabase("briefing runs", (getDb) => {
  it("finds a user's runs for that user only, and the latest that produced a briefing", async () => {
    const db = getDb();
    const lifecycle = createRunLifecycle(db);
    const user = await createTestUser(db);
    const other = await createTestUser(db);
    const run = await lifecycle.createManual({
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      owner: "a",
      at,
    });
    expect(await latestFinishedRun(db, user.id)).toBeUndefined();
    await lifecycle.finish(run.id, "a", result, at);
    expect(await latestFinishedRun(db, user.id)).toMatchObject({
      id: run.id,
      state: "generated",
      promptTokens: 900,
    });
    expect(await getUserRun(db, other.id, run.id)).toBeUndefined();
    const failed = await lifecycle.createManual({
      userId: user.id,
      slot: "midday",
      localDate: "2025-06-02",
      owner: "a",
      at,
    });
    await lifecycle.fail(failed.id, "a", "boom", at);
    expect((await latestFinishedRun(db, user.id))?.id).toBe(run.id);
  });

  it("reads receipts back with arguments, parsed results and their time", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const run = await createRunLifecycle(db).createManual({
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      owner: "a",
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
