/**
 * The `Accounts` port's rules on every store: the mirror and what it derives change together, a derived
 * task keeps its id while its object stays, a full sync replaces, removing an account takes its tasks, and
 * no account method hands out another user's rows.
 */
import { describe, expect, it } from "vitest";
import type { DerivedEvent, DerivedObject, DerivedTask, NewAccount } from "../../src/core/domain.ts";
import { taskQuery } from "../../src/core/tasks.ts";
import { describeEachStore } from "./harness.ts";

const at = new Date("2026-03-02T08:00:00Z");

function newAccount(userId: number): NewAccount {
  return {
    userId,
    kind: "caldav",
    label: "Nextcloud",
    url: "https://cloud.example/remote.php/dav",
    username: "ann",
    secret: { keyId: "k1", sealed: "c2VhbGVk" },
    collections: [
      {
        remoteId: "/cal/personal/",
        name: "Personal",
        holds: ["tasks", "events"],
        enabled: true,
        syncState: null,
      },
      { remoteId: "/cal/work/", name: "Work", holds: ["tasks"], enabled: false, syncState: null },
    ],
    createdAt: at,
  };
}

function task(title: string, changes: Partial<DerivedTask> = {}): DerivedTask {
  return {
    title,
    notes: "",
    dueDate: "2026-03-02",
    dueTime: null,
    priority: "normal",
    status: "open",
    completedAt: null,
    parentRemoteId: null,
    labels: [],
    ...changes,
  };
}

function object(remoteId: string, etag: string, tasks: DerivedTask[]): DerivedObject {
  return {
    remoteId,
    etag,
    format: "icalendar",
    body: `BEGIN:VCALENDAR ${remoteId} ${etag}`,
    derived: { tasks, events: [] },
  };
}

function event(title: string, startsAt: string): DerivedEvent {
  const start = new Date(startsAt);
  return {
    title,
    description: "",
    location: "",
    allDay: false,
    startsAt: start,
    endsAt: new Date(start.getTime() + 3_600_000),
    startDate: null,
    endDate: null,
    status: "confirmed",
  };
}

describeEachStore("accounts", (world) => {
  const openTasks = (userId: number) =>
    world().ports.records.listTasks(userId, taskQuery("open", "Europe/London", at));

  it("stores an account without handing out its secret, and finds it for its user only", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const bob = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    expect(account).toMatchObject({ userId: ann.id, kind: "caldav", label: "Nextcloud", lastSyncAt: null });
    expect(JSON.stringify(account)).not.toContain("c2VhbGVk");
    expect(await ports.accounts.get(bob.id, account.id)).toBeUndefined();
    expect(await ports.accounts.list(bob.id)).toEqual([]);
    expect((await ports.accounts.list(ann.id)).map((entry) => entry.id)).toEqual([account.id]);
    expect(await ports.accounts.secretOf(account.id)).toEqual({ keyId: "k1", sealed: "c2VhbGVk" });
    expect(await ports.accounts.remove(bob.id, account.id)).toBe(false);
  });

  it("applies a sync as mirror, derived tasks and sync state together", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    await ports.accounts.applySync(
      account.id,
      "/cal/personal/",
      { changed: [object("a.ics", "e1", [task("Buy milk")])], removed: [], full: true, syncState: "tok1" },
      at,
    );
    const [milk] = await openTasks(ann.id);
    expect(milk).toMatchObject({
      title: "Buy milk",
      accountId: account.id,
      sourceName: "Nextcloud · Personal",
    });
    expect(await ports.accounts.known(account.id, "/cal/personal/")).toEqual(new Map([["a.ics", "e1"]]));
    const stored = await ports.accounts.get(ann.id, account.id);
    expect(stored?.collections.find((entry) => entry.remoteId === "/cal/personal/")?.syncState).toBe("tok1");
    expect(stored?.collections.find((entry) => entry.remoteId === "/cal/work/")?.syncState).toBeNull();
    expect(stored?.lastSyncAt).toEqual(at);
    expect((await ports.accounts.objectOfTask(ann.id, milk?.id ?? 0))?.object).toMatchObject({
      remoteId: "a.ics",
      etag: "e1",
    });
  });

  it("keeps a derived task's id while its object stays, and drops it with the object", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    const coll = "/cal/personal/";
    await ports.accounts.applySync(
      account.id,
      coll,
      {
        changed: [object("a.ics", "e1", [task("Buy milk")]), object("b.ics", "e1", [task("Call Bea")])],
        removed: [],
        full: true,
        syncState: "tok1",
      },
      at,
    );
    const before = await openTasks(ann.id);
    const milkId = before.find((entry) => entry.title === "Buy milk")?.id;
    await ports.accounts.applySync(
      account.id,
      coll,
      {
        changed: [object("a.ics", "e2", [task("Buy oat milk", { priority: "high" })])],
        removed: ["b.ics"],
        full: false,
        syncState: "tok2",
      },
      at,
    );
    const after = await openTasks(ann.id);
    expect(after.map((entry) => [entry.id, entry.title, entry.priority])).toEqual([
      [milkId, "Buy oat milk", "high"],
    ]);
    expect(await ports.accounts.known(account.id, coll)).toEqual(new Map([["a.ics", "e2"]]));
  });

  it("replaces the mirror on a full sync: what the server no longer has goes", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    const coll = "/cal/personal/";
    const first = [object("a.ics", "e1", [task("A")]), object("b.ics", "e1", [task("B")])];
    await ports.accounts.applySync(
      account.id,
      coll,
      { changed: first, removed: [], full: true, syncState: null },
      at,
    );
    await ports.accounts.applySync(
      account.id,
      coll,
      { changed: [object("b.ics", "e1", [task("B")])], removed: [], full: true, syncState: "t" },
      at,
    );
    expect((await openTasks(ann.id)).map((entry) => entry.title)).toEqual(["B"]);
    expect([...(await ports.accounts.known(account.id, coll)).keys()]).toEqual(["b.ics"]);
  });

  it("keeps the mirror when a sync fails, and says why", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    await ports.accounts.applySync(
      account.id,
      "/cal/personal/",
      { changed: [object("a.ics", "e1", [task("A")])], removed: [], full: true, syncState: "t" },
      at,
    );
    const later = new Date(at.getTime() + 60_000);
    await ports.accounts.recordSyncError(account.id, "server answered HTTP 503", later);
    expect(await ports.accounts.get(ann.id, account.id)).toMatchObject({
      lastError: "server answered HTTP 503",
      lastSyncAt: later,
    });
    expect((await openTasks(ann.id)).map((entry) => entry.title)).toEqual(["A"]);
  });

  it("stores a written object as a sync would, and drops one on its own", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    const coll = "/cal/personal/";
    await ports.accounts.applySync(
      account.id,
      coll,
      { changed: [object("a.ics", "e1", [task("A")])], removed: [], full: true, syncState: "t" },
      at,
    );
    const [a] = await openTasks(ann.id);
    await ports.accounts.storeObject(
      account.id,
      coll,
      object("a.ics", "e2", [task("A", { status: "done", completedAt: at })]),
    );
    expect(await ports.records.getTask(ann.id, a?.id ?? 0)).toMatchObject({ status: "done", id: a?.id });
    expect(await ports.accounts.objects(account.id)).toMatchObject([
      { collectionId: coll, object: { remoteId: "a.ics", etag: "e2" } },
    ]);
    await ports.accounts.dropObject(account.id, coll, "a.ics");
    expect(await ports.records.getTask(ann.id, a?.id ?? 0)).toBeUndefined();
    expect(await ports.accounts.objects(account.id)).toEqual([]);
  });

  describe("subtasks", () => {
    const coll = "/cal/personal/";
    const sync = (accountId: number, collection: string, changed: DerivedObject[], removed: string[] = []) =>
      world().ports.accounts.applySync(
        accountId,
        collection,
        { changed, removed, full: false, syncState: null },
        at,
      );
    const byTitle = async (userId: number) =>
      new Map((await openTasks(userId)).map((entry) => [entry.title, entry]));
    const child = (title: string, parent: string) => task(title, { parentRemoteId: parent });

    it("links a subtask to its parent whichever arrives first, in one sync or in two", async () => {
      const { ports, addUser } = world();
      const ann = await addUser();
      const account = await ports.accounts.create(newAccount(ann.id));
      await sync(account.id, coll, [object("box.ics", "e1", [child("Pack books", "move.ics")])]);
      expect((await byTitle(ann.id)).get("Pack books")?.parentId).toBeNull();
      await sync(account.id, coll, [
        object("tape.ics", "e1", [child("Buy tape", "move.ics")]),
        object("move.ics", "e1", [task("Move")]),
      ]);
      const tasks = await byTitle(ann.id);
      const move = tasks.get("Move");
      expect(move?.parentId).toBeNull();
      expect(tasks.get("Pack books")?.parentId).toBe(move?.id);
      expect(tasks.get("Buy tape")?.parentId).toBe(move?.id);
      // An edit of the parent keeps its id, so the link stays.
      await sync(account.id, coll, [object("move.ics", "e2", [task("Move flat")])]);
      expect((await byTitle(ann.id)).get("Pack books")?.parentId).toBe(move?.id);
    });

    it("keeps a subtask whose parent is removed, without a parent, and links it when the parent is back", async () => {
      const { ports, addUser } = world();
      const ann = await addUser();
      const account = await ports.accounts.create(newAccount(ann.id));
      await sync(account.id, coll, [
        object("move.ics", "e1", [task("Move")]),
        object("box.ics", "e1", [child("Pack books", "move.ics")]),
      ]);
      await sync(account.id, coll, [], ["move.ics"]);
      const orphan = (await byTitle(ann.id)).get("Pack books");
      expect(orphan?.parentId).toBeNull();
      await sync(account.id, coll, [object("move.ics", "e2", [task("Move again")])]);
      const tasks = await byTitle(ann.id);
      expect(tasks.get("Pack books")).toMatchObject({
        id: orphan?.id,
        parentId: tasks.get("Move again")?.id,
      });
      // A parent deleted as a task (not through a sync) clears the link the same way.
      await ports.records.deleteTask(ann.id, tasks.get("Move again")?.id ?? 0);
      expect((await byTitle(ann.id)).get("Pack books")?.parentId).toBeNull();
    });

    it("drops the link when the subtask stops naming its parent, and never links a task to itself", async () => {
      const { ports, addUser } = world();
      const ann = await addUser();
      const account = await ports.accounts.create(newAccount(ann.id));
      await sync(account.id, coll, [
        object("move.ics", "e1", [task("Move")]),
        object("box.ics", "e1", [child("Pack books", "move.ics")]),
        object("loop.ics", "e1", [child("Loop", "loop.ics")]),
      ]);
      expect((await byTitle(ann.id)).get("Loop")?.parentId).toBeNull();
      await ports.accounts.storeObject(account.id, coll, object("box.ics", "e2", [task("Pack books")]));
      expect((await byTitle(ann.id)).get("Pack books")?.parentId).toBeNull();
      await ports.accounts.storeObject(
        account.id,
        coll,
        object("box.ics", "e3", [child("Pack books", "move.ics")]),
      );
      const tasks = await byTitle(ann.id);
      expect(tasks.get("Pack books")?.parentId).toBe(tasks.get("Move")?.id);
    });

    it("does not link a parent of the same name in another collection or another account", async () => {
      const { ports, addUser } = world();
      const ann = await addUser();
      const account = await ports.accounts.create(newAccount(ann.id));
      const other = await ports.accounts.create(newAccount(ann.id));
      await sync(account.id, "/cal/work/", [object("move.ics", "e1", [task("Move (work)")])]);
      await sync(other.id, coll, [object("move.ics", "e1", [task("Move (other account)")])]);
      await sync(account.id, coll, [object("box.ics", "e1", [child("Pack books", "move.ics")])]);
      expect((await byTitle(ann.id)).get("Pack books")?.parentId).toBeNull();
      // …while the same remote id in its own collection is its parent.
      await sync(account.id, coll, [object("move.ics", "e1", [task("Move")])]);
      const tasks = await byTitle(ann.id);
      expect(tasks.get("Pack books")?.parentId).toBe(tasks.get("Move")?.id);
      expect(tasks.get("Move (work)")?.parentId).toBeNull();
    });
  });

  it("removes an account with its mirror and its tasks, leaving local tasks alone", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    await ports.records.createTask({ userId: ann.id, title: "Local" });
    await ports.accounts.applySync(
      account.id,
      "/cal/personal/",
      { changed: [object("a.ics", "e1", [task("Remote")])], removed: [], full: true, syncState: "t" },
      at,
    );
    expect(await ports.accounts.remove(ann.id, account.id)).toBe(true);
    expect((await openTasks(ann.id)).map((entry) => entry.title)).toEqual(["Local"]);
    expect(await ports.accounts.list(ann.id)).toEqual([]);
    expect(await ports.accounts.objects(account.id)).toEqual([]);
  });

  it("re-seals secrets all together or not at all", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const one = await ports.accounts.create(newAccount(ann.id));
    await ports.accounts.replaceSecrets([{ accountId: one.id, secret: { keyId: "k2", sealed: "bmV3" } }]);
    expect(await ports.accounts.secretOf(one.id)).toEqual({ keyId: "k2", sealed: "bmV3" });
    await expect(
      ports.accounts.replaceSecrets([
        { accountId: one.id, secret: { keyId: "k3", sealed: "eA==" } },
        { accountId: 999_999, secret: { keyId: "k3", sealed: "eA==" } },
      ]),
    ).rejects.toThrow(/no account 999999/);
    expect(await ports.accounts.secretOf(one.id)).toEqual({ keyId: "k2", sealed: "bmV3" });
  });

  it("refuses a sync of a collection the account does not have", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    await expect(
      ports.accounts.applySync(
        account.id,
        "/nope/",
        { changed: [], removed: [], full: true, syncState: null },
        at,
      ),
    ).rejects.toThrow(/no collection \/nope\//);
  });

  it("exports an account without its secret, and forgets it with the user", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    await ports.accounts.applySync(
      account.id,
      "/cal/personal/",
      { changed: [object("a.ics", "e1", [task("Remote")])], removed: [], full: true, syncState: "t" },
      at,
    );
    const data = await ports.userData.read(ann.id);
    expect(data?.accounts).toMatchObject([{ id: account.id, label: "Nextcloud", username: "ann" }]);
    expect(JSON.stringify(data?.accounts)).not.toContain("c2VhbGVk");
    const counts = await ports.userData.remove(ann.id);
    expect(counts.accounts).toBe(1);
    expect(await ports.accounts.listAll()).not.toContainEqual(expect.objectContaining({ id: account.id }));
    expect(await ports.accounts.objects(account.id)).toEqual([]);
  });

  it("keeps a derived event's id while its object stays, finds the object behind it, and drops it with the object", async () => {
    const { ports, addUser } = world();
    const ann = await addUser();
    const bob = await addUser();
    const account = await ports.accounts.create(newAccount(ann.id));
    const withEvents = (etag: string, events: DerivedEvent[]): DerivedObject => ({
      ...object("/cal/personal/review.ics", etag, []),
      derived: { tasks: [], events },
    });
    await ports.accounts.storeObject(
      account.id,
      "/cal/personal/",
      withEvents("e1", [event("Review", "2026-03-02T09:00:00Z")]),
    );
    const [id] = await ports.accounts.eventsOfObject(
      account.id,
      "/cal/personal/",
      "/cal/personal/review.ics",
    );
    expect(id).toBeDefined();
    expect(await ports.accounts.objectOfEvent(ann.id, id ?? 0)).toMatchObject({
      account: { id: account.id },
      collectionId: "/cal/personal/",
      object: { remoteId: "/cal/personal/review.ics", etag: "e1" },
    });
    expect(await ports.accounts.objectOfEvent(bob.id, id ?? 0)).toBeUndefined();

    // Moved (a write or a sync): same id, new time; a second occurrence gets an id of its own.
    await ports.accounts.storeObject(
      account.id,
      "/cal/personal/",
      withEvents("e2", [event("Review", "2026-03-03T14:00:00Z"), event("Review", "2026-03-10T14:00:00Z")]),
    );
    const ids = await ports.accounts.eventsOfObject(account.id, "/cal/personal/", "/cal/personal/review.ics");
    expect(ids[0]).toBe(id);
    expect(ids).toHaveLength(2);
    expect(await ports.records.getEvent(ann.id, id ?? 0)).toMatchObject({
      startsAt: new Date("2026-03-03T14:00:00Z"),
      accountId: account.id,
      sourceName: "Nextcloud · Personal",
    });
    await ports.accounts.storeObject(
      account.id,
      "/cal/personal/",
      withEvents("e3", [event("Review", "2026-03-04T14:00:00Z")]),
    );
    expect(
      await ports.accounts.eventsOfObject(account.id, "/cal/personal/", "/cal/personal/review.ics"),
    ).toEqual([id]);
    expect(await ports.records.getEvent(ann.id, ids[1] ?? 0)).toBeUndefined();

    await ports.accounts.dropObject(account.id, "/cal/personal/", "/cal/personal/review.ics");
    expect(await ports.records.getEvent(ann.id, id ?? 0)).toBeUndefined();
    expect(await ports.accounts.objectOfEvent(ann.id, id ?? 0)).toBeUndefined();
  });
});
