import type { Database } from "../../../db/client.ts";
import type { User } from "../../../db/schema/index.ts";
import type { SlotName } from "../../../db/schema/users.ts";
import type { Clock } from "../clock.ts";
import type { ModelClient } from "../model.ts";
import type { ToolRegistry } from "../tools/registry.ts";

/** pino-compatible. */
export interface Logger {
  warn(details: object, message: string): void;
  info?(details: object, message: string): void;
}

export interface AssistantConfig {
  /** Receipts older than this may be refreshed by read-only tools in follow-ups. Default 60. */
  receiptMaxAgeMinutes: number;
  /** Runs older than this are rolled up out of every context. Default 7. */
  retentionDays: number;
  /** How long a destructive call waits for Confirm. Default 10. */
  confirmationMinutes: number;
}

export const DEFAULT_ASSISTANT_CONFIG: AssistantConfig = {
  receiptMaxAgeMinutes: 60,
  retentionDays: 7,
  confirmationMinutes: 10,
};

export interface BriefingDeps {
  db: Database;
  model: ModelClient;
  clock: Clock;
  tools: ToolRegistry;
  logger?: Logger | undefined;
  config?: Partial<AssistantConfig> | undefined;
  /** Monotonic milliseconds for timings; defaults to `performance.now`. */
  timer?: (() => number) | undefined;
  /**
   * What changed since the morning, for check-ins (midday, afternoon, evening); wired by the composition
   * root to the scheduler's `changesSinceMorning`, which the core must not import. The runner stores it as
   * a receipt and shows it to the model, so "nothing changed" is read from data. Undefined: nothing to add.
   */
  checkInContext?: CheckInContext | undefined;
}

/** A runner-made tool call: its name and arguments, and the result stored as the receipt. */
export interface CheckInReceipt {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
}

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
  trigger: "schedule" | "manual";
  onProgress?: ((text: string) => void) | undefined;
}

export function resolveConfig(config: Partial<AssistantConfig> | undefined): AssistantConfig {
  return { ...DEFAULT_ASSISTANT_CONFIG, ...config };
}
