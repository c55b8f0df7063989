/**
 * Todoist sync of a 500-task project, through the provider and the official SDK against the Todoist test
 * server on loopback: the first sync (sync_token "*"), an incremental one with nothing changed and one
 * after five edits, each with its requests and response bytes; and deriving all 500 bodies into tasks.
 * Loopback has no network latency: against api.todoist.com add one round trip per request.
 */
import type { AccountCollection, RemoteObject } from "../src/core/accounts/ports.ts";
import { createTodoistProvider } from "../src/sources/accounts/todoist/todoist-provider.ts";
import { startTodoistServer } from "../test/servers/todoist-server.ts";
import type { BenchSection } from "./types.ts";

const TASKS = 500;
const EDITS = 5;
const ROUNDS = 5;

interface Measured {
  ms: number;
  requests: number;
  bytes: number;
  objects: number;
}

export async function runTodoistSyncBench(): Promise<BenchSection> {
  // The test server is on loopback, which accounts may not reach by default.
  const provider = createTodoistProvider({ network: { allowPrivateNetworks: true, allowHosts: [] } });
  const first: Measured[] = [];
  const quiet: Measured[] = [];
  const edited: Measured[] = [];
  const derive: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const server = await startTodoistServer();
    try {
      const projectId = server.addProject("Personal");
      const ids = Array.from({ length: TASKS }, (_, index) =>
        String(
          server.addTask(projectId, {
            content: `Task ${index}`,
            description: "A line of notes, as most tasks have none or one.",
            priority: 1 + (index % 4),
            labels: index % 3 === 0 ? ["errand"] : [],
            due:
              index % 2 === 0
                ? {
                    date: "2026-12-10",
                    datetime: null,
                    timezone: null,
                    string: "Dec 10",
                    lang: "en",
                    is_recurring: false,
                  }
                : null,
          }).id,
        ),
      );
      const connection = { url: server.url, username: null, secret: server.token };
      const collection: AccountCollection = {
        remoteId: projectId,
        name: "Personal",
        holds: ["tasks"],
        enabled: true,
        syncState: null,
      };
      const mirror = new Map<string, string>();
      const run = async (): Promise<Measured> => {
        const started = performance.now();
        const changes = await provider.sync(connection, collection, mirror);
        const ms = performance.now() - started;
        for (const object of changes.changed) mirror.set(object.remoteId, object.etag);
        collection.syncState = changes.syncState;
        return { ms, requests: changes.requests, bytes: changes.bytes, objects: changes.changed.length };
      };
      // A warm-up full sync (connection, JIT, the SDK's first import), then the measured one from scratch.
      const full = await provider.sync(connection, collection, mirror);
      for (const object of full.changed) mirror.set(object.remoteId, object.etag);
      collection.syncState = null;
      mirror.clear();
      first.push(await run());
      quiet.push(await run());
      for (const id of ids.slice(0, EDITS)) server.editTask(id, { content: "Edited on the phone" });
      edited.push(await run());
      derive.push(deriveAll(provider.derive, full.changed));
    } finally {
      await server.close();
    }
  }
  return {
    title: `Todoist sync: ${TASKS}-task project, test server on loopback, official SDK, median of ${ROUNDS}`,
    lines: [
      line("first sync (token *)", first),
      line("incremental, nothing changed", quiet),
      line(`incremental, ${EDITS} edited`, edited),
      `derive ${TASKS} bodies into tasks: ${median(derive).toFixed(1)} ms`,
    ],
  };
}

function deriveAll(
  derive: ReturnType<typeof createTodoistProvider>["derive"],
  objects: RemoteObject[],
): number {
  const started = performance.now();
  for (const object of objects) {
    derive(object, { windowStart: new Date(), windowEnd: new Date(), timeZone: "Europe/Berlin" });
  }
  return performance.now() - started;
}

function line(name: string, runs: Measured[]): string {
  const last = runs.at(-1);
  return `${name}: ${median(runs.map((run) => run.ms)).toFixed(1)} ms, ${last?.requests} request(s), ${((last?.bytes ?? 0) / 1024).toFixed(1)} KiB, ${last?.objects} object(s)`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
