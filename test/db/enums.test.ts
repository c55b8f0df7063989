/**
 * db/ may not import the core, so the enum value lists are written twice: in the core's domain types and in
 * the schema's pgEnums. The compiler checks each store against the ports; this checks the lists themselves.
 */
import { describe, expect, it } from "vitest";
import {
  briefingModeEnum,
  conversationPlatformEnum,
  eventStatusEnum,
  messageRoleEnum,
  pendingActionKindEnum,
  pendingActionStateEnum,
  platformEnum,
  projectStatusEnum,
  runModeEnum,
  runStateEnum,
  runTriggerEnum,
  SLOT_TIMES_DEFAULT,
  slotNameEnum,
  taskPriorityEnum,
  taskStatusEnum,
} from "../../db/schema/index.ts";
import {
  BRIEFING_MODES,
  CONVERSATION_PLATFORMS,
  DEFAULT_SLOT_TIMES,
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

describe("the schema's enums are the core's value lists", () => {
  it.each([
    ["slot_name", slotNameEnum.enumValues, SLOT_NAMES],
    ["briefing_mode", briefingModeEnum.enumValues, BRIEFING_MODES],
    ["platform", platformEnum.enumValues, PLATFORMS],
    ["conversation_platform", conversationPlatformEnum.enumValues, CONVERSATION_PLATFORMS],
    ["run_state", runStateEnum.enumValues, RUN_STATES],
    ["run_trigger", runTriggerEnum.enumValues, RUN_TRIGGERS],
    ["run_mode", runModeEnum.enumValues, RUN_MODES],
    ["message_role", messageRoleEnum.enumValues, MESSAGE_ROLES],
    ["pending_action_state", pendingActionStateEnum.enumValues, PENDING_ACTION_STATES],
    ["pending_action_kind", pendingActionKindEnum.enumValues, PENDING_ACTION_KINDS],
    ["task_status", taskStatusEnum.enumValues, TASK_STATUSES],
    ["task_priority", taskPriorityEnum.enumValues, TASK_PRIORITIES],
    ["project_status", projectStatusEnum.enumValues, PROJECT_STATUSES],
    ["event_status", eventStatusEnum.enumValues, EVENT_STATUSES],
  ] as const)("%s", (_name, stored, core) => {
    expect([...stored]).toEqual([...core]);
  });

  it("gives a new user the core's default slot times", () => {
    expect(SLOT_TIMES_DEFAULT).toEqual(DEFAULT_SLOT_TIMES);
  });
});
