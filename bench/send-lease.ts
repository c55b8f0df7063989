/**
 * What the send lease costs: sends per second on one Telegram token from 3 replicas (3 rate-limit stores,
 * each on its own connections to one PostgreSQL database), every send to a different chat so only the
 * token's pace (24/s) and the lease limit them — without the lease (each request went once its own check
 * passed) and with it (one request on the token out at a time) — at the test server's own latency and
 * with 50 and 100 ms added to every answer (a proxy holding it: a realistic round trip to
 * api.telegram.org).
 *
 * SIMULATED: the Telegram test server on 127.0.0.1; the added round trip is a delay, not a network.
 */
import { type OpenDatabase, openDatabase } from "../db/client.ts";
import { createRateBuckets } from "../db/stores/index.ts";
import { createTelegramTransports, TELEGRAM_PACE } from "../src/delivery/platform-transports.ts";
import { createSharedRateLimitStore, type RateLimitStore, scopedStore } from "../src/delivery/rate-limits.ts";
import { createTestDatabase } from "../test/helpers/database.ts";
import { startAnswerDelayingProxy } from "../test/servers/answer-delaying-proxy.ts";
import { startTelegramServer, type TelegramTestServer } from "../test/servers/telegram-server.ts";

const REPLICAS = 3;
const SENDS = 60;

export async function runSendLeaseBench(): Promise<string[]> {
  const database = await createTestDatabase("postgres");
  const replicas: OpenDatabase[] = [];
  const telegram = await startTelegramServer({ autoCreateChats: true });
  const lines = [
    `send lease: ${SENDS} sendMessage from ${REPLICAS} replicas on one PostgreSQL, one token, each to its own chat ` +
      `(pace ${TELEGRAM_PACE.overallPerSecond}/s), Telegram test server; sends/s at the server, first to last`,
  ];
  try {
    for (let index = 0; index < REPLICAS; index += 1) {
      replicas.push(await openDatabase({ databaseUrl: database.url, dataDir: "" }));
    }
    let chat = 9_000_000;
    for (const addedMs of [0, 50, 100]) {
      const proxy = await startAnswerDelayingProxy(telegram.url, () =>
        addedMs > 0 ? new Promise((resolve) => setTimeout(resolve, addedMs)) : undefined,
      );
      const roundTripMs = await plainRoundTrip(telegram, proxy.url);
      const figures: string[] = [];
      for (const leased of [false, true]) {
        const token = `bench:${addedMs}:${leased}:${Date.now()}`;
        const stores = replicas.map((replica) => {
          const store = scopedStore(
            createSharedRateLimitStore(createRateBuckets(replica.db, "postgres")),
            token,
          );
          return leased ? store : withoutLease(store);
        });
        const perSecond = await rush(telegram, proxy.url, stores, () => {
          chat += 1;
          return chat;
        });
        figures.push(
          `${leased ? "with" : "without"} the lease ${perSecond.toFixed(1)}/s` +
            (leased ? ` (${(1000 / perSecond).toFixed(0)} ms of the token per send)` : ""),
        );
      }
      await proxy.close();
      lines.push(
        `  answers +${addedMs} ms (a plain request's round trip ${roundTripMs.toFixed(0)} ms): ${figures.join("  |  ")}`,
      );
    }
  } finally {
    for (const replica of replicas) await replica.close();
    await telegram.close();
    await database.dispose();
  }
  return lines;
}

/** Every replica sends its share at once; the rate is read off the server's arrivals. */
async function rush(
  telegram: TelegramTestServer,
  root: string,
  stores: RateLimitStore[],
  nextChat: () => number,
): Promise<number> {
  const transports = stores.map((store) => createTelegramTransports({ store }));
  const chats: number[] = [];
  try {
    await Promise.all(
      transports.map((transport, index) =>
        Promise.all(
          Array.from({ length: Math.ceil(SENDS / stores.length) }, async (_, slot) => {
            if (slot * stores.length + index >= SENDS) return;
            const chatId = nextChat();
            chats.push(chatId);
            const answer = await transport.fetch(`${root}/bot${telegram.token}/sendMessage`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ chat_id: chatId, text: "bench" }),
            });
            await answer.text();
          }),
        ),
      ),
    );
  } finally {
    for (const transport of transports) transport.close();
  }
  const wanted = new Set(chats);
  const arrivals = telegram.calls
    .filter((call) => wanted.has(Number(call.params.chat_id)))
    .map((call) => call.receivedAt)
    .sort((a, b) => a - b);
  const span = ((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)) / 1000;
  return span > 0 ? (arrivals.length - 1) / span : 0;
}

/** The median of a few requests one after another, past no gate: the round trip itself. */
async function plainRoundTrip(telegram: TelegramTestServer, root: string): Promise<number> {
  const trips: number[] = [];
  for (let index = 0; index < 9; index += 1) {
    const started = performance.now();
    const answer = await fetch(`${root}/bot${telegram.token}/getMe`, { method: "POST" });
    await answer.text();
    trips.push(performance.now() - started);
  }
  return trips.sort((a, b) => a - b)[Math.floor(trips.length / 2)] ?? 0;
}

/** What the store did before the lease: every request went as soon as its own check passed. */
function withoutLease(store: RateLimitStore): RateLimitStore {
  return { ...store, hold: async () => async () => {} };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await runSendLeaseBench()) console.log(`  ${line}`);
}
