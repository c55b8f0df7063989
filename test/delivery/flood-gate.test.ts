/**
 * The flood gate, in virtual time over the in-memory store: requests wait out 429 pauses and the pace of
 * every scope they count against, questions go before briefings, a cooling chat is passed by a free one,
 * and the outbox's reserved turn is used by its first request.
 */
import { describe, expect, it } from "vitest";
import { FloodGate } from "../../src/delivery/flood-gate.ts";
import { createMemoryRateLimitStore, type RateRule } from "../../src/delivery/rate-limits.ts";
import { createMetrics, type MetricsReadings } from "../../src/server/metrics.ts";

/** These metrics read no table; any database access would fail the test loudly. */
const unusedDatabase = new Proxy({} as MetricsReadings, {
  get: () => {
    throw new Error("the flood gate metrics must not touch the database");
  },
});

/** Virtual time: `sleep` advances the clock, so waits are exact and the test is instant. */
function gateWithVirtualTime() {
  let now = 0;
  const sleeps: number[] = [];
  const chat = (key: string): RateRule => ({ scope: key, intervalMs: 1000 });
  const gate = new FloodGate({
    platform: "telegram",
    store: createMemoryRateLimitStore(() => now),
    rules: (scopes, lane) => [
      { scope: scopes.group, intervalMs: 100 },
      ...(lane === "outbox" ? [{ scope: "outbox", intervalMs: 200 }] : []),
      ...(scopes.key ? [chat(scopes.key)] : []),
    ],
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
  it("holds every request on a 429's scopes, the token and the chat, until retry_after has passed", async () => {
    const { gate, at, now } = gateWithVirtualTime();
    await gate.send({ group: "global", key: "chat:1" }, async () => {});
    await gate.rateLimited({ group: "global", key: "chat:1" }, 2000);
    at(500);
    expect(await gate.pausedFor("global")).toBe(1500);
    await gate.send({ group: "global", key: "chat:2" }, async () => {});
    expect(now()).toBe(2000);
    expect(gate.stats()).toMatchObject({
      pausesByScope: { global: 1, chat: 1 },
      heldRequests: 1,
      heldMs: 1500,
    });
    // Chat actions are not paced but wait out a pause all the same.
    await gate.rateLimited({ group: "global" }, 300);
    await gate.send({ group: "global", key: "chat:3" }, async () => {}, { lane: "unpaced" });
    expect(now()).toBe(2300);
  });

  it("writes no request on the token while another's answer is outstanding; the next sees its 429", async () => {
    const { gate, now } = gateWithVirtualTime();
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const order: string[] = [];
    const first = gate.send({ group: "global", key: "chat:1" }, async () => {
      order.push("first written");
      await answered;
      await gate.rateLimited({ group: "global", key: "chat:1" }, 2000);
      order.push("first answered 429");
    });
    const second = gate.send({ group: "global", key: "chat:2" }, async () => {
      order.push(`second written at ${now()}`);
    });
    // Virtual time: a request free to go would have been written long before this.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(["first written"]);
    answer();
    await Promise.all([first, second]);
    expect(order).toEqual(["first written", "first answered 429", "second written at 2000"]);
  });

  it("never shortens a pause, and tells listeners", async () => {
    const { gate } = gateWithVirtualTime();
    const paused: string[] = [];
    gate.onPause((scope, forMs) => paused.push(`${scope}+${forMs}`));
    await gate.rateLimited({ group: "global" }, 5000);
    await gate.rateLimited({ group: "global" }, 1000);
    expect(await gate.pausedFor("global")).toBe(5000);
    expect(paused).toEqual(["global+5000", "global+1000"]);
  });

  it("spaces requests evenly at each scope's pace: the token's, the outbox's share, one chat's", async () => {
    const { gate, now } = gateWithVirtualTime();
    const departures: number[] = [];
    for (let chat = 0; chat < 5; chat += 1) {
      await gate.send({ group: "global", key: `chat:${chat}` }, async () => {});
      departures.push(now());
    }
    expect(departures).toEqual([0, 100, 200, 300, 400]);
    const outbox: number[] = [];
    for (let chat = 10; chat < 13; chat += 1) {
      await gate.send({ group: "global", key: `chat:${chat}` }, async () => {}, { lane: "outbox" });
      outbox.push(now());
    }
    expect(outbox).toEqual([500, 700, 900]);
    await gate.send({ group: "global", key: "chat:0" }, async () => {});
    expect(now()).toBe(1000);
  });

  it("serves a waiting question before waiting briefings, and lets a free chat pass a cooling one", async () => {
    const { gate, now } = gateWithVirtualTime();
    await gate.send({ group: "global", key: "chat:busy" }, async () => {});
    const order: string[] = [];
    // Names only: virtual time moves inside the gate's sleeps, before a waiter's continuation runs.
    const entered = (name: string) => () => order.push(name);
    await Promise.all([
      gate
        .send({ group: "global", key: "chat:busy" }, async () => {}, { lane: "outbox" })
        .then(entered("busy briefing")),
      gate
        .send({ group: "global", key: "chat:a" }, async () => {}, { lane: "outbox" })
        .then(entered("briefing a")),
      gate.send({ group: "global", key: "chat:q" }, async () => {}).then(entered("question")),
    ]);
    expect(order).toEqual(["question", "briefing a", "busy briefing"]);
    expect(now()).toBe(1000);
  });

  it("lets the outbox's first request use the turn it reserved before claiming its row", async () => {
    const { gate, now, sleeps } = gateWithVirtualTime();
    await gate.reserve({ group: "global", key: "chat:7" });
    const reservedAt = now();
    await gate.send({ group: "global", key: "chat:7" }, async () => {}, { lane: "outbox" });
    expect(now()).toBe(reservedAt);
    // The second part of the same briefing waits for the chat's pace again.
    await gate.send({ group: "global", key: "chat:7" }, async () => {}, { lane: "outbox" });
    expect(now()).toBe(reservedAt + 1000);
    expect(sleeps.length).toBeGreaterThan(0);
  });

  it("drops a request whose caller gave up while it waited", async () => {
    const { gate } = gateWithVirtualTime();
    await gate.rateLimited({ group: "global" }, 10_000);
    const aborted = new AbortController();
    aborted.abort(new Error("timed out"));
    await expect(
      gate.send({ group: "global", key: "chat:1" }, async () => {}, { signal: aborted.signal }),
    ).rejects.toThrow("timed out");
    expect(gate.waiting).toBe(0);
  });
});

describe("flood gate metrics", () => {
  it("exports pauses by scope and the requests it held back", async () => {
    const { gate, at } = gateWithVirtualTime();
    await gate.send({ group: "global", key: "chat:1" }, async () => {});
    await gate.rateLimited({ group: "global", key: "chat:1" }, 1000);
    at(200);
    await gate.send({ group: "global", key: "chat:2" }, async () => {});
    const metrics = createMetrics({ readings: unusedDatabase, floodGates: [gate] });
    const body = await metrics.registry.getSingleMetricAsString("briefbot_flood_gate_pauses_total");
    expect(body).toContain('briefbot_flood_gate_pauses_total{platform="telegram",scope="global"} 1');
    expect(body).toContain('briefbot_flood_gate_pauses_total{platform="telegram",scope="chat"} 1');
    expect(
      await metrics.registry.getSingleMetricAsString("briefbot_flood_gate_held_seconds_total"),
    ).toContain('briefbot_flood_gate_held_seconds_total{platform="telegram"} 0.8');
  });
});
