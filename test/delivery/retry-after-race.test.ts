/**
 * The race the three-replica rush found once under load, made to happen every time: two replicas (two
 * rate-limit stores, each on its own connections to one PostgreSQL database) send on one token; the
 * platform answers replica A's request with a 429, and that answer is held on its way back (a proxy with a
 * controllable delay, as a loaded machine or a long round trip delays it). The platform closed the token
 * when it answered; replica B, meanwhile, has a request ready for another chat.
 *
 * With the send lease, B's request is not written until A's answer was read and its pause stored, so it
 * goes after the `retry_after` and the platform counts nothing inside it. The same rig with the store's
 * lease taken away (what every replica did before it) sends B's request into the closed token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "../../db/client.ts";
import { createRateBuckets } from "../../db/stores/index.ts";
import { createSlackTransports, createTelegramTransports } from "../../src/delivery/platform-transports.ts";
import {
  createSharedRateLimitStore,
  type RateLimitStore,
  scopedStore,
} from "../../src/delivery/rate-limits.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { startAnswerDelayingProxy } from "../servers/answer-delaying-proxy.ts";
import { startSlackServer } from "../servers/slack-server.ts";
import { startTelegramServer } from "../servers/telegram-server.ts";

/** A proxy that holds the first 429 it forwards until `letGo`, after the platform has already answered. */
async function startHoldingProxy(upstream: string) {
  let letGo: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let answered: () => void = () => {};
  const answeredWith429 = new Promise<void>((resolve) => {
    answered = resolve;
  });
  let heldOne = false;
  const proxy = await startAnswerDelayingProxy(upstream, (status) => {
    if (status !== 429 || heldOne) return undefined;
    heldOne = true;
    answered();
    return released;
  });
  return { ...proxy, answeredWith429, letGo };
}

/** What the store did before the lease: every request went as soon as its own check passed. */
function withoutLease(store: RateLimitStore): RateLimitStore {
  return { ...store, hold: async () => async () => {} };
}

/** Resolves when `probe` holds, or after `ms` (then the caller's assertion decides). */
async function until(probe: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!probe() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("a 429 answered while another replica's send is ready [postgres]", () => {
  let testDb: TestDatabase;
  let replicaA: OpenDatabase;
  let replicaB: OpenDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    replicaA = await openDatabase({ databaseUrl: testDb.url, dataDir: "" });
    replicaB = await openDatabase({ databaseUrl: testDb.url, dataDir: "" });
  });
  afterAll(async () => {
    await replicaA?.close();
    await replicaB?.close();
    await testDb?.dispose();
  });

  const storesFor = (token: string, leased: boolean) =>
    [replicaA, replicaB].map((replica) => {
      const store = scopedStore(createSharedRateLimitStore(createRateBuckets(replica.db, "postgres")), token);
      return leased ? store : withoutLease(store);
    }) as [RateLimitStore, RateLimitStore];

  for (const leased of [true, false]) {
    it(`Telegram: ${leased ? "nothing reaches the token inside retry_after" : "without the lease, B's send lands inside it"}`, async () => {
      const telegram = await startTelegramServer({ autoCreateChats: true });
      const proxy = await startHoldingProxy(telegram.url);
      const [storeA, storeB] = storesFor(`telegram:${leased}:${Date.now()}`, leased);
      const a = createTelegramTransports({ store: storeA });
      const b = createTelegramTransports({ store: storeB });
      try {
        telegram.failNext({ method: "sendMessage", status: 429, retryAfter: 2, scope: "global" });
        const send = (fetcher: typeof fetch, root: string, chatId: number) =>
          fetcher(`${root}/bot${telegram.token}/sendMessage`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ chat_id: chatId, text: `to ${chatId}` }),
          });
        const first = send(a.deliveryFetch, proxy.url, 1001);
        await proxy.answeredWith429;
        const second = send(b.deliveryFetch, telegram.url, 1002);
        // B's request, were it free to go, is on the wire within this; A's answer is still held.
        await until(() => telegram.calls.some((call) => call.params.chat_id === 1002), 1500);
        proxy.letGo();
        expect((await first).status).toBe(429);
        const answer = await second;
        const inside = telegram.callsBeforeRetryAfter();
        if (leased) {
          expect(inside).toEqual([]);
          expect(answer.status).toBe(200);
          const limited = telegram.calls.find((call) => call.status === 429);
          const sent = telegram.calls.find((call) => call.params.chat_id === 1002);
          expect(
            (sent?.receivedAt ?? 0) - (limited?.answeredAt ?? Number.POSITIVE_INFINITY),
          ).toBeGreaterThanOrEqual(2000);
        } else {
          expect(inside.map((call) => call.params.chat_id)).toEqual([1002]);
        }
      } finally {
        a.close();
        b.close();
        await proxy.close();
        await telegram.close();
      }
    });

    it(`Slack: ${leased ? "nothing reaches chat.postMessage inside Retry-After" : "without the lease, B's post lands inside it"}`, async () => {
      const slack = await startSlackServer({ signingSecret: "race" });
      const proxy = await startHoldingProxy(slack.url);
      const [storeA, storeB] = storesFor(`slack:${leased}:${Date.now()}`, leased);
      const a = createSlackTransports({ store: storeA });
      const b = createSlackTransports({ store: storeB });
      try {
        slack.rateLimit("chat.postMessage", { times: 1, retryAfterSec: 2 });
        const post = (fetcher: typeof fetch, root: string, channel: string) =>
          fetcher(`${root}/api/chat.postMessage`, {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              authorization: `Bearer ${slack.botToken}`,
            },
            body: new URLSearchParams({ channel, text: `to ${channel}` }).toString(),
          });
        const first = post(a.deliveryFetch, proxy.url, "C1");
        await proxy.answeredWith429;
        const second = post(b.deliveryFetch, slack.url, "C2");
        await until(() => slack.calls.some((call) => call.args.channel === "C2"), 1500);
        proxy.letGo();
        expect((await first).status).toBe(429);
        const answer = await second;
        const inside = slack.callsBeforeRetryAfter();
        if (leased) {
          expect(inside).toEqual([]);
          expect(answer.status).toBe(200);
        } else {
          expect(inside.map((call) => call.args.channel)).toEqual(["C2"]);
        }
      } finally {
        a.close();
        b.close();
        await proxy.close();
        await slack.close();
      }
    });
  }
});
