import type { SlotName, User } from "../domain.ts";
import type { BriefingObserver } from "../events.ts";

/** A runner-made tool call: its name and arguments, and the result stored as the receipt. */
export interface CheckInReceipt {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
}

/**
 * What changed since the morning, for check-ins (midday, afternoon, evening); wired by the composition root
 * to the scheduler's `changesSinceMorning`, which the core must not import. The runner stores it as a
 * receipt and shows it to the model, so "nothing changed" is read from data. Undefined: nothing to add.
 */
export type CheckInContext = (
  user: User,
  localDate: string,
  now: Date,
) => Promise<CheckInReceipt | undefined>;

export interface RunBriefingInput {
  user: User;
  slot: SlotName;
  /** A run the scheduler already claimed; without it a manual run is created. */
  runId?: number | undefined;
  onEvent?: BriefingObserver | undefined;
}
