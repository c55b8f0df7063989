/** iCalendar text the tests put on Radicale as another client would, and the provider they talk through. */
import type {
  AccountCollection,
  AccountConnection,
  DeriveOptions,
} from "../../../../src/core/accounts/ports.ts";
import type { Clock } from "../../../../src/core/clock.ts";
import { createCaldavProvider } from "../../../../src/sources/accounts/caldav/caldav-provider.ts";
import type { Radicale } from "../../../servers/radicale.ts";

export const USER = "ann";
export const PASSWORD = "correct horse";

export function connectionTo(radicale: Radicale): AccountConnection {
  return { url: `${radicale.url}/`, username: USER, secret: PASSWORD };
}

/**
 * The test server is on loopback, which only an operator's allow_private_networks opens. Writes stamp
 * DTSTAMP with `clock` (the core's, in a test with a fixed one), else the system clock.
 */
export function loopbackProvider(clock?: Clock) {
  return createCaldavProvider({
    network: { allowPrivateNetworks: true, allowHosts: [] },
    ...(clock ? { now: () => clock.now() } : {}),
  });
}

export function collectionAt(
  radicale: Radicale,
  name: string,
  syncState: string | null = null,
): AccountCollection {
  return {
    remoteId: `${radicale.url}/${USER}/${name}/`,
    name,
    holds: name === "calendar" ? ["events"] : ["tasks"],
    enabled: true,
    syncState,
  };
}

export function todo(uid: string, summary: string, extra: string[] = []): string {
  return lines([
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:+//IDN tasks.org//android-130102//EN",
    "BEGIN:VTODO",
    "DTSTAMP:20261128T071502Z",
    `UID:${uid}`,
    "CREATED:20261101T081233Z",
    "LAST-MODIFIED:20261128T071500Z",
    `SUMMARY:${summary}`,
    ...extra,
    "X-APPLE-SORT-ORDER:812345678",
    "BEGIN:VALARM",
    "TRIGGER;RELATED=END:PT0S",
    "ACTION:DISPLAY",
    "DESCRIPTION:Default Tasks.org description",
    "END:VALARM",
    "END:VTODO",
    "END:VCALENDAR",
  ]);
}

export function event(uid: string, summary: string, start: string, end: string): string {
  return lines([
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261120T090000Z",
    `DTSTART:${start}`,
    `DTEND:${end}`,
    `SUMMARY:${summary}`,
    "X-MOZ-GENERATION:2",
    "END:VEVENT",
    "END:VCALENDAR",
  ]);
}

export const DERIVE: DeriveOptions = {
  windowStart: new Date("2026-12-02T00:00:00Z"),
  windowEnd: new Date("2026-12-17T00:00:00Z"),
  timeZone: "Europe/Berlin",
};

function lines(list: string[]): string {
  return `${list.join("\r\n")}\r\n`;
}

/** iCalendar unfolded, for matching a property whatever line length the server folded it at. */
export const unfold = (text: string | undefined) => (text ?? "").replace(/\r\n[ \t]/g, "");
