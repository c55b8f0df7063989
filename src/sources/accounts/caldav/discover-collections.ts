/**
 * An account's address → its calendar collections, the way CalDAV clients find them (RFC 6764 well-known
 * redirect, then RFC 5397 current-user-principal, then RFC 4791 calendar-home-set, then a Depth 1 PROPFIND
 * of the home). tsdav walks the chain; what each collection holds comes from its
 * supported-calendar-component-set.
 */
import { createAccount, fetchCalendars } from "tsdav";
import type { CollectionContent, RemoteCollection } from "../../../core/accounts/ports.ts";
import { errorMessage } from "../../../core/errors.ts";
import { CaldavError, type CaldavSession } from "./caldav-http.ts";

export async function discoverCollections(url: string, session: CaldavSession): Promise<RemoteCollection[]> {
  const call = { headers: session.headers, fetch: session.fetch };
  let account: Awaited<ReturnType<typeof createAccount>>;
  try {
    account = await createAccount({
      account: { serverUrl: url, accountType: "caldav" },
      ...call,
    });
  } catch (error) {
    throw new CaldavError(`${url}: no CalDAV account found there (${errorMessage(error, { cause: true })})`, {
      cause: error,
    });
  }
  const calendars = await fetchCalendars({ account, ...call });
  const collections: RemoteCollection[] = [];
  for (const calendar of calendars) {
    const holds = contentOf(calendar.components ?? []);
    if (holds.length === 0) continue;
    const name = typeof calendar.displayName === "string" ? calendar.displayName.trim() : "";
    collections.push({ remoteId: calendar.url, name: name || lastSegment(calendar.url), holds });
  }
  return collections;
}

/**
 * RFC 4791 §5.2.3: without a supported-calendar-component-set a collection takes any component, so it
 * may hold both. A VJOURNAL-only collection (notes) holds nothing we read.
 */
export function contentOf(components: readonly string[]): CollectionContent[] {
  if (components.length === 0) return ["events", "tasks"];
  const upper = new Set(components.map((component) => component.toUpperCase()));
  const holds: CollectionContent[] = [];
  if (upper.has("VEVENT")) holds.push("events");
  if (upper.has("VTODO")) holds.push("tasks");
  return holds;
}

function lastSegment(url: string): string {
  const segments = new URL(url).pathname.split("/").filter((segment) => segment !== "");
  return decodeURIComponent(segments.at(-1) ?? url);
}
