/**
 * Text-level clean-up before ical.js sees a file. Real exports break the grammar in a few well-known
 * ways that would otherwise make the parser reject the whole calendar; each repair here is one of them.
 */
import { looksBinary, storableText } from "../storable-text.ts";
import { CalendarParseError } from "./calendar-parse-error.ts";

export interface PreparedIcs {
  /** Unfolded, repaired lines, ending at the last END:VCALENDAR. */
  lines: string[];
  warnings: string[];
}

const DATE_PROPERTIES = /^(DTSTART|DTEND|DUE|RECURRENCE-ID|EXDATE|RDATE)((?:;[^:]*)?):(\d{8})$/i;

export function prepareIcsText(text: string): PreparedIcs {
  const warnings: string[] = [];
  // Even wrapped in BEGIN:VCALENDAR, an image or archive must not be "synced" as an empty calendar.
  if (looksBinary(text)) throw new CalendarParseError("the file is binary data, not an iCalendar file");
  // RFC 5545 folds with CRLF + one space or tab; some exporters fold with bare LF.
  const unfolded = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/\n[ \t]/g, "");
  const lines = unfolded.split("\n").map((line) => line.replace(/\s+$/, ""));

  const begin = lines.findIndex((line) => /^BEGIN:VCALENDAR$/i.test(line));
  if (begin < 0) {
    const preview = storableText(unfolded.trim().slice(0, 60)).replace(/\s+/g, " ");
    throw new CalendarParseError(
      preview === "" ? "the calendar file is empty" : `not an iCalendar file (starts with "${preview}")`,
    );
  }
  let end = -1;
  for (let index = lines.length - 1; index > begin; index -= 1) {
    if (/^END:VCALENDAR$/i.test(lines[index] ?? "")) {
      end = index;
      break;
    }
  }
  // A download cut short must not replace good events with the half that arrived.
  if (end < 0) throw new CalendarParseError("the calendar file is truncated (no END:VCALENDAR)");
  if (lines.slice(end + 1).some((line) => line.trim() !== "")) {
    warnings.push("ignored text after END:VCALENDAR");
  }

  const repaired = lines
    .slice(begin, end + 1)
    .filter((line) => line.trim() !== "")
    .map(repairLine);
  return { lines: repaired, warnings };
}

function repairLine(line: string): string {
  let fixed = line;
  // "DTSTART;;VALUE=DATE-TIME:…": an empty parameter.
  fixed = fixed.replace(/^([A-Za-z0-9-]+);;+/, "$1;");
  // Exchange: DTSTART;TZID="W. Europe Standard Time:20200609T090000" — the value ended up inside the quotes.
  fixed = fixed.replace(/;TZID="([^":]+):(\d{8}(?:T\d{6}Z?)?)"$/i, ';TZID="$1":$2');
  // DTSTART:20021028 — a DATE without VALUE=DATE, which the grammar reads as a broken DATE-TIME.
  const bareDate = fixed.match(DATE_PROPERTIES);
  if (bareDate && !/;VALUE=/i.test(bareDate[2] ?? "")) {
    fixed = `${bareDate[1]}${bareDate[2] ?? ""};VALUE=DATE:${bareDate[3]}`;
  }
  return fixed;
}

export interface SplitIcs {
  /** The calendar without its VEVENTs (time zones, X-WR-* properties). */
  skeleton: string;
  /** Each VEVENT wrapped in its own VCALENDAR, so one bad event cannot sink the rest. */
  events: string[];
}

export function splitEvents(lines: string[]): SplitIcs {
  const skeleton: string[] = [];
  const events: string[] = [];
  let current: string[] | undefined;
  let depth = 0;
  for (const line of lines) {
    if (!current && /^BEGIN:VEVENT$/i.test(line)) {
      current = [line];
      depth = 1;
      continue;
    }
    if (current) {
      current.push(line);
      if (/^BEGIN:/i.test(line)) depth += 1;
      if (/^END:/i.test(line)) depth -= 1;
      if (depth === 0) {
        events.push(wrapInCalendar(current));
        current = undefined;
      }
      continue;
    }
    skeleton.push(line);
  }
  return { skeleton: skeleton.join("\r\n"), events };
}

function wrapInCalendar(lines: string[]): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//briefbot//split//EN", ...lines, "END:VCALENDAR"].join(
    "\r\n",
  );
}

/** For warnings about an event that could not even be parsed. */
export function summaryOf(eventText: string): string {
  const match = eventText.match(/^SUMMARY[^:]*:(.*)$/im);
  return match?.[1]?.trim().slice(0, 80) || "(no title)";
}
