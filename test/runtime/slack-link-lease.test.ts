/**
 * Slack Socket Mode with the polling lease, at unit level (a Socket Mode test server is not on main yet):
 * the link drives a recording stand-in for the Slack app — the boundary it controls — over the real leases
 * table. Of two links on one app token, one connects and one stands by (healthy, `standby`); when the
 * holder's lease is taken over, it disconnects at its next check and the other connects.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SlackApp } from "../../bots/slack/index.ts";
import { createLeases } from "../../db/stores/index.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createPollingLease, pollingLeaseName } from "../../src/runtime/polling-lease.ts";
import { linkSlack } from "../../src/runtime/slack-link.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** What the link asks of the app: connect (start), disconnect (stop), and auth.test for health. */
function recordingApp() {
  const calls: string[] = [];
  let connected = false;
  const app = {
    app: { client: { auth: { test: async () => ({ ok: true }) } } },
    start: async () => {
      calls.push("start");
      connected = true;
    },
    stop: async () => {
      calls.push("stop");
      connected = false;
    },
  } as unknown as SlackApp;
  return { app, calls, connected: () => connected };
}

describe("Slack Socket Mode behind the polling lease", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it("connects one process, stands the other by, and hands over when the lease changes hands", async () => {
    const leases = createLeases(database.open.db);
    const name = pollingLeaseName("slack", "fp-socket");
    const link = (owner: string, app: SlackApp) =>
      linkSlack(app, {
        clock: systemClock,
        logger: quiet,
        checkEveryMs: 60_000,
        pollingLease: createPollingLease({ leases, name, owner, clock: systemClock, checkEveryMs: 10 }),
      });
    const first = recordingApp();
    const second = recordingApp();
    const firstLink = link("bot-a", first.app);
    const secondLink = link("bot-b", second.app);

    expect(await firstLink.connect()).toEqual({ connected: true });
    expect(await secondLink.connect()).toEqual({ connected: true, standby: { holder: "bot-a" } });
    expect(firstLink.health()).toMatchObject({ ok: true, state: "connected" });
    expect(secondLink.health()).toMatchObject({ ok: true, state: "standby" });
    expect(second.calls).toEqual([]);

    // Another process takes the lease from bot-a (as after bot-a stalled past the TTL).
    await leases.release(name, "bot-a");
    await leases.acquire(name, "bot-c", 30_000, new Date());
    await vi.waitFor(() => expect(first.connected()).toBe(false));
    expect(firstLink.health()).toMatchObject({ ok: true, state: "standby" });
    expect(second.calls).toEqual([]);

    // bot-c goes away cleanly: one of the two waiting links connects, not both.
    await leases.release(name, "bot-c");
    await vi.waitFor(() => expect(Number(first.connected()) + Number(second.connected())).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Number(first.connected()) + Number(second.connected())).toBe(1);
    const holder = first.connected() ? firstLink : secondLink;
    expect(holder.health()).toMatchObject({ ok: true, state: "connected" });

    await firstLink.stop();
    await secondLink.stop();
    expect(await leases.holder(name, new Date())).toBeUndefined();
  });
});
