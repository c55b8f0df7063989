/**
 * CalDAV sync of a 500-task list against a real Radicale (Debian package) on loopback, through the provider
 * the bot uses: the first sync (listing + multigets of everything), deriving every task, an incremental
 * sync with nothing changed, and one after five tasks changed on the server. Requests and bytes are the
 * provider's own tally (answer bodies received); time is wall clock on this machine, Radicale included.
 * NOT simulated: real HTTP, real WebDAV, real server; only the network is loopback.
 */
import type { CollectionChanges } from "../src/core/accounts/ports.ts";
import { startRadicale } from "../test/servers/radicale.ts";
import {
  collectionAt,
  connectionTo,
  DERIVE,
  loopbackProvider,
  PASSWORD,
  todo,
  USER,
} from "../test/sources/accounts/caldav/caldav-fixtures.ts";
import { seedTasks } from "../test/sources/accounts/caldav/seed-tasks.ts";
import type { BenchSection } from "./types.ts";

const TASKS = 500;

export async function runCaldavSyncBench(): Promise<BenchSection> {
  const radicale = await startRadicale({ users: { [USER]: PASSWORD } });
  try {
    await radicale.makeCalendar(USER, "big", { name: "Big", components: ["VTODO"] });
    const seedStarted = performance.now();
    await seedTasks(radicale, "big", TASKS);
    const seedMs = performance.now() - seedStarted;
    const provider = loopbackProvider();
    const connection = connectionTo(radicale);

    const timed = async (run: () => Promise<CollectionChanges>) => {
      const started = performance.now();
      const changes = await run();
      return { changes, ms: performance.now() - started };
    };
    const first = await timed(() => provider.sync(connection, collectionAt(radicale, "big"), new Map()));
    const deriveStarted = performance.now();
    for (const object of first.changes.changed) provider.derive(object, DERIVE);
    const deriveMs = performance.now() - deriveStarted;

    const mirror = new Map(first.changes.changed.map((object) => [object.remoteId, object.etag]));
    const state = first.changes.syncState;
    const unchanged = await timed(() =>
      provider.sync(connection, collectionAt(radicale, "big", state), mirror),
    );
    for (let index = 0; index < 5; index += 1) {
      await radicale.put(
        USER,
        "big",
        `task-${index * 97}.ics`,
        todo(`task-${index * 97}`, `Changed task ${index}`),
      );
    }
    const five = await timed(() => provider.sync(connection, collectionAt(radicale, "big", state), mirror));

    const line = (label: string, run: { changes: CollectionChanges; ms: number }) =>
      `${label}: ${run.ms.toFixed(0)} ms, ${run.changes.requests} request${run.changes.requests === 1 ? "" : "s"}, ${(run.changes.bytes / 1024).toFixed(1)} KiB received, ${run.changes.changed.length} objects fetched`;
    return {
      title: `CalDAV sync, ${TASKS}-task list on Radicale (real server, loopback)`,
      lines: [
        line("first sync (full)", first),
        `derive all ${first.changes.changed.length} tasks: ${deriveMs.toFixed(0)} ms`,
        line("incremental, nothing changed", unchanged),
        line("incremental, 5 tasks changed on the server", five),
        `(seeding: ${TASKS} files written into Radicale's storage and its cache warmed, ${(seedMs / 1000).toFixed(1)} s — not part of any figure above)`,
      ],
    };
  } finally {
    await radicale.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runCaldavSyncBench();
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
