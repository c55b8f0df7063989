import { expect, it } from "vitest";
import type { Assistant } from "../../../src/core/assistant.ts";
import { ModelError } from "../../../src/core/model.ts";
import { call, type ScriptedModel, scriptedModel } from "../../helpers/scripted-model.ts";
import {
  createTask,
  createTestUser,
  describeInMemory,
  getPendingAction,
  getTask,
} from "../../helpers/test-store.ts";
import { LONDON, testCore } from "../fixture.ts";

describeInMemory("plain chat and confirmations", (getStore) => {
  async function setup() {
    const store = getStore();
    const user = await createTestUser(store, LONDON);
    const task = await createTask(store, { userId: user.id, title: "Renew passport" });
    const model = scriptedModel();
    return { store, user, task, ...testCore(store, model) };
  }

  async function askToDelete(
    { assistant, model }: { assistant: Assistant; model: ScriptedModel },
    userId: number,
    taskId: number,
  ) {
    model.script(
      { toolCalls: [call("delete_task", { id: taskId })] },
      { content: "Press Confirm to delete it." },
    );
    return assistant.reply(
      userId,
      { platform: "cli", threadKey: `cli:${userId}:${taskId}` },
      "delete the passport task",
    );
  }

  it("creates with the interactive route and the full tool set", async () => {
    const { store, user, assistant, model } = await setup();
    model.script(
      { toolCalls: [call("create_task", { title: "Book dentist", due_date: "2025-06-06", user_id: 999 })] },
      { content: 'Added "Book dentist" for 2025-06-06.' },
    );
    const reply = await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:create` },
      "add a task to book the dentist by Friday",
    );
    const created = reply.receipts[0]?.result as { created: { id: number } };
    // Asked for in plain words with no outside text in play: it runs, and the reply states it from the receipt.
    expect(reply.text).toBe(
      `Added "Book dentist" for 2025-06-06.\n✓ Created task ${created.created.id} "Book dentist" (due 2025-06-06).`,
    );
    expect(reply.pending).toEqual([]);
    expect(reply.changes).toEqual([
      {
        report: `Created task ${created.created.id} "Book dentist" (due 2025-06-06)`,
        undo: expect.objectContaining({
          summary: `Undo: Created task ${created.created.id} "Book dentist" (due 2025-06-06)`,
        }),
      },
    ]);
    expect((await getTask(store, user.id, created.created.id))?.title).toBe("Book dentist");
    const request = model.requests.at(-2);
    expect((request?.tools ?? []).length).toBe(18);
    expect(String(request?.messages[0]?.content)).toContain(
      "Never assert facts you didn't learn from a tool.",
    );
  });

  it("waits for the owner's Confirm, refuses anyone else, and runs once", async () => {
    const { store, user, task, assistant, model } = await setup();
    const reply = await askToDelete({ assistant, model }, user.id, task.id);
    expect(reply.pending).toHaveLength(1);
    const pending = reply.pending[0]!;
    expect(pending.summary).toBe(`Delete task ${task.id} "Renew passport"?`);
    expect(pending.expiresAt.toISOString()).toBe("2025-06-02T06:10:00.000Z");
    expect(reply.text).toContain("waiting for your confirmation");
    const toolResult = model.requests.at(-1)?.messages.find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toContain("waiting_for_confirmation");
    expect(await getTask(store, user.id, task.id)).toBeDefined();

    const stranger = await createTestUser(store, LONDON);
    expect((await assistant.resolveConfirmation(stranger.id, pending.id, true)).kind).toBe("not-yours");
    expect(await getTask(store, user.id, task.id)).toBeDefined();

    const done = await assistant.resolveConfirmation(user.id, pending.id, true);
    expect(done).toEqual({ kind: "done", text: `Done: Delete task ${task.id} "Renew passport".` });
    expect(await getTask(store, user.id, task.id)).toBeUndefined();
    expect((await assistant.resolveConfirmation(user.id, pending.id, true)).kind).toBe("already-resolved");
    expect((await getPendingAction(store, pending.id))?.state).toBe("confirmed");
    expect((await assistant.resolveConfirmation(user.id, 987_654, true)).kind).toBe("not-found");
  });

  it("lets the owner cancel, and expires after the configured minutes", async () => {
    const { store, user, task, assistant, clock, model } = await setup();
    const first = await askToDelete({ assistant, model }, user.id, task.id);
    expect((await assistant.resolveConfirmation(user.id, first.pending[0]!.id, false)).kind).toBe(
      "cancelled",
    );
    expect(await getTask(store, user.id, task.id)).toBeDefined();

    const second = await askToDelete({ assistant, model }, user.id, task.id);
    clock.advance(11 * 60_000);
    const expired = await assistant.resolveConfirmation(user.id, second.pending[0]!.id, true);
    expect(expired.kind).toBe("expired");
    expect(await getTask(store, user.id, task.id)).toBeDefined();
    expect((await getPendingAction(store, second.pending[0]!.id))?.state).toBe("expired");
  });

  it("answers honestly when the model is down", async () => {
    const { user, assistant, model } = await setup();
    model.script({
      error: new ModelError("model runner has unexpectedly stopped", "MODEL_UNAVAILABLE"),
    });
    const reply = await assistant.reply(
      user.id,
      { platform: "cli", threadKey: `cli:${user.id}:down` },
      "hello?",
    );
    expect(reply.text).toMatch(/model is unavailable right now/);
  });
});
