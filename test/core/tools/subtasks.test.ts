/**
 * Subtasks as a person reads them: list_tasks puts each subtask under its parent and the parent says how
 * many the list holds; "the move has two subtasks" is checked against that count and nothing else; the
 * plain digest says whose subtask a line is. Account tasks come in through the Accounts port, as a sync
 * stores them.
 */
import { expect, it } from "vitest";
import { buildDigest } from "../../../src/core/briefing/digest.ts";
import type { DerivedObject, DerivedTask, Receipt } from "../../../src/core/domain.ts";
import { checkGrounding } from "../../../src/core/grounding/index.ts";
import { subtasksUnderParents } from "../../../src/core/tasks.ts";
import { briefingToolSet } from "../../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { dispatchToolCall } from "../../../src/core/tools/dispatch.ts";
import { createTestUser, describeInMemory, type MemoryStore } from "../../helpers/test-store.ts";
import { LONDON, START, TODAY, toolContextFor } from "../fixture.ts";

const tools = briefingToolSet(createDefaultToolRegistry());

function todo(remoteId: string, title: string, parentRemoteId: string | null = null): DerivedObject {
  const task: DerivedTask = {
    title,
    notes: "",
    dueDate: TODAY,
    dueTime: null,
    priority: "normal",
    status: "open",
    completedAt: null,
    parentRemoteId,
    labels: [],
  };
  return { remoteId, etag: "e1", format: "icalendar", body: "", derived: { tasks: [task], events: [] } };
}

/** Ann's Nextcloud tasks, the subtasks synced before their parent (ids in that order). */
async function seed(store: MemoryStore) {
  const user = await createTestUser(store, LONDON);
  const account = await store.ports.accounts.create({
    userId: user.id,
    kind: "caldav",
    label: "Nextcloud",
    url: "https://cloud.example/remote.php/dav",
    username: "ann",
    secret: { keyId: "k1", sealed: "eA==" },
    collections: [{ remoteId: "/t/", name: "Tasks", holds: ["tasks"], enabled: true, syncState: null }],
    createdAt: new Date(START),
  });
  const changed = [
    todo("/t/box.ics", "Pack books", "/t/move.ics"),
    todo("/t/tape.ics", "Buy tape", "/t/move.ics"),
    todo("/t/bea.ics", "Call Bea"),
    todo("/t/move.ics", "Move flat"),
    todo("/t/van.ics", "Book van", "/t/gone.ics"),
  ];
  await store.ports.accounts.applySync(
    account.id,
    "/t/",
    { changed, removed: [], full: true, syncState: null },
    new Date(START),
  );
  return user;
}

async function listed(store: MemoryStore): Promise<Receipt> {
  const user = await seed(store);
  const call = { id: "c1", function: { name: "list_tasks", arguments: { filter: "due_today" } } };
  const outcome = await dispatchToolCall(tools, call, toolContextFor(store, user));
  expect(outcome.error).toBe(false);
  return {
    id: 1,
    runId: 1,
    toolName: outcome.name,
    arguments: outcome.arguments,
    result: outcome.result,
    error: false,
    at: new Date(START),
  };
}

describeInMemory("subtasks in list_tasks, the grounding and the digest", (getStore) => {
  it("lists each subtask under its parent, with its parent's id, and the parent with its count", async () => {
    const receipt = await listed(getStore());
    const { tasks } = receipt.result as { tasks: Record<string, unknown>[] };
    const move = tasks.find((task) => task.title === "Move flat");
    // The store's order is due date, then id: "Call Bea" was stored before "Move flat".
    expect(tasks.map((task) => [task.title, task.parent, task.subtasks])).toEqual([
      ["Call Bea", undefined, undefined],
      ["Move flat", undefined, 2],
      ["Pack books", move?.id, undefined],
      ["Buy tape", move?.id, undefined],
      // Its parent is not here: it stays in place, and names no parent.
      ["Book van", undefined, undefined],
    ]);
  });

  it("backs a parent's subtask count, and no other number of subtasks", async () => {
    const receipt = await listed(getStore());
    const check = (prose: string) => checkGrounding(prose, [receipt], { ...LONDON, localDate: TODAY });
    expect(check('"Move flat" has two subtasks today.').unbacked).toEqual([]);
    expect(check('"Move flat" has 2 open subtasks.').unbacked).toEqual([]);
    // Five tasks are due today and a task id may be 3: neither is a count of subtasks.
    expect(check('"Move flat" has five subtasks.').unbacked.map((claim) => claim.text)).toEqual([
      "five subtasks",
    ]);
    expect(check('"Move flat" has 3 subtasks.').unbacked.map((claim) => claim.text)).toEqual(["3 subtasks"]);
  });

  it("says in the plain digest whose subtask a line is", async () => {
    const receipt = await listed(getStore());
    const digest = buildDigest([receipt], { heading: "Good morning." });
    expect(digest).toContain(
      `Due today: "Call Bea" (due ${TODAY}); "Move flat" (due ${TODAY}); ` +
        `"Pack books" (subtask of "Move flat", due ${TODAY}); "Buy tape" (subtask of "Move flat", due ${TODAY}); ` +
        `"Book van" (due ${TODAY}).`,
    );
  });
});

it("lists every task once when parents form a cycle or a task names itself", () => {
  const tasks = [
    { id: 1, parentId: 2 },
    { id: 2, parentId: 1 },
    { id: 3, parentId: 3 },
    { id: 4, parentId: 1 },
  ];
  expect(subtasksUnderParents(tasks).map((task) => task.id)).toEqual([3, 1, 2, 4]);
});
