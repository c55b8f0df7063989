import type { SlotName, User } from "../domain.ts";
import type { BriefingObserver } from "../events.ts";

export interface RunBriefingInput {
  user: User;
  slot: SlotName;
  /** A run the scheduler already claimed; without it a manual run is created. */
  runId?: number | undefined;
  onEvent?: BriefingObserver | undefined;
}
