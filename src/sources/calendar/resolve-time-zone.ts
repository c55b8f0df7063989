/**
 * Turns the TZID an exporter wrote into a zone luxon understands. Exporters disagree: Google and Apple
 * write IANA names, Outlook/Exchange write Windows names ("W. Europe Standard Time") or display names
 * ("(UTC+01:00) Amsterdam, Berlin, …"), older Mozilla clients prefix IANA names with a vendor path, and a
 * few write bare offsets ("(GMT +01:00)").
 */
import { IANAZone } from "luxon";
import { findIana } from "windows-iana";

let cityIndex: Map<string, string> | undefined;

/** An IANA name or a fixed-offset zone like "UTC+1"; undefined when nothing matches. */
export function resolveTimeZoneName(tzid: string): string | undefined {
  const name = tzid.trim().replace(/^"+|"+$/g, "");
  if (name === "") return undefined;
  if (/^(z|utc|gmt|etc\/utc|etc\/gmt)$/i.test(name)) return "UTC";
  if (isIanaZone(name)) return canonicalIana(name);

  const vendorSuffix = name.match(/([A-Za-z]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/)?.[1];
  if (vendorSuffix && name.startsWith("/") && isIanaZone(vendorSuffix)) return canonicalIana(vendorSuffix);

  const windows = findIana(name)[0];
  if (windows && isIanaZone(windows)) return canonicalIana(windows);

  const fromDisplayName = cityFromDisplayName(name);
  if (fromDisplayName) return fromDisplayName;

  return fixedOffsetZone(name);
}

function isIanaZone(name: string): boolean {
  // luxon accepts any casing and a few non-IANA spellings; Intl is the arbiter of what is real.
  return IANAZone.isValidZone(name) && !/^[+-]/.test(name);
}

/** Intl resolves links ("US/Central" → "America/Chicago"); keeping the canonical name makes display stable. */
function canonicalIana(name: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return name;
  }
}

/** "(UTC+01:00) Amsterdam, Berlin, Bern" → Europe/Amsterdam: the first listed city that is an IANA zone. */
function cityFromDisplayName(name: string): string | undefined {
  const afterOffset = name.replace(/^\((?:UTC|GMT)[^)]*\)\s*/i, "");
  if (afterOffset === name) return undefined;
  const index = getCityIndex();
  for (const city of afterOffset.split(/[,;&]/)) {
    const key = city.trim().toLowerCase().replace(/\s+/g, "_");
    const zone = index.get(key);
    if (zone) return zone;
  }
  return undefined;
}

function getCityIndex(): Map<string, string> {
  if (!cityIndex) {
    cityIndex = new Map();
    for (const zone of Intl.supportedValuesOf("timeZone")) {
      const city = zone.split("/").at(-1);
      if (city && !cityIndex.has(city.toLowerCase())) cityIndex.set(city.toLowerCase(), zone);
    }
  }
  return cityIndex;
}

/** "(GMT +01:00)", "GMT+0100", "UTC-05:30" → luxon fixed-offset names ("UTC+1", "UTC-5:30"). */
function fixedOffsetZone(name: string): string | undefined {
  const match = name.match(/(?:UTC|GMT)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?/i);
  if (!match) return undefined;
  const [, sign, hours, minutes] = match;
  const hourNumber = Number(hours);
  const minuteNumber = Number(minutes ?? "0");
  if (hourNumber > 14 || minuteNumber > 59) return undefined;
  if (hourNumber === 0 && minuteNumber === 0) return "UTC";
  return minuteNumber === 0
    ? `UTC${sign}${hourNumber}`
    : `UTC${sign}${hourNumber}:${String(minuteNumber).padStart(2, "0")}`;
}
