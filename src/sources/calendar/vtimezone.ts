/**
 * A VTIMEZONE is only consulted for zones no name maps to (Outlook's "Customized Time Zone"), and ical.js
 * expands its observance rules with no limit: a DAYLIGHT block with RRULE:FREQ=SECONDLY would spin for
 * hours on the first conversion. Real time zones change at most a few times a year, so anything else is
 * refused and the zone falls back to the user's, with a warning.
 */
import ICAL from "ical.js";

/** Generous: full-history exports carry a few dozen eras, each a yearly rule or a handful of RDATEs. */
const MAX_RULE_OBSERVANCES = 20;
const MAX_RDATES = 1_000;

/** The zone ical.js builds from the component, or why it cannot be trusted. */
export function readVtimezone(component: ICAL.Component): { timezone: ICAL.Timezone } | { problem: string } {
  const observances = [
    ...component.getAllSubcomponents("standard"),
    ...component.getAllSubcomponents("daylight"),
  ];
  let ruled = 0;
  let rdates = 0;
  for (const observance of observances) {
    const rule = observance.getFirstPropertyValue("rrule");
    if (rule !== null && rule !== undefined) {
      if (!(rule instanceof ICAL.Recur) || rule.freq !== "YEARLY") {
        return { problem: "its observances recur more often than yearly" };
      }
      ruled += 1;
    }
    for (const rdate of observance.getAllProperties("rdate")) rdates += rdate.getValues().length;
  }
  if (ruled > MAX_RULE_OBSERVANCES)
    return { problem: `it has more than ${MAX_RULE_OBSERVANCES} recurring observances` };
  if (rdates > MAX_RDATES) return { problem: `it has more than ${MAX_RDATES} RDATEs` };
  return { timezone: new ICAL.Timezone(component) };
}
