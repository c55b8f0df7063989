/**
 * Feed dates in the wild: RFC 822 (often with a wrong weekday or a zone abbreviation), ISO 8601 with or
 * without an offset, and garbage. Anything we cannot read with confidence becomes null, never "now".
 */

const ZONE_ABBREVIATIONS: Record<string, string> = {
  UT: "+0000",
  UTC: "+0000",
  GMT: "+0000",
  Z: "+0000",
  WET: "+0000",
  WEST: "+0100",
  BST: "+0100",
  CET: "+0100",
  CEST: "+0200",
  MET: "+0100",
  MEST: "+0200",
  EET: "+0200",
  EEST: "+0300",
  MSK: "+0300",
  IST: "+0530",
  JST: "+0900",
  KST: "+0900",
  AEST: "+1000",
  AEDT: "+1100",
  NZST: "+1200",
  NZDT: "+1300",
  EST: "-0500",
  EDT: "-0400",
  CST: "-0600",
  CDT: "-0500",
  MST: "-0700",
  MDT: "-0600",
  PST: "-0800",
  PDT: "-0700",
};

const MIN_YEAR = 1900;
const MAX_YEAR = 2200;

export function parseFeedDate(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const text = value.trim().replace(/\s+/g, " ");
  if (!text || text.length > 100) return null;

  const candidate = isoWithoutOffset(text)
    ? `${text.replace(" ", "T")}Z`
    : withNumericZone(withoutWeekday(text));
  const date = new Date(candidate);
  if (Number.isNaN(date.getTime())) return null;
  const year = date.getUTCFullYear();
  if (year < MIN_YEAR || year > MAX_YEAR) return null;
  return date;
}

/** "2019-08-06" or "2019-08-06T10:00:00" carry no zone; UTC is the only reading that doesn't depend on the host. */
function isoWithoutOffset(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(text);
}

/** Publishers get the weekday wrong often enough ("Sun, 06 Sep 2019" was a Friday) that it must not matter. */
function withoutWeekday(text: string): string {
  return text.replace(/^[A-Za-z]{2,9},?\s+(?=\d)/, "");
}

function withNumericZone(text: string): string {
  return text.replace(/\b([A-Z]{1,5})$/, (abbreviation) => ZONE_ABBREVIATIONS[abbreviation] ?? abbreviation);
}
