/**
 * `/settings …` as typed (or carried by a button) → one change, or one line saying what is wrong. Buttons
 * carry the same short forms as people type, so there is one parser and one set of checks.
 */
import { BRIEFING_MODES, type BriefingMode, isSlotName, type SlotName } from "../domain.ts";
import { FIELD_LIMITS } from "../field-limits.ts";
import { isValidTimeZone } from "../local-time.ts";

export type SettingsChange =
  | { kind: "view" }
  | { kind: "slot"; slot: SlotName; time: string | null }
  | { kind: "mode"; mode: BriefingMode }
  /** `/settings place` alone: how to give one. */
  | { kind: "place-prompt" }
  | { kind: "place"; query: string }
  /** A choice from the pick list of `query`'s candidates. */
  | { kind: "pick"; query: string; index: number }
  | { kind: "zone"; zone: string };

export type ParsedSettings = SettingsChange | { kind: "invalid"; error: string };

export const SETTINGS_EXAMPLES =
  "/settings morning 06:45 · /settings midday off · /settings place Porto · /settings zone Europe/Lisbon · /settings mode legacy";

export function parseSettings(input: string): ParsedSettings {
  const trimmed = input.trim().replace(/\s+/g, " ");
  if (trimmed === "") return { kind: "view" };
  const [head = "", ...restWords] = trimmed.split(" ");
  const word = head.toLowerCase();
  const rest = restWords.join(" ");

  if (isSlotName(word)) return parseSlot(word, rest);
  if (word === "mode") {
    const mode = rest.toLowerCase();
    return (BRIEFING_MODES as readonly string[]).includes(mode)
      ? { kind: "mode", mode: mode as BriefingMode }
      : invalid(`the mode is ${BRIEFING_MODES.join(" or ")}, e.g. /settings mode legacy`);
  }
  if (word === "place") {
    if (rest === "") return { kind: "place-prompt" };
    if (rest.length > FIELD_LIMITS.placeName) return invalid("that place name is too long");
    return { kind: "place", query: rest };
  }
  if (word === "pick") {
    const match = /^(\d{1,2}) (.+)$/.exec(rest);
    if (!match?.[1] || !match[2])
      return invalid("pick a place from the list, or send /settings place <city>");
    return { kind: "pick", index: Number(match[1]), query: match[2].slice(0, FIELD_LIMITS.placeName) };
  }
  if (word === "zone") {
    const zone = canonicalZone(rest);
    return zone
      ? { kind: "zone", zone }
      : invalid(`"${shorten(rest)}" is not a time zone; use an Area/City name like Europe/Lisbon`);
  }
  return invalid(`I don't know "/settings ${shorten(trimmed)}". Try: ${SETTINGS_EXAMPLES}`);
}

function parseSlot(slot: SlotName, value: string): ParsedSettings {
  const lowered = value.toLowerCase();
  if (lowered === "off") return { kind: "slot", slot, time: null };
  const match = /^(\d{1,2})[:.h](\d{2})$/.exec(lowered);
  const hour = Number(match?.[1]);
  const minute = Number(match?.[2]);
  if (!match || hour > 23 || minute > 59) {
    return invalid(
      `${slot} needs a time as HH:MM (24-hour) or "off", e.g. /settings ${slot} ${slot === "morning" ? "06:45" : "off"}`,
    );
  }
  return { kind: "slot", slot, time: `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}` };
}

/** The zone as the IANA database spells it ("europe/lisbon" → "Europe/Lisbon"), or undefined. */
export function canonicalZone(value: string): string | undefined {
  const candidate = value.trim();
  if (!isValidTimeZone(candidate)) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: candidate }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function invalid(error: string): ParsedSettings {
  return { kind: "invalid", error };
}

function shorten(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
