/**
 * Status-like columns are PostgreSQL enums: the database refuses a value the code does not know. The value
 * lists are the core's (src/core/domain.ts), written once; `test/db/enums.test.ts` checks that the migrated
 * database holds the same lists, so a list changed without a migration fails there.
 */
import { pgEnum } from "drizzle-orm/pg-core";
import {
  BRIEFING_MODES,
  CONVERSATION_PLATFORMS,
  DELIVERY_PLATFORMS,
  DELIVERY_STATES,
  EVENT_STATUSES,
  MESSAGE_ROLES,
  PENDING_ACTION_KINDS,
  PENDING_ACTION_STATES,
  PLATFORMS,
  PROJECT_STATUSES,
  RUN_MODES,
  RUN_STATES,
  RUN_TRIGGERS,
  SLOT_NAMES,
  TASK_PRIORITIES,
  TASK_STATUSES,
} from "../../src/core/domain.ts";

export const slotNameEnum = pgEnum("slot_name", SLOT_NAMES);
export const briefingModeEnum = pgEnum("briefing_mode", BRIEFING_MODES);
export const platformEnum = pgEnum("platform", PLATFORMS);
export const conversationPlatformEnum = pgEnum("conversation_platform", CONVERSATION_PLATFORMS);
export const deliveryPlatformEnum = pgEnum("delivery_platform", DELIVERY_PLATFORMS);
export const runStateEnum = pgEnum("run_state", RUN_STATES);
export const runTriggerEnum = pgEnum("run_trigger", RUN_TRIGGERS);
export const runModeEnum = pgEnum("run_mode", RUN_MODES);
export const messageRoleEnum = pgEnum("message_role", MESSAGE_ROLES);
export const deliveryStateEnum = pgEnum("delivery_state", DELIVERY_STATES);
export const pendingActionStateEnum = pgEnum("pending_action_state", PENDING_ACTION_STATES);
/** confirm: a change waiting for Confirm / Cancel; undo: the Undo button under a change already made. */
export const pendingActionKindEnum = pgEnum("pending_action_kind", PENDING_ACTION_KINDS);
export const taskStatusEnum = pgEnum("task_status", TASK_STATUSES);
export const taskPriorityEnum = pgEnum("task_priority", TASK_PRIORITIES);
export const projectStatusEnum = pgEnum("project_status", PROJECT_STATUSES);
export const eventStatusEnum = pgEnum("event_status", EVENT_STATUSES);
