/**
 * Slack's events, button presses and slash commands, kept in the database from before Slack gets its ack
 * until handled (bots/durable-intake.ts), in HTTP mode and Socket Mode alike: Bolt's receivers hand every
 * verified request to `app.processEvent`, which this wraps. Slack does not resend what it got an ack for, so
 * a process killed after the ack, mid-answer, would lose the question; stored first, it is taken over by the
 * next start or another replica. The same store dedupes Slack's retries (X-Slack-Retry-Num, or an envelope
 * re-sent over the socket): a delivery already stored is acked and not handled again. A store that fails
 * leaves the request unacked (HTTP mode answers 500), so Slack sends it again.
 */
import type { App } from "@slack/bolt";
import type { Logger } from "../../src/core/index.ts";
import {
  createDurableIntake,
  type DurableIntake,
  type DurableUpdates,
  UNTRACKED,
  type UpdateProgress,
} from "../durable-intake.ts";

type ReceiverEvent = Parameters<App["processEvent"]>[0];

/** One delivery's id: an event's `event_id`, an interaction's or a command's `trigger_id`. */
export function slackDeliveryId(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { event_id: eventId, trigger_id: triggerId } = body as { event_id?: unknown; trigger_id?: unknown };
  if (typeof eventId === "string" && eventId !== "") return eventId;
  if (typeof triggerId === "string" && triggerId !== "") return triggerId;
  return undefined;
}

/** Where a listener finds its delivery's `UpdateProgress`: Bolt merges `customProperties` into `context`. */
const PROGRESS = "inboundProgress";

/** The progress of the delivery a listener handles (`context`); untracked without a durable intake. */
export function progressOf(context: Readonly<Record<string, unknown>>): UpdateProgress {
  const progress = context[PROGRESS] as Partial<UpdateProgress> | undefined;
  return typeof progress?.posted === "function" ? (progress as UpdateProgress) : UNTRACKED;
}

/** Routes the app's incoming requests through the store; returns the intake, for recovery and `idle`. */
export function keepSlackDeliveries(app: App, durable: DurableUpdates, logger: Logger): DurableIntake {
  const processEvent = app.processEvent.bind(app);
  const intake = createDurableIntake({
    ...durable,
    label: "slack",
    logger,
    // Taken over from a dead process: Slack had its ack long ago, so there is nothing left to ack.
    handle: (payload, _updateId, progress) =>
      processEvent({
        body: payload as ReceiverEvent["body"],
        ack: async () => {},
        customProperties: { [PROGRESS]: progress },
      }),
    isUpdate: (payload, updateId) => slackDeliveryId(payload) === updateId,
    onFailure: (error) => logger.error({ err: error }, "slack: handler failed"),
  });
  app.processEvent = async (event: ReceiverEvent) => {
    const updateId = slackDeliveryId(event.body);
    if (updateId === undefined) return processEvent(event);
    // A command's body is parsed form data, an object without a prototype: stored as the JSON it is.
    const payload: unknown = JSON.parse(JSON.stringify(event.body));
    const fresh = await intake.accept([{ updateId, payload }]);
    if (!fresh.includes(updateId)) {
      logger.info(
        { updateId, retry: event.retryNum },
        "slack: delivery already received (a retry), acked and skipped",
      );
      await event.ack();
      return;
    }
    await intake.handle(updateId, event.body, (progress) =>
      processEvent({ ...event, customProperties: { ...event.customProperties, [PROGRESS]: progress } }),
    );
  };
  return intake;
}
