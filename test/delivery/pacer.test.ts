import { describe, expect, it } from "vitest";
import { createPacer } from "../../src/delivery/pacer.ts";

/** Virtual time: timers fire in order when the test runs them, so spacing is exact and the test is instant. */
function virtualTime() {
  let now = 0;
  const timers: Array<{ at: number; callback: () => void }> = [];
  return {
    now: () => now,
    setTimer: (callback: () => void, ms: number) => {
      timers.push({ at: now + ms, callback });
    },
    async runAll() {
      for (let guard = 0; guard < 100_000; guard += 1) {
        await new Promise((resolve) => setImmediate(resolve));
        timers.sort((a, b) => a.at - b.at);
        const next = timers.shift();
        if (!next) return;
        now = Math.max(now, next.at);
        next.callback();
      }
      throw new Error("timers never settled");
    },
  };
}

describe("pacer", () => {
  it("keeps every one-second window under the global limit and each chat to one per second", async () => {
    const time = virtualTime();
    const pacer = createPacer({ globalPerSecond: 30, perKeyPerSecond: 1 }, time);
    const released: Array<{ key: string; at: number }> = [];
    const keys = Array.from({ length: 120 }, (_, index) => `chat${index % 40}`);
    const all = keys.map((key) => pacer.acquire(key).then(() => released.push({ key, at: time.now() })));
    await time.runAll();
    await Promise.all(all);
    expect(released).toHaveLength(120);
    const times = released.map((entry) => entry.at).sort((a, b) => a - b);
    for (const start of times) {
      expect(times.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(30);
    }
    for (let chat = 0; chat < 40; chat += 1) {
      const mine = released.filter((entry) => entry.key === `chat${chat}`).map((entry) => entry.at);
      for (let index = 1; index < mine.length; index += 1) {
        expect((mine[index] ?? 0) - (mine[index - 1] ?? 0)).toBeGreaterThanOrEqual(1000);
      }
    }
    // 120 posts at 30/s need about four seconds, not forty (one chat's cooldown never blocks the others).
    expect(times.at(-1)).toBeLessThan(4100);
    expect(pacer.waiting).toBe(0);
  });

  it("lets a ready chat pass one that is cooling down", async () => {
    const time = virtualTime();
    const pacer = createPacer({ globalPerSecond: 10, perKeyPerSecond: 1 }, time);
    const order: string[] = [];
    const all = ["a", "a", "b"].map((key, index) =>
      pacer.acquire(key).then(() => order.push(`${key}${index}`)),
    );
    await time.runAll();
    await Promise.all(all);
    expect(order).toEqual(["a0", "b2", "a1"]);
  });

  it("refuses limits that are not positive", () => {
    expect(() => createPacer({ globalPerSecond: 0, perKeyPerSecond: 1 })).toThrow(/positive/);
  });

  it("holds bunched sends back so no trailing second holds more than the global limit", async () => {
    const time = virtualTime();
    const pacer = createPacer({ globalPerSecond: 5, perKeyPerSecond: 1 }, time);
    const sentAt: number[] = [];
    // Twelve sends arriving at the wire in the same instant, as a stalled database write would release them.
    const all = Array.from({ length: 12 }, () => pacer.beforeSend().then(() => sentAt.push(time.now())));
    await time.runAll();
    await Promise.all(all);
    expect(sentAt).toHaveLength(12);
    for (const start of sentAt) {
      expect(sentAt.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(5);
    }
    expect(sentAt.filter((at) => at === 0)).toHaveLength(5);
  });
});
