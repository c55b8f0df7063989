/**
 * The contract of `ReceiptLog`: messages kept in the order written, tool results read back as receipts
 * (arguments, parsed result, error flag, when), a thread's last messages oldest first. Held by the
 * in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import type { NewLoggedMessage } from "../../src/core/domain.ts";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");
const seconds = (count: number) => new Date(at.getTime() + count * 1000);

describeEachStore("the receipt log", (world) => {
  it("returns the receipts among the messages it stores, and reads them back per run", async () => {
    const { receipts, lifecycle } = world().ports;
    const user = await world().addUser();
    const run = await lifecycle.createManual({
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      owner: "a",
      at,
    });
    const base = { userId: user.id, conversationId: null, runId: run.id };
    const written: NewLoggedMessage[] = [
      { ...base, role: "user", content: "Brief me", metadata: {}, createdAt: seconds(0) },
      {
        ...base,
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", function: { name: "list_tasks", arguments: { filter: "open" } } }],
        metadata: {},
        createdAt: seconds(1),
      },
      {
        ...base,
        role: "tool",
        toolName: "list_tasks",
        toolCallId: "call_1",
        content: '{"tasks":[{"id":1}]}',
        metadata: { kind: "receipt", arguments: { filter: "open" } },
        createdAt: seconds(2),
      },
      {
        ...base,
        role: "tool",
        toolName: "get_weather",
        content: "not json",
        metadata: { error: true },
        createdAt: seconds(3),
      },
    ];
    const stored = await receipts.append(written);
    expect(stored.map((receipt) => receipt.toolName)).toEqual(["list_tasks", "get_weather"]);
    expect(stored[0]).toMatchObject({
      runId: run.id,
      arguments: { filter: "open" },
      result: { tasks: [{ id: 1 }] },
      error: false,
      at: seconds(2),
    });
    expect(stored[1]).toMatchObject({ arguments: {}, result: "not json", error: true });
    expect(await receipts.runReceipts(run.id)).toEqual(stored);
    const messages = await receipts.runMessages(run.id);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(messages[1]).toMatchObject({
      toolCalls: [{ id: "call_1", function: { name: "list_tasks", arguments: { filter: "open" } } }],
      toolName: null,
      toolCallId: null,
    });
    expect(await receipts.append([])).toEqual([]);
    expect(await receipts.archivedReceipts(run.id)).toBeUndefined();
  });

  it("reads a thread's last messages oldest first, never another thread's", async () => {
    const { receipts, conversations } = world().ports;
    const user = await world().addUser();
    const thread = await conversations.findOrCreate({
      userId: user.id,
      platform: "cli",
      threadKey: `cli:${user.id}`,
      at,
    });
    const other = await conversations.findOrCreate({
      userId: user.id,
      platform: "cli",
      threadKey: `cli:${user.id}:2`,
      at,
    });
    const say = (conversationId: number, content: string, second: number): NewLoggedMessage => ({
      userId: user.id,
      conversationId,
      runId: null,
      role: "user",
      content,
      metadata: {},
      createdAt: seconds(second),
    });
    await receipts.append([
      say(thread.id, "one", 1),
      say(other.id, "elsewhere", 2),
      say(thread.id, "two", 3),
    ]);
    await receipts.append([say(thread.id, "three", 4)]);
    const contents = async (limit: number) =>
      (await receipts.threadMessages(thread.id, limit)).map((message) => message.content);
    expect(await contents(60)).toEqual(["one", "two", "three"]);
    expect(await contents(2)).toEqual(["two", "three"]);
    expect(await contents(0)).toEqual([]);
  });
});
