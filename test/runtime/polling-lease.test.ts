/**
 * The polling lease over the real leases table, on both databases, with a clock the test moves: one
 * holder per token, a standby that takes over once the holder's lease lapses, a holder that learns at its
 * next check that another took over, and a database blip that does not drop the connection early.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { createLeases } from "../../db/stores/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { Leases } from "../../src/core/ports.ts";
import {
  createPollingLease,
  POLLING_LEASE_CHECK_MS,
  POLLING_LEASE_TTL_MS,
  type PollingTurn,
  pollingLeaseName,
} from "../../src/runtime/polling-lease.ts";
import { describeEachDatabase } from "../helpers/database.ts";

const freshName = () => pollingLeaseName("telegram", `fp${randomBytes(6).toString("hex")}`);

describe("the polling lease's timing", () => {
  it("lets a standby take over within a minute of the holder's last renewal", () => {
    // Worst case: the holder renewed just before it died, and the standby checked just before it lapsed.
    expect(POLLING_LEASE_TTL_MS + POLLING_LEASE_CHECK_MS).toBeLessThanOrEqual(60_000);
    expect(POLLING_LEASE_CHECK_MS * 2).toBeLessThan(POLLING_LEASE_TTL_MS);
  });

  it("is named after the platform and the token's fingerprint", () => {
    expect(pollingLeaseName("slack", "abc123")).toBe("polling:slack:abc123");
  });
});

describeEachDatabase("polling lease", (getDb) => {
  const setup = () => {
    const leases = createLeases(getDb());
    const clock = fixedClock("2026-12-02T07:00:00Z");
    const name = freshName();
    const lease = (owner: string, overrides: { leases?: Leases; checkEveryMs?: number } = {}) =>
      createPollingLease({ leases, name, owner, clock, ...overrides });
    return { leases, clock, name, lease };
  };

  it("gives the token to one process; the other stands by and names the holder", async () => {
    const { lease } = setup();
    const first = lease("bot-a");
    const second = lease("bot-b");
    expect(await first.check()).toEqual({ holds: true });
    expect(await second.check()).toEqual({ holds: false, holder: "bot-a" });
    expect(first.holds()).toBe(true);
    expect(second.holds()).toBe(false);
  });

  it("keeps the holder while it renews, and hands over once it stops renewing", async () => {
    const { lease, clock } = setup();
    const first = lease("bot-a");
    const second = lease("bot-b");
    await first.check();
    for (let step = 0; step < 5; step += 1) {
      clock.advance(POLLING_LEASE_CHECK_MS);
      expect(await first.check()).toEqual({ holds: true });
      expect(await second.check()).toEqual({ holds: false, holder: "bot-a" });
    }
    // bot-a dies: its last renewal was at this instant.
    clock.advance(POLLING_LEASE_TTL_MS - 1);
    expect((await second.check()).holds).toBe(false);
    clock.advance(1);
    expect(await second.check()).toEqual({ holds: true });
    // bot-a wakes up (it had stalled, not died): its next check says it lost the token.
    expect(await first.check()).toEqual({ holds: false, holder: "bot-b" });
    expect(first.holds()).toBe(false);
  });

  it("gives the lease up on stop, so the standby takes over at its next check, not after the TTL", async () => {
    const { lease } = setup();
    const first = lease("bot-a");
    const second = lease("bot-b");
    await first.check();
    await second.check();
    await first.stop();
    expect(await second.check()).toEqual({ holds: true });
  });

  it("a standby's stop leaves the holder's lease alone", async () => {
    const { lease, leases, name, clock } = setup();
    const first = lease("bot-a");
    const second = lease("bot-b");
    await first.check();
    await second.check();
    await second.stop();
    expect(await leases.holder(name, clock.now())).toBe("bot-a");
  });

  it("keep() tells the holder at its next check that another took the token, and the standby that it has it", async () => {
    const { lease, leases, name, clock } = setup();
    const first = lease("bot-a", { checkEveryMs: 5 });
    const second = lease("bot-b", { checkEveryMs: 5 });
    await first.check();
    await second.check();
    const firstTurns: PollingTurn[] = [];
    const secondTurns: PollingTurn[] = [];
    first.keep(async (turn) => {
      firstTurns.push(turn);
    });
    second.keep(async (turn) => {
      secondTurns.push(turn);
    });
    // Another process takes the name over behind bot-a's back (as after a stall past the TTL).
    await leases.release(name, "bot-a");
    await leases.acquire(name, "bot-c", POLLING_LEASE_TTL_MS, clock.now());
    await vi.waitFor(() => expect(firstTurns).toEqual([{ holds: false, holder: "bot-c" }]));
    // bot-c gives it up; exactly one of the two waiting processes gets it.
    await leases.release(name, "bot-c");
    await vi.waitFor(() => expect(firstTurns.length + secondTurns.length).toBe(2));
    const holders = [first.holds(), second.holds()].filter(Boolean);
    expect(holders).toHaveLength(1);
    await first.stop();
    await second.stop();
    expect(await leases.holder(name, clock.now())).toBeUndefined();
  });

  it("keep() calls a change that failed again on the next check", async () => {
    const { lease } = setup();
    const only = lease("bot-a", { checkEveryMs: 5 });
    let attempts = 0;
    only.keep(async () => {
      attempts += 1;
      if (attempts < 3) throw new Error("telegram unreachable");
    });
    await vi.waitFor(() => expect(attempts).toBe(3));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(attempts).toBe(3);
    await only.stop();
  });

  it("rides out a database failure shorter than the TTL, and stops holding once it is not", async () => {
    const { leases, lease, clock } = setup();
    let failing = false;
    const flaky: Leases = {
      ...leases,
      acquire: async (...args) => {
        if (failing) throw new Error("connection refused");
        return leases.acquire(...args);
      },
    };
    const holder = lease("bot-a", { leases: flaky });
    await holder.check();
    failing = true;
    clock.advance(POLLING_LEASE_TTL_MS - 1);
    expect(await holder.check()).toEqual({ holds: true });
    clock.advance(1);
    expect(await holder.check()).toEqual({ holds: false, holder: undefined });
    expect(holder.holds()).toBe(false);
  });
});
