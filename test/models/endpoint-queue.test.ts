import { describe, expect, it } from "vitest";
import type { ModelRole } from "../../src/core/model.ts";
import { EndpointQueue, type QueueSlot } from "../../src/models/endpoint-queue.ts";

describe("EndpointQueue", () => {
  it("fills its slots, then serves interactive work first and FIFO within a priority", async () => {
    let clock = 0;
    const queue = new EndpointQueue("gpu0", 2, () => clock);
    const started: string[] = [];
    const slots = new Map<string, QueueSlot>();
    const enqueue = (name: string, role: ModelRole) =>
      queue.acquire(role).then((slot) => {
        started.push(name);
        slots.set(name, slot);
      });

    const all = [
      enqueue("b1", "background"),
      enqueue("b2", "briefing"),
      enqueue("b3", "background"),
      enqueue("i1", "interactive"),
      enqueue("b4", "briefing"),
      enqueue("i2", "interactive"),
    ];
    await Promise.resolve();
    expect(started).toEqual(["b1", "b2"]);
    expect(queue.stats()).toMatchObject({
      running: 2,
      queued: 4,
      queuedByRole: { interactive: 2, briefing: 1, background: 1 },
    });

    clock = 40;
    expect(queue.stats().oldestQueuedMs).toBe(40);
    slots.get("b1")?.release();
    slots.get("b1")?.release(); // idempotent: must not free a second slot
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toEqual(["b1", "b2", "i1"]);
    for (const name of ["b2", "i1", "i2", "b3"]) {
      slots.get(name)?.release();
      await Promise.resolve();
      await Promise.resolve();
    }
    await Promise.all(all);
    expect(started).toEqual(["b1", "b2", "i1", "i2", "b3", "b4"]);
    const stats = queue.stats();
    expect(stats.waits).toEqual({ count: 6, totalMs: 160, maxMs: 40, lastMs: 40 });
    expect(stats.waitsByRole.interactive).toMatchObject({ count: 2, totalMs: 80 });
    expect(stats).toMatchObject({ running: 1, queued: 0 });
  });

  it("rejects an aborted waiter without taking a slot", async () => {
    const queue = new EndpointQueue("gpu0", 1);
    const first = await queue.acquire("briefing");
    const controller = new AbortController();
    const waiting = queue.acquire("interactive", controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    first.release();
    expect(queue.stats()).toMatchObject({ running: 0, queued: 0 });
    await expect(queue.acquire("interactive", AbortSignal.abort(new Error("already")))).rejects.toThrow(
      "already",
    );
  });
});
