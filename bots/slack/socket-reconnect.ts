/**
 * Keeps Bolt's Socket Mode client reconnecting through a Slack outage. In @slack/socket-mode 3.1, a
 * reconnect whose `apps.connections.open` fails with an HTTP error (a 502 from Slack's edge) or a network
 * error counts as unrecoverable: the client rethrows it from inside a timer where nobody can catch it, and
 * Node ends the process on the unhandled rejection. Found by the soak suite's Slack outage.
 *
 * A failed *reconnect* is caught here and turned into what a lost link already does — the client's own
 * `close` path, which waits (longer each time) and tries again. The first start is left alone: its failure
 * reaches the caller, which reports it.
 */
import type { SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "../../src/core/index.ts";

type SocketModeClient = SocketModeReceiver["client"];

export function keepReconnecting(client: SocketModeClient, logger: Logger): void {
  const start = client.start.bind(client);
  let reconnecting = false;
  client.on("reconnecting", () => {
    reconnecting = true;
  });
  client.on("connected", () => {
    reconnecting = false;
  });
  client.start = async () => {
    if (!reconnecting) return start();
    try {
      return await start();
    } catch (error) {
      logger.warn({ err: error }, "slack: Socket Mode reconnect failed; trying again");
      client.emit("close");
      // The client's reconnect timer ignores what this resolves to.
      return undefined as unknown as Awaited<ReturnType<SocketModeClient["start"]>>;
    }
  };
}
