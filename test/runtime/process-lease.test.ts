/**
 * The process's heartbeat over the in-memory leases (held to the database stores' rules by
 * test/contracts/run-lifecycle.test.ts), with a clock the test moves: renewed while the process lives,
 * given up at a clean stop, and — when a stall outlasted it — a warning that another process may have
 * taken over this one's work.
 */
import { expect, it } from "vitest";
import { fixedClock } from "../../src/core/clock.ts";
import { holdProcessLease, processLeaseName } from "../../src/runtime/process-lease.ts";
import { recordingLogger } from "../core/fixture.ts";
import { createMemoryPorts } from "../helpers/memory-ports/index.ts";

const TTL_MS = 20_000;

/** Until the timer's next renewal has reached the leases (renewals run every few milliseconds here). */
async function renewalsAfter(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200 && !(await check()); tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

it("renews its lease while it lives, warns once a stall outlasted it, and gives it up at a clean stop", async () => {
  const { leases } = createMemoryPorts();
  const clock = fixedClock("2026-12-04T07:00:00Z");
  const logger = recordingLogger();
  const name = processLeaseName("me");
  const lease = await holdProcessLease(leases, "me", { clock, logger, ttlMs: TTL_MS, renewMs: 5 });
  expect(await leases.holder(name, clock.now())).toBe("me");

  // Renewals a few seconds apart keep it alive past the first TTL, without a word.
  for (let step = 0; step < 3; step += 1) {
    clock.advance(8_000);
    const at = clock.now();
    await renewalsAfter(
      async () => (await leases.holder(name, new Date(at.getTime() + TTL_MS - 1))) === "me",
    );
  }
  expect(await leases.holder(name, clock.now())).toBe("me");
  expect(logger.warnings).toEqual([]);

  // A stall of 45 s: the next renewal finds its lease had lapsed meanwhile.
  clock.advance(45_000);
  await renewalsAfter(async () => logger.warnings.length > 0);
  expect(logger.warnings).toEqual([
    {
      details: { stalledSeconds: 45, leaseSeconds: 20 },
      message:
        "this process's lease lapsed while it stalled: another process may have taken over its work meanwhile",
    },
  ]);

  await lease.stop();
  expect(await leases.holder(name, clock.now())).toBeUndefined();
});
