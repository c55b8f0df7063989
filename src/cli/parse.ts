/** Parsers for command-line values; each throws a `CliError` naming the option and what it expects. */
import {
  BRIEFING_MODES,
  type BriefingMode,
  isSlotName,
  SLOT_NAMES,
  type SlotName,
  type SlotTimes,
  TASK_PRIORITIES,
  type TaskPriority,
} from "../core/domain.ts";
import { MAX_ROW_ID } from "../core/field-limits.ts";
import { addDays, isClockTime, isIsoDate, isValidTimeZone, localDate } from "../core/local-time.ts";
import { CliError } from "./context.ts";

export function parseTimeZone(value: string): string {
  if (!isValidTimeZone(value)) {
    throw new CliError(
      `--tz "${value}" is not an IANA time zone (for example Europe/London or America/New_York)`,
    );
  }
  return value;
}

/** `morning=07:00`, `midday=off`: the slot changes to apply on top of the current slots. */
export function parseSlotAssignments(values: string[]): Partial<SlotTimes> {
  const changes: Partial<SlotTimes> = {};
  for (const value of values) {
    const match = /^([a-z]+)=(.+)$/.exec(value.trim());
    if (!match) throw new CliError(`--slot "${value}" should look like morning=07:00 or midday=off`);
    const [, name, time] = match as unknown as [string, string, string];
    if (!isSlotName(name)) {
      throw new CliError(`--slot "${value}": unknown slot "${name}" (slots: ${SLOT_NAMES.join(", ")})`);
    }
    if (time === "off") changes[name] = null;
    else if (isClockTime(normalizeClock(time))) changes[name] = normalizeClock(time);
    else throw new CliError(`--slot "${value}": "${time}" is not a time like 07:00 (or "off")`);
  }
  return changes;
}

export function parseSlotName(value: string): SlotName {
  if (!isSlotName(value)) {
    throw new CliError(`--slot "${value}" is not a slot (slots: ${SLOT_NAMES.join(", ")})`);
  }
  return value;
}

export function parseMode(value: string): BriefingMode {
  if (!(BRIEFING_MODES as readonly string[]).includes(value)) {
    throw new CliError(`--mode "${value}" must be one of ${BRIEFING_MODES.join(", ")}`);
  }
  return value as BriefingMode;
}

export function parsePriority(value: string): TaskPriority {
  if (!(TASK_PRIORITIES as readonly string[]).includes(value)) {
    throw new CliError(`--priority "${value}" must be one of ${TASK_PRIORITIES.join(", ")}`);
  }
  return value as TaskPriority;
}

/** A due date as the user means it: "today", "tomorrow" or YYYY-MM-DD, in their zone. */
export function parseDueDate(value: string, now: Date, zone: string): string {
  if (value === "today") return localDate(now, zone);
  if (value === "tomorrow") return addDays(localDate(now, zone), 1);
  if (!isIsoDate(value))
    throw new CliError(`--due "${value}" is not a date (use YYYY-MM-DD, today or tomorrow)`);
  return value;
}

export function parseClockTime(option: string, value: string): string {
  const normalized = normalizeClock(value);
  if (!isClockTime(normalized)) throw new CliError(`${option} "${value}" is not a time like 09:30`);
  return normalized;
}

export function parsePositiveInt(option: string, value: string, max = MAX_ROW_ID): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new CliError(`${option} "${value}" is not a positive whole number`);
  if (Number(value) > max) throw new CliError(`${option} "${value}" is too large (at most ${max})`);
  return Number(value);
}

/**
 * A row id as typed: a positive whole number, or undefined when it is beyond any id a row can have (the
 * caller then says there is no such row, as it would for any other missing id).
 */
export function parseId(option: string, value: string): number | undefined {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new CliError(`${option} "${value}" is not a positive whole number`);
  const id = Number(value);
  return id > MAX_ROW_ID ? undefined : id;
}

/** Text within its field's limit (see `FIELD_LIMITS`), else one clear line naming the option. */
export function parseText(option: string, value: string, max: number): string {
  if (value.length > max) {
    throw new CliError(
      `${option} is ${value.length.toLocaleString("en")} characters long; at most ${max.toLocaleString("en")} are allowed`,
    );
  }
  return value;
}

export function parseCoordinate(option: "--lat" | "--lon", value: string): number {
  const number = Number(value);
  const limit = option === "--lat" ? 90 : 180;
  if (value.trim() === "" || !Number.isFinite(number) || Math.abs(number) > limit) {
    throw new CliError(`${option} "${value}" is not a number between -${limit} and ${limit}`);
  }
  return number;
}

/** Commander collects repeated options through this. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function normalizeClock(value: string): string {
  return /^\d:\d\d$/.test(value) ? `0${value}` : value;
}
