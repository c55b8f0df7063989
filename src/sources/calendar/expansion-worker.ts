/**
 * Worker-thread entry for `expand-off-thread.ts`: expands one calendar per request and reports which
 * recurring series it is on, so the host can name the one that hung if it has to stop the thread.
 */
import { parentPort } from "node:worker_threads";
import { errorCode } from "../../core/errors.ts";
import { expandCalendar } from "./expand-calendar.ts";
import type { ExpansionReply, ExpansionRequest } from "./expand-off-thread.ts";

const port = parentPort;
if (!port) throw new Error("expansion-worker.ts runs as a worker thread (see expand-off-thread.ts)");

port.on("message", (request: ExpansionRequest) => {
  const reply = (message: ExpansionReply) => port.postMessage(message);
  reply({ id: request.id, type: "started" });
  try {
    const result = expandCalendar(request.text, {
      ...request.options,
      onSeries: (label) => reply({ id: request.id, type: "series", label }),
    });
    reply({ id: request.id, type: "done", result });
  } catch (error) {
    reply({
      id: request.id,
      type: "failed",
      code: errorCode(error),
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
