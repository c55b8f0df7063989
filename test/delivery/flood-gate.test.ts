import { describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { FloodGate } from "../../src/delivery/flood-gate.ts";
import { createMetrics } from "../../src/server/metrics.ts";

/** These metrics read no table; any database access would fail the test loudly. */
const unusedDatabase = new Proxy({} as Database, {
  get: () => {
    throw new Error("the flood gate metrics must not touch the database");
  },
});

/** Virtual time: `sleep` advances the clock, so waits are exact and the test is instant. */
function gateWithVirtualTime() {
  let now = 0;
  const sleeps: number[] = [];
  const gate = new FloodGate({
    platform: "telegram",
    keyAllowance: (key) =>
      key.startsWith("chat:-") ? { max: 20, windowMs: 60_000 } : { max: 1, windowMs: 1000 },
    groupAllowance: () => ({ max: 30, windowMs: 1000 }),
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    marginMs: 0,
  });
  return {
    gate,
    sleeps,
    at: (ms: number) => {
      now = ms;
    },
    now: () => now,
  };
}

describe("flood gate", () => {
  it("pauses the whole token when the chat had not used its own allowance", async () => {
    const { gate, sleeps, at, now } = gateWithVirtualTime();
    await gate.enter({ group: "global", key: "chat:1" });
    gate.rateLimited({ group: "global", key: "chat:1" }, 2000);
    at(500);
    await gate.enter({ group: "global", key: "chat:2" });
    expect(now()).toBe(2000);
    expect(sleeps).toEqual([1500]);
    expect(gate.stats()).toMatchObject({
      pausesByScope: { global: 1, chat: 1 },
      heldRequests: 1,
      heldMs: 1500,
    });
  });

  it("pauses only the chat when its own limit explains the 429", async () => {
    const { gate, sleeps, at, now } = gateWithVirtualTime();
    await gate.enter({ group: "global", key: "chat:1" });
    at(300);
    await gate.enter({ group: "global", key: "chat:1" });
    gate.rateLimited({ group: "global", key: "chat:1" }, 1000);
    expect(gate.pausedUntilOf("chat:1")).toBe(1300);
    expect(gate.pausedUntilOf("global")).toBeUndefined();
    await gate.enter({ group: "global", key: "chat:2" });
    expect(sleeps).toEqual([]);
    await gate.enter({ group: "global", key: "chat:1" });
    expect(now()).toBe(1300);
  });

  it("pauses the token too when it was at its overall allowance", async () => {
    const { gate } = gateWithVirtualTime();
    for (let chat = 0; chat < 30; chat += 1) await gate.enter({ group: "global", key: `chat:${chat}` });
    await gate.enter({ group: "global", key: "chat:0" });
    gate.rateLimited({ group: "global", key: "chat:0" }, 1000);
    expect(gate.pausedUntilOf("global")).toBe(1000);
  });

  it("never shortens a pause, and tells listeners", async () => {
    const { gate } = gateWithVirtualTime();
    const paused: string[] = [];
    gate.onPause((scope, until) => paused.push(`${scope}@${until}`));
    gate.rateLimited({ group: "global" }, 5000);
    gate.rateLimited({ group: "global" }, 1000);
    expect(gate.pausedUntilOf("global")).toBe(5000);
    expect(paused).toEqual(["global@5000", "global@1000"]);
  });
});

describe("flood gate metrics", () => {
  it("exports pauses by scope and the requests it held back", async () => {
    const { gate, at } = gateWithVirtualTime();
    await gate.enter({ group: "global", key: "chat:1" });
    gate.rateLimited({ group: "global", key: "chat:1" }, 1000);
    at(200);
    await gate.enter({ group: "global", key: "chat:2" });
    const metrics = createMetrics({ db: unusedDatabase, floodGates: [gate] });
    const body = await metrics.registry.getSingleMetricAsString("briefbot_flood_gate_pauses_total");
    expect(body).toContain('briefbot_flood_gate_pauses_total{platform="telegram",scope="global"} 1');
    expect(body).toContain('briefbot_flood_gate_pauses_total{platform="telegram",scope="chat"} 1');
    expect(
      await metrics.registry.getSingleMetricAsString("briefbot_flood_gate_held_seconds_total"),
    ).toContain('briefbot_flood_gate_held_seconds_total{platform="telegram"} 0.8');
  });
});
