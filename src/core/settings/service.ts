/**
 * /settings as a service: shows a user's zone, place, slot times and mode, and changes one of them at a
 * time. Every reply is text plus rows of choices (buttons) whose `args` are the same short forms a person
 * types after /settings, so the platforms only render; every change is confirmed with when the next
 * briefing comes, computed as the scheduler will run it (`nextSlotRun`).
 */
import type { Clock } from "../clock.ts";
import { SLOT_NAMES, type SlotName, type User } from "../domain.ts";
import { NotFoundError } from "../errors.ts";
import type { Geocoder, PlaceCandidate } from "../geocoder.ts";
import { addDays, formatLocal, localDate } from "../local-time.ts";
import type { RunStore, UserSettingsChanges, Users } from "../ports.ts";
import { type NextSlotRun, nextSlotRun } from "../slot-schedule.ts";
import { canonicalZone, parseSettings, SETTINGS_EXAMPLES, type SettingsChange } from "./parse.ts";

/** A button: its label, and the `/settings` arguments it stands for (at most `MAX_CHOICE_BYTES`). */
export interface SettingsChoice {
  label: string;
  args: string;
}

export interface SettingsReply {
  /** error: nothing changed; prompt: says what to type; the others say what is (or now is) set. */
  kind: "view" | "changed" | "pick-place" | "propose-zone" | "prompt" | "error";
  text: string;
  /** Rows of choices, possibly none. */
  choices: SettingsChoice[][];
}

export interface Settings {
  view(userId: number): Promise<SettingsReply>;
  change(userId: number, change: SettingsChange): Promise<SettingsReply>;
  /** What followed `/settings` (or a button's args): parsed, then shown or applied. */
  handle(userId: number, args: string): Promise<SettingsReply>;
}

export interface SettingsDeps {
  users: Users;
  runs: Pick<RunStore, "scheduledOn">;
  clock: Clock;
  /** Absent: places cannot be looked up here (the reply says so). */
  geocoder: Geocoder | undefined;
  staleAfterMinutes: number;
}

/**
 * Telegram carries a button's data in 64 bytes; "s:" plus args must fit. Choices longer than this are left
 * out (the text still says what to type).
 */
export const MAX_CHOICE_BYTES = 60;

const COMMON_TIMES: Record<SlotName, string[]> = {
  morning: ["06:00", "06:30", "07:00", "07:30", "08:00"],
  midday: ["12:00", "12:30", "13:00"],
  afternoon: ["16:00", "16:30", "17:00"],
  evening: ["18:00", "19:00", "20:00"],
};

const MODE_NOTES = {
  agentic: "the model gathers what it needs with tools",
  legacy: "everything is gathered first, the model only writes",
} as const;

export function createSettings(deps: SettingsDeps): Settings {
  const requireUser = async (userId: number): Promise<User> => {
    const user = await deps.users.get(userId);
    if (!user) throw new NotFoundError(`no user with id ${userId}`);
    return user;
  };

  /** The next run of each slot that is on, as the scheduler will claim it. */
  const nextRuns = async (user: User): Promise<Map<SlotName, NextSlotRun>> => {
    const now = deps.clock.now();
    const today = localDate(now, user.timeZone);
    const dates = [addDays(today, -1), today, addDays(today, 1), addDays(today, 2)];
    const taken = new Set(
      (await deps.runs.scheduledOn(user.id, dates)).map((run) => `${run.slot}|${run.localDate}`),
    );
    const runs = new Map<SlotName, NextSlotRun>();
    for (const slot of SLOT_NAMES) {
      const time = user.slots[slot];
      if (!time) continue;
      runs.set(
        slot,
        nextSlotRun({
          zone: user.timeZone,
          time,
          now,
          staleAfterMinutes: deps.staleAfterMinutes,
          taken: (date) => taken.has(`${slot}|${date}`),
        }),
      );
    }
    return runs;
  };

  /** "next morning briefing: Wed 06:45" for one slot, or for whichever slot comes first. */
  const nextLine = async (user: User, slot?: SlotName): Promise<string> => {
    const runs = await nextRuns(user);
    const entries = [...runs.entries()].filter(([name]) => slot === undefined || name === slot);
    entries.sort(([, a], [, b]) => a.at.getTime() - b.at.getTime());
    const first = entries[0];
    if (!first) {
      return slot
        ? `no ${slot} briefings until you set a time`
        : "no briefings are scheduled: every slot is off";
    }
    const [name, run] = first;
    const when = formatLocal(run.at, user.timeZone, "ccc HH:mm");
    return run.dueNow
      ? `next ${name} briefing: ${when} (its time has passed, so it comes within a minute)`
      : `next ${name} briefing: ${when}`;
  };

  const update = (user: User, changes: UserSettingsChanges) => deps.users.update(user.id, changes);

  const view = async (userId: number): Promise<SettingsReply> => {
    const user = await requireUser(userId);
    const now = deps.clock.now();
    const place =
      user.locationName && user.latitude !== null && user.longitude !== null ? user.locationName : "not set";
    const slots = SLOT_NAMES.map((slot) => `${slot} ${user.slots[slot] ?? "off"}`).join(" · ");
    const lines = [
      "Your settings",
      `time zone: ${user.timeZone} (${formatLocal(now, user.timeZone, "ccc HH:mm")} there now)`,
      `place: ${place}`,
      `briefings: ${slots}`,
      `mode: ${user.briefingMode} (${MODE_NOTES[user.briefingMode]})`,
      await nextLine(user),
      `Change with the buttons, or: ${SETTINGS_EXAMPLES}`,
    ];
    return { kind: "view", text: lines.join("\n"), choices: viewChoices(user) };
  };

  const placeChosen = async (user: User, place: PlaceCandidate): Promise<SettingsReply> => {
    const updated = await update(user, {
      locationName: place.label,
      latitude: place.latitude,
      longitude: place.longitude,
    });
    // The geocoder's word is checked like a typed zone: an unknown name is no proposal.
    const zone = place.timeZone ? canonicalZone(place.timeZone) : undefined;
    if (!zone || zone === updated.timeZone) {
      const zoneNote = zone ? ` (time zone ${zone}, as before)` : "";
      return changed(`Place: ${place.label}${zoneNote}.`, await nextLine(updated));
    }
    return {
      kind: "propose-zone",
      text: [
        `Place: ${place.label}.`,
        `Its time zone is ${zone}; your briefings follow ${updated.timeZone}. Switch?`,
        `(or later: /settings zone ${zone})`,
      ].join("\n"),
      choices: fitting([
        [{ label: `Use ${zone}`, args: `zone ${zone}` }],
        [{ label: `Keep ${updated.timeZone}`, args: `zone ${updated.timeZone}` }],
      ]),
    };
  };

  const lookUp = async (user: User, query: string, pick?: number): Promise<SettingsReply> => {
    if (!deps.geocoder) return error("Looking up places is not set up on this briefbot.");
    const found = await deps.geocoder.search(query);
    switch (found.kind) {
      case "unavailable":
        return error(`Could not look up "${query}" right now (${found.reason}); try again in a minute.`);
      case "not-found":
        return error(
          `No place called "${query}" was found; check the spelling or add the country, e.g. "Porto, Portugal".`,
        );
      case "found":
        return placeChosen(user, found.place);
      case "ambiguous": {
        if (pick !== undefined) {
          const chosen = found.candidates[pick];
          if (chosen) return placeChosen(user, chosen);
          return error(`That list is out of date; send /settings place ${query} again.`);
        }
        const rows = found.candidates.map((candidate, index) => [
          { label: candidate.label, args: `pick ${index} ${query}` },
        ]);
        const listed = found.candidates.map((candidate, index) => `${index + 1}. ${candidate.label}`);
        return {
          kind: "pick-place",
          text: [
            `Which ${query}?`,
            ...listed,
            `(or be more precise: /settings place ${query}, <country>)`,
          ].join("\n"),
          choices: fitting(rows),
        };
      }
    }
  };

  const change = async (userId: number, request: SettingsChange): Promise<SettingsReply> => {
    const user = await requireUser(userId);
    switch (request.kind) {
      case "view":
        return view(userId);
      case "slot": {
        const updated = await update(user, { slots: { [request.slot]: request.time } });
        const what =
          request.time === null
            ? `${capitalised(request.slot)} briefing is off.`
            : `${capitalised(request.slot)} briefing at ${request.time} (${updated.timeZone}).`;
        return changed(what, await nextLine(updated, request.time === null ? undefined : request.slot));
      }
      case "mode": {
        const updated = await update(user, { briefingMode: request.mode });
        return changed(
          `Briefing mode: ${request.mode} (${MODE_NOTES[request.mode]}).`,
          await nextLine(updated),
        );
      }
      case "zone": {
        if (request.zone === user.timeZone) {
          return changed(`Time zone stays ${user.timeZone}.`, await nextLine(user));
        }
        const updated = await update(user, { timeZone: request.zone });
        return changed(
          `Time zone: ${request.zone}; your briefing times are now in ${request.zone}.`,
          await nextLine(updated),
        );
      }
      case "place-prompt":
        return {
          kind: "prompt",
          text: "Send /settings place <city>, e.g. /settings place Porto (add the country if the name is common).",
          choices: [],
        };
      case "place":
        return lookUp(user, request.query);
      case "pick":
        return lookUp(user, request.query, request.index);
    }
  };

  return {
    view,
    change,
    async handle(userId, args) {
      const parsed = parseSettings(args);
      if (parsed.kind === "invalid") return error(capitalised(parsed.error));
      return change(userId, parsed);
    },
  };
}

function viewChoices(user: User): SettingsChoice[][] {
  const rows: SettingsChoice[][] = SLOT_NAMES.map((slot) => {
    const current = user.slots[slot];
    const times = COMMON_TIMES[slot].map((time, index) => ({
      label: `${current === time ? "✓ " : ""}${index === 0 ? `${slot} ` : ""}${time}`,
      args: `${slot} ${time}`,
    }));
    return [...times, { label: current === null ? "✓ off" : "off", args: `${slot} off` }];
  });
  const other = user.briefingMode === "agentic" ? "legacy" : "agentic";
  rows.push([
    { label: `Mode: switch to ${other}`, args: `mode ${other}` },
    { label: "Change place", args: "place" },
  ]);
  return fitting(rows);
}

/** Drops choices a button cannot carry, and rows left empty. */
function fitting(rows: SettingsChoice[][]): SettingsChoice[][] {
  const encoder = new TextEncoder();
  return rows
    .map((row) => row.filter((choice) => encoder.encode(choice.args).length <= MAX_CHOICE_BYTES))
    .filter((row) => row.length > 0);
}

function changed(what: string, next: string): SettingsReply {
  return { kind: "changed", text: `${what}\n${next}`, choices: [] };
}

function error(text: string): SettingsReply {
  return { kind: "error", text, choices: [] };
}

function capitalised(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}
