/**
 * Status-like columns are PostgreSQL enums: the database refuses a value the code does not know. The value
 * lists are the core's (src/core/domain.ts); `test/db/enums.test.ts` holds the two side by side.
 */
import { pgEnum } from "drizzle-orm/pg-core";

export const slotNameEnum = pgEnum("slot_name", ["morning", "midday", "afternoon", "evening"]);
export const briefingModeEnum = pgEnum("briefing_mode", ["agentic", "legacy"]);
export const platformEnum = pgEnum("platform", ["telegram", "slack"]);
export const conversationPlatformEnum = pgEnum("conversation_platform", ["cli", "telegram", "slack"]);
export const deliveryPlatformEnum = pgEnum("delivery_platform", ["telegram", "slack", "cli"]);
export const runStateEnum = pgEnum("run_state", [
  "claimed",
  "generating",
  "generated",
  "delivering",
  "delivered",
  "failed",
  "skipped",
]);
export const runTriggerEnum = pgEnum("run_trigger", ["schedule", "manual"]);
export const runModeEnum = pgEnum("run_mode", ["agentic", "legacy", "digest"]);
export const messageRoleEnum = pgEnum("message_role", ["system", "user", "assistant", "tool"]);
export const deliveryStateEnum = pgEnum("delivery_state", ["pending", "sending", "sent", "failed"]);
export const pendingActionStateEnum = pgEnum("pending_action_state", [
  "pending",
  "confirmed",
  "cancelled",
  "expired",
]);
/** confirm: a change waiting for Confirm / Cancel; undo: the Undo button under a change already made. */
export const pendingActionKindEnum = pgEnum("pending_action_kind", ["confirm", "undo"]);
export const taskStatusEnum = pgEnum("task_status", ["open", "done"]);
export const taskPriorityEnum = pgEnum("task_priority", ["low", "normal", "high"]);
export const projectStatusEnum = pgEnum("project_status", ["active", "paused", "done", "archived"]);
export const eventStatusEnum = pgEnum("event_status", ["confirmed", "tentative", "cancelled"]);
