/**
 * The durable long poller on its own: grammY's runner against the Telegram test server, its fetched
 * updates kept in the in-memory `InboundUpdates` (held to the database stores' rules by
 * test/contracts/inbound-updates.test.ts). What a dead process left is taken over once, an update fetched
 * again is not handled twice, and a batch the store refused is not confirmed to Telegram: it is fetched
 * again and handled once the store takes it.
 */
import { Bot } from "grammy";
import type { Update } from "grammy/types";
import { afterEach, expect, it } from "vitest";
import { createPoller, type Poller } from "../../../bots/telegram/polling.ts";
import { systemClock } from "../../../src/core/clock.ts";
import type { InboundUpdates } from "../../../src/core/ports.ts";
import { createMemoryPorts } from "../../helpers/memory-ports/index.ts";
import { startTelegramServer, type TelegramTestServer } from "../../servers/telegram-server.ts";

const SOURCE = "telegram:test";
const OWNER = "me";
let telegram: TelegramTestServer | undefined;
let poller: Poller | undefined;

afterEach(async () => {
  await poller?.stop();
  await telegram?.close();
});

/** A bot that records the text of every message it handles, polled durably over `updates`. */
async function pollingBot(updates: InboundUpdates) {
  telegram = await startTelegramServer();
  const bot = new Bot(telegram.token, { client: { apiRoot: telegram.url } });
  const handled: string[] = [];
  bot.on("message:text", (ctx) => {
    handled.push(ctx.message.text);
  });
  poller = createPoller(bot, {
    allowedUpdates: ["message"],
    durable: { updates, source: SOURCE, owner: OWNER, everyOtherOwner: false, clock: systemClock },
  });
  return { telegram, handled, poller };
}

it("takes over what a gone process left unhandled, once, though Telegram hands it over again", async () => {
  const ports = createMemoryPorts();
  await ports.leases.acquire(`process:${OWNER}`, OWNER, 60_000, new Date());
  const { telegram, handled, poller } = await pollingBot(ports.inboundUpdates);
  const user = { id: 31, first_name: "Ann" };
  telegram.addChat(user);
  // The dead process had fetched it (so it is stored, claimed by "gone", which holds no lease) but Telegram
  // never heard it was: the next poll returns it again.
  const { updateId, message } = telegram.sendUserMessage(user, "left behind");
  const update = { update_id: updateId, message } as unknown as Update;
  await ports.inboundUpdates.store(
    SOURCE,
    [{ updateId: String(updateId), payload: update }],
    "gone",
    new Date(),
  );

  await poller.start();
  await telegram.waitUntilProcessed(updateId, 15_000);
  const second = telegram.sendUserMessage(user, "after the takeover");
  await telegram.waitUntilProcessed(second.updateId, 15_000);
  await poller.settled();
  expect(handled).toEqual(["left behind", "after the takeover"]);
  // Both are recorded handled: no one takes them over again, and fetched again they are known.
  expect(
    await ports.inboundUpdates.reclaimOrphans(SOURCE, {
      owner: "next",
      at: new Date(),
      everyOtherOwner: true,
    }),
  ).toEqual([]);
});

it("does not confirm a batch the store refused: it is fetched again and handled once stored", async () => {
  const ports = createMemoryPorts();
  let refusals = 2;
  /** At each refusal: whether any poll so far had told Telegram it may forget the update. */
  const confirmedAtRefusal: boolean[] = [];
  let sent: number | undefined;
  const refusing: InboundUpdates = {
    ...ports.inboundUpdates,
    store: async (...args) => {
      if (refusals > 0) {
        refusals -= 1;
        confirmedAtRefusal.push(
          (telegram?.callsTo("getUpdates") ?? []).some(
            (call) => sent !== undefined && Number(call.params.offset ?? 0) > sent,
          ),
        );
        throw new Error("connection refused");
      }
      return ports.inboundUpdates.store(...args);
    },
  };
  const { telegram: server, handled, poller } = await pollingBot(refusing);
  const user = { id: 32, first_name: "Bo" };
  server.addChat(user);
  await poller.start();
  const { updateId } = server.sendUserMessage(user, "kept");
  sent = updateId;
  await server.waitUntilProcessed(updateId, 15_000);
  await poller.settled();
  expect(confirmedAtRefusal).toEqual([false, false]);
  expect(handled).toEqual(["kept"]);
});

it("records an answered update the database refused to mark handled before it stops, so no one answers it again", async () => {
  const ports = createMemoryPorts();
  await ports.leases.acquire(`process:${OWNER}`, OWNER, 60_000, new Date());
  let refusals = 1;
  const refusing: InboundUpdates = {
    ...ports.inboundUpdates,
    markHandled: async (...args) => {
      if (refusals > 0) {
        refusals -= 1;
        throw new Error("connection reset");
      }
      return ports.inboundUpdates.markHandled(...args);
    },
  };
  const { telegram: server, handled, poller } = await pollingBot(refusing);
  const user = { id: 33, first_name: "Cy" };
  server.addChat(user);
  await poller.start();
  const { updateId } = server.sendUserMessage(user, "answered");
  await server.waitUntilProcessed(updateId, 15_000);
  await poller.stop();
  await poller.settled();
  expect(handled).toEqual(["answered"]);
  expect(refusals).toBe(0);
  // This process gives its lease up as it stops: were the update still unrecorded, the next would take it.
  await ports.leases.release(`process:${OWNER}`, OWNER);
  expect(
    await ports.inboundUpdates.reclaimOrphans(SOURCE, {
      owner: "next",
      at: new Date(),
      everyOtherOwner: false,
    }),
  ).toEqual([]);
});
