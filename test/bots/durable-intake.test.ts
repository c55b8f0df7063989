/**
 * The durable intake on its own, over the in-memory `InboundUpdates` and leases (held to the database
 * stores' rules by test/contracts/), with a clock the test moves: a process that stalled past its own
 * lease while answering does not take its own update back at its next check and answer it again.
 */
import { expect, it } from "vitest";
import { createDurableIntake } from "../../bots/durable-intake.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/core/index.ts";
import { createMemoryPorts } from "../helpers/memory-ports/index.ts";

it("does not hand a stalled process its own update in flight as an orphan", async () => {
  const { inboundUpdates, leases } = createMemoryPorts();
  const clock = fixedClock("2026-12-04T07:00:00Z");
  await leases.acquire("process:me", "me", 20_000, clock.now());
  const answered: string[] = [];
  let finish: () => void = () => {};
  const slowAnswer = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const intake = createDurableIntake({
    updates: inboundUpdates,
    source: "telegram:test",
    owner: "me",
    everyOtherOwner: false,
    clock,
    label: "telegram",
    logger: silentLogger,
    handle: async (_payload, updateId) => {
      answered.push(updateId);
      await slowAnswer;
    },
    isUpdate: () => true,
    onFailure: () => {},
  });
  const fresh = await intake.accept([{ updateId: "7", payload: { update_id: 7 } }]);
  expect(fresh).toEqual(["7"]);
  const handling = intake.handle("7", { update_id: 7 });
  // A 30-s stall: the lease was not renewed, and the next check runs before the answer is out.
  clock.advance(30_000);
  await intake.recover();
  finish();
  await handling;
  await intake.settled();
  expect(answered).toEqual(["7"]);
});
