/**
 * One scheduler tick at a given instant, production-wired: the real scheduler, the core's generator over
 * the Ollama test server and the outbox posting through a platform adapter's own sender. For the
 * platform tests that check a /settings change reaches the schedule.
 */
import type { Database } from "../../db/client.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import type { PlatformSender } from "../../src/core/assistant.ts";
import type { fixedClock } from "../../src/core/clock.ts";
import { createOutbox } from "../../src/delivery/outbox.ts";
import { createScheduler, type TickReport } from "../../src/scheduler/scheduler.ts";
import { modelClientFor, TEST_OWNER, testCore } from "../core/fixture.ts";

export async function tickAt(
  db: Database,
  clock: ReturnType<typeof fixedClock>,
  ollamaUrl: string,
  sender: PlatformSender,
  at: string,
): Promise<TickReport> {
  clock.set(at);
  const { generateBriefing } = testCore(db, modelClientFor(ollamaUrl), { clock });
  const ports = createDbPorts(db);
  const deliver = createOutbox({ ports, clock, owner: TEST_OWNER, senders: [sender] });
  const scheduler = createScheduler({ ports, clock, owner: TEST_OWNER, runner: generateBriefing, deliver });
  const report = await scheduler.tick();
  await scheduler.drain();
  return report;
}
