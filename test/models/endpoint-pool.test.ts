import { describe, expect, it } from "vitest";
import type { ModelRole } from "../../src/core/model.ts";
import { EndpointPool, type Lease } from "../../src/models/endpoint-pool.ts";

/** Lets granted leases' promise callbacks run. */
const settle = async () => {
  for (let index = 0; index < 5; index += 1) await Promise.resolve();
};

function recorder(pool: EndpointPool) {
  const leases = new Map<string, Lease>();
  const started: string[] = [];
  const request = (name: string, role: ModelRole, candidates: string[], preferred?: string) =>
    pool.acquire({ role, candidates, preferred }).then((lease) => {
      started.push(`${name}@${lease.endpoint}`);
      leases.set(name, lease);
      return lease;
    });
  const release = async (name: string) => {
    leases.get(name)?.release();
    await settle();
  };
  return { started, request, release, leases };
}

describe("EndpointPool", () => {
  it("on one endpoint: fills its slots, then serves interactive work first and FIFO within a priority", async () => {
    let clock = 0;
    const pool = new EndpointPool([{ name: "gpu0", concurrency: 2 }], {
      interactiveEndpoints: [],
      now: () => clock,
    });
    const { started, request, release } = recorder(pool);
    const all = [
      request("b1", "background", ["gpu0"]),
      request("b2", "briefing", ["gpu0"]),
      request("b3", "background", ["gpu0"]),
      request("i1", "interactive", ["gpu0"]),
      request("b4", "briefing", ["gpu0"]),
      request("i2", "interactive", ["gpu0"]),
    ];
    await settle();
    expect(started).toEqual(["b1@gpu0", "b2@gpu0"]);
    expect(pool.statsOf("gpu0")).toMatchObject({
      running: 2,
      queued: 4,
      queuedByRole: { interactive: 2, briefing: 1, background: 1 },
    });
    clock = 40;
    expect(pool.statsOf("gpu0").oldestQueuedMs).toBe(40);
    await release("b1");
    await release("b1"); // idempotent: must not free a second slot
    expect(started).toEqual(["b1@gpu0", "b2@gpu0", "i1@gpu0"]);
    for (const name of ["b2", "i1", "i2", "b3"]) await release(name);
    await Promise.all(all);
    expect(started.map((entry) => entry.split("@")[0])).toEqual(["b1", "b2", "i1", "i2", "b3", "b4"]);
    const stats = pool.statsOf("gpu0");
    expect(stats.waits).toEqual({ count: 6, totalMs: 160, maxMs: 40, lastMs: 40 });
    expect(stats.waitsByRole.interactive).toMatchObject({ count: 2, totalMs: 80 });
    expect(stats).toMatchObject({ running: 1, queued: 0 });
  });

  it("is work-conserving: briefing work takes whichever listed endpoint is free, its own first", async () => {
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 1 },
        { name: "gpu1", concurrency: 1 },
      ],
      { interactiveEndpoints: ["gpu0"] },
    );
    const { started, request, release } = recorder(pool);
    void request("a", "briefing", ["gpu1", "gpu0"]);
    void request("b", "briefing", ["gpu1", "gpu0"]);
    void request("c", "briefing", ["gpu1", "gpu0"]);
    await settle();
    expect(started).toEqual(["a@gpu1", "b@gpu0"]);
    await release("b");
    expect(started).toEqual(["a@gpu1", "b@gpu0", "c@gpu0"]);
    expect(pool.statsOf("gpu0").spilledIn.briefing).toBe(2);
    expect(pool.statsOf("gpu1").spilledIn.briefing).toBe(0);
  });

  it("never lets more than one briefing hold the interactive endpoint, and never while a question waits", async () => {
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 1 },
        { name: "gpu1", concurrency: 1 },
      ],
      { interactiveEndpoints: ["gpu0"] },
    );
    const { started, request, release } = recorder(pool);
    void request("b1", "briefing", ["gpu1", "gpu0"]);
    void request("b2", "briefing", ["gpu1", "gpu0"]);
    void request("b3", "briefing", ["gpu1", "gpu0"]);
    await settle();
    const question = request("q", "interactive", ["gpu0"]);
    await settle();
    expect(started).toEqual(["b1@gpu1", "b2@gpu0"]);
    // gpu0 frees: the question goes first although b3 waited longer.
    await release("b2");
    expect(started.at(-1)).toBe("q@gpu0");
    expect((await question).endpoint).toBe("gpu0");
    // b3 still may take gpu1 when that frees.
    await release("b1");
    expect(started.at(-1)).toBe("b3@gpu1");
  });

  it("keeps a slot of a parallel interactive endpoint free for questions", async () => {
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 2 },
        { name: "gpu1", concurrency: 1 },
      ],
      { interactiveEndpoints: ["gpu0"], now: () => 0 },
    );
    const { started, request } = recorder(pool);
    for (const name of ["b1", "b2", "b3"]) void request(name, "briefing", ["gpu1", "gpu0"]);
    await settle();
    expect(started).toEqual(["b1@gpu1", "b2@gpu0"]);
    expect(pool.statsOf("gpu0")).toMatchObject({ running: 1, runningByRole: { briefing: 1 } });
    const question = await request("q", "interactive", ["gpu0"]);
    expect(question).toMatchObject({ endpoint: "gpu0", waitedMs: 0 });
  });

  it("prefers the endpoint that served the conversation, and only when it is free", async () => {
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 1 },
        { name: "gpu1", concurrency: 1 },
      ],
      { interactiveEndpoints: [] },
    );
    const { started, request, release } = recorder(pool);
    await request("turn2", "briefing", ["gpu1", "gpu0"], "gpu0");
    await request("other", "briefing", ["gpu1", "gpu0"]);
    void request("turn3", "briefing", ["gpu1", "gpu0"], "gpu0");
    await settle();
    await release("other");
    expect(started).toEqual(["turn2@gpu0", "other@gpu1", "turn3@gpu1"]);
  });

  it("lets a conversation claim its cached endpoint ahead of a few earlier waiters", async () => {
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 1 },
        { name: "gpu1", concurrency: 1 },
      ],
      { interactiveEndpoints: [] },
    );
    const { started, request, release } = recorder(pool);
    await request("x", "briefing", ["gpu1", "gpu0"]);
    await request("y", "briefing", ["gpu1", "gpu0"]);
    void request("head", "briefing", ["gpu1", "gpu0"]);
    void request("turn2", "briefing", ["gpu1", "gpu0"], "gpu0");
    await settle();
    await release("y");
    expect(started.slice(2)).toEqual(["turn2@gpu0"]);
    await release("x");
    expect(started.slice(2)).toEqual(["turn2@gpu0", "head@gpu1"]);
  });

  it("steers spread work around an endpoint that just failed, until it recovers", async () => {
    let clock = 0;
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 1 },
        { name: "gpu1", concurrency: 1 },
      ],
      { interactiveEndpoints: [], now: () => clock },
    );
    const { started, request, release } = recorder(pool);
    pool.markDown("gpu1", 1000);
    await request("a", "briefing", ["gpu1", "gpu0"]);
    await release("a");
    // With nowhere else to go, work still tries the failing endpoint.
    await request("b", "background", ["gpu1"]);
    await release("b");
    expect(pool.statsOf("gpu1").down).toBe(true);
    clock = 1001;
    await request("c", "briefing", ["gpu1", "gpu0"]);
    expect(started).toEqual(["a@gpu0", "b@gpu1", "c@gpu1"]);
    expect(pool.statsOf("gpu1").down).toBe(false);
  });

  it("measures busy time and utilisation per endpoint and role", async () => {
    let clock = 0;
    const pool = new EndpointPool(
      [
        { name: "gpu0", concurrency: 1 },
        { name: "gpu1", concurrency: 2 },
      ],
      { interactiveEndpoints: ["gpu0"], now: () => clock },
    );
    const briefing = await pool.acquire({ role: "briefing", candidates: ["gpu1"] });
    const chat = await pool.acquire({ role: "interactive", candidates: ["gpu0"] });
    clock = 30_000;
    chat.release();
    clock = 60_000;
    const gpu0 = pool.statsOf("gpu0");
    const gpu1 = pool.statsOf("gpu1");
    expect(gpu0.busyMsByRole).toEqual({ interactive: 30_000, briefing: 0, background: 0 });
    expect(gpu0.utilisation).toEqual({ lastMinute: 0.5, last15Minutes: 0.5, sinceStart: 0.5 });
    // One of two slots busy for the whole minute, the briefing still running.
    expect(gpu1.busyMsByRole.briefing).toBe(60_000);
    expect(gpu1.utilisation.lastMinute).toBe(0.5);
    briefing.release();
    clock = 120_000;
    expect(pool.statsOf("gpu1").utilisation).toEqual({
      lastMinute: 0,
      last15Minutes: 0.25,
      sinceStart: 0.25,
    });
  });

  it("rejects an aborted waiter without taking a slot", async () => {
    const pool = new EndpointPool([{ name: "gpu0", concurrency: 1 }], { interactiveEndpoints: ["gpu0"] });
    const first = await pool.acquire({ role: "briefing", candidates: ["gpu0"] });
    const controller = new AbortController();
    const waiting = pool.acquire({ role: "interactive", candidates: ["gpu0"], signal: controller.signal });
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    first.release();
    expect(pool.statsOf("gpu0")).toMatchObject({ running: 0, queued: 0 });
    await expect(
      pool.acquire({
        role: "interactive",
        candidates: ["gpu0"],
        signal: AbortSignal.abort(new Error("already")),
      }),
    ).rejects.toThrow("already");
  });

  it("serves strictly in arrival order when priority is off (the bench's baseline)", async () => {
    const pool = new EndpointPool([{ name: "gpu0", concurrency: 1 }], {
      interactiveEndpoints: ["gpu0"],
      prioritizeInteractive: false,
    });
    const { started, request, release } = recorder(pool);
    await request("b1", "briefing", ["gpu0"]);
    void request("b2", "background", ["gpu0"]);
    void request("q", "interactive", ["gpu0"]);
    await release("b1");
    await release("b2");
    expect(started).toEqual(["b1@gpu0", "b2@gpu0", "q@gpu0"]);
  });
});
