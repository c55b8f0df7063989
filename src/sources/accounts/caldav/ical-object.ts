/**
 * What the task and event writers share: a stored object parsed for editing, and the stamps every edit
 * leaves. Both writers change the parsed component in place and serialize it again, so the properties
 * they do not name go back to the server as they came.
 */
import ICAL from "ical.js";
import { zoneComponent } from "./zone-component.ts";

/** The object as ical.js components; `unreadable` builds the writer's own error for text it cannot parse. */
export function parseObject(icsText: string, unreadable: (why: string) => Error): ICAL.Component {
  try {
    return new ICAL.Component(ICAL.parse(icsText) as unknown[]);
  } catch (error) {
    throw unreadable(String(error));
  }
}

/** RFC 5545 §3.8.7.2/3: LAST-MODIFIED and DTSTAMP say when the object was last changed; clients sort by them. */
export function stampChange(component: ICAL.Component, now: Date): void {
  component.updatePropertyWithValue("last-modified", utc(now));
  component.updatePropertyWithValue("dtstamp", utc(now));
}

/** A new object holding one new `vtodo` or `vevent`, stamped as created now; both returned for filling in. */
export function newObject(
  kind: "vtodo" | "vevent",
  uid: string,
  now: Date,
): { calendar: ICAL.Component; component: ICAL.Component } {
  const calendar = newCalendar();
  const component = new ICAL.Component(kind);
  component.updatePropertyWithValue("uid", uid);
  component.updatePropertyWithValue("dtstamp", utc(now));
  component.updatePropertyWithValue("created", utc(now));
  component.updatePropertyWithValue("last-modified", utc(now));
  return { calendar, component };
}

/** A new calendar object as our writes start one. */
export function newCalendar(): ICAL.Component {
  const calendar = new ICAL.Component("vcalendar");
  calendar.updatePropertyWithValue("prodid", "-//briefbot//briefbot//EN");
  calendar.updatePropertyWithValue("version", "2.0");
  return calendar;
}

export function utc(date: Date): ICAL.Time {
  return ICAL.Time.fromJSDate(date, true);
}

/**
 * RFC 5545 §3.2.19: a TZID names a VTIMEZONE in the same object. Adds one for `tzid` (read as the IANA
 * `zone`) unless the object has it, before the other components, where clients put it.
 */
export function describeZone(calendar: ICAL.Component, tzid: string, zone: string, year: number): void {
  const described = calendar
    .getAllSubcomponents("vtimezone")
    .some((component) => component.getFirstPropertyValue("tzid") === tzid);
  if (described) return;
  const rest = [...calendar.getAllSubcomponents()];
  for (const existing of rest) calendar.removeSubcomponent(existing);
  calendar.addSubcomponent(zoneComponent(tzid, zone, year));
  for (const existing of rest) calendar.addSubcomponent(existing);
}
