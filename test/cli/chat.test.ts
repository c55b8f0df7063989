import { Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTask, getTask } from "../../db/queries/tasks.ts";
import { registerBriefCommands } from "../../src/cli/commands/brief.ts";
import { createChatCommands } from "../../src/cli/commands/chat.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { call, LONDON, MODEL, requestText, START, seedWeather, startModelServer } from "../core/fixture.ts";
import { cliHarness } from "../helpers/cli.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";

let server: OllamaTestServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

describeEachDatabase("briefbot chat", (getDb) => {
  const cli = (lines: string[]) =>
    cliHarness(getDb, {
      env: { OLLAMA_HOST: server.url, BRIEFBOT_MODEL: MODEL },
      clock: fixedClock(START),
      families: [
        registerBriefCommands,
        createChatCommands({ input: Readable.from(lines.map((line) => `${line}\n`)) }),
      ],
    });

  it("follows up on the latest briefing and asks y/n before deleting", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const task = await createTask(db, { userId: user.id, title: "File expenses", dueDate: "2025-05-30" });
    // A fresh forecast: the refresh before the briefing has nothing to fetch.
    await seedWeather(db);
    server.script(MODEL, [{ content: '"File expenses" is overdue. Nothing on your calendar today.' }]);
    expect((await cli([])("brief", "--user", user.name, "--slot", "morning")).code).toBe(0);

    server.script(MODEL, [
      { content: '"File expenses" was due 2025-05-30.' },
      { toolCalls: [call("delete_task", { id: task.id })] },
      { content: "Confirm to delete it." },
    ]);
    const result = await cli(["what's overdue?", "delete it", "y", "/exit"])("chat", "--user", user.name);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/following up on briefing run \d+/);
    expect(result.stdout).toContain('assistant> "File expenses" was due 2025-05-30.');
    expect(result.stdout).toContain(`confirm> Delete task ${task.id} "File expenses"? [y/N]`);
    expect(result.stdout).toContain(`assistant> Done: Delete task ${task.id} "File expenses".`);
    expect(await getTask(db, user.id, task.id)).toBeUndefined();
    expect(requestText(server.chatRequests(MODEL).at(-3) ?? { messages: [] })).toContain(
      '"File expenses" is overdue.',
    );
  });

  it("keeps the task when the answer is not y, and refuses an unknown run", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    const task = await createTask(db, { userId: user.id, title: "Keep me" });
    server.script(MODEL, [{ toolCalls: [call("delete_task", { id: task.id })] }, { content: "Confirm?" }]);
    const result = await cli(["delete keep me", "n"])("chat", "--user", user.name, "--new");
    expect(result.stdout).toContain("assistant> Cancelled, nothing was changed");
    expect(await getTask(db, user.id, task.id)).toBeDefined();
    const unknown = await cli([])("chat", "--user", user.name, "--run", "999999");
    expect(unknown.code).toBe(2);
  });

  it("states an unrequested task creation in the reply, and /undo takes it back", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    server.script(MODEL, [
      { toolCalls: [call("create_task", { title: "x" })] },
      { content: "Your day looks calm." },
    ]);
    const result = await cli(["how is my day?", "/undo", "/undo"])("chat", "--user", user.name, "--new");
    expect(result.code).toBe(0);
    const id = /✓ Created task (\d+) "x"\./.exec(result.stdout)?.[1];
    expect(result.stdout).toContain(`assistant> Your day looks calm.\n✓ Created task ${id} "x".`);
    expect(result.stdout).toContain(`assistant> Undone: deleted task ${id} "x".`);
    expect(result.stdout).toContain("assistant> There is nothing to undo.");
    expect(await getTask(db, user.id, Number(id))).toBeUndefined();
  });

  it("never prints a follow-up's invented meeting: the answer falls back to what the receipts show", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedWeather(db);
    server.script(MODEL, [{ content: "Nothing on your calendar today." }]);
    expect((await cli([])("brief", "--user", user.name, "--slot", "morning")).code).toBe(0);
    const lie = "Your 10:30 AM meeting is with the design team.";
    server.script(MODEL, [{ content: lie }, { content: lie }]);
    const result = await cli(["what meeting do I have?"])("chat", "--user", user.name);
    expect(result.stdout).not.toMatch(/10:30|design team/);
    expect(result.stdout).toContain(
      "assistant> I can only see this in your data:\nNothing on your calendar today.",
    );
  });
});
