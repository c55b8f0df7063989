/**
 * One collection's changes since the stored position, fetching as little as the server lets us:
 *
 * - With a sync-token (RFC 6578, Radicale, Nextcloud, Fastmail, iCloud): one sync-collection REPORT lists
 *   what changed and what went; nothing changed is that one request.
 * - Without sync-collection, a ctag (calendarserver.org's getctag): one Depth 0 PROPFIND tells whether
 *   anything changed; if so a Depth 1 PROPFIND of the ETags, compared with the mirror's.
 * - With no position, or a token the server no longer accepts (403/409 valid-sync-token): the whole
 *   listing, and every object (`full`).
 *
 * Bodies come in calendar-multiget REPORTs of only the hrefs whose ETag differs from the mirror's, in
 * batches so no single answer grows without bound.
 *
 * The stored position is "token:<sync-token>" or "ctag:<ctag>", opaque to the core.
 */
import { type DAVResponse, davRequest, propfind, syncCollection } from "tsdav";
import type { AccountCollection, CollectionChanges, RemoteObject } from "../../../core/accounts/ports.ts";
import { absoluteHref, CaldavError, type CaldavSession, normalizeEtag } from "./caldav-http.ts";

/** Hrefs per calendar-multiget; DAVx5 and Thunderbird fetch in batches of this order. */
const MULTIGET_BATCH = 100;
/** RFC 6578 §3.6: a server may truncate with 507 and expects the client to ask again from the new token. */
const MAX_TRUNCATED_ROUNDS = 50;

type Position = { kind: "token"; value: string } | { kind: "ctag"; value: string };

export async function syncCaldavCollection(
  collection: AccountCollection,
  known: ReadonlyMap<string, string>,
  session: CaldavSession,
): Promise<CollectionChanges> {
  const position = parsePosition(collection.syncState);
  const url = collection.remoteId;
  let result: Omit<CollectionChanges, "requests" | "bytes">;
  if (position?.kind === "token") {
    result =
      (await incrementalByToken(url, position.value, known, session)) ?? (await fullSync(url, session));
  } else if (position?.kind === "ctag") {
    result = await incrementalByCtag(url, position.value, known, session);
  } else {
    result = await fullSync(url, session);
  }
  return { ...result, requests: session.tally.requests, bytes: session.tally.bytes };
}

function parsePosition(state: string | null): Position | undefined {
  if (state?.startsWith("token:")) return { kind: "token", value: state.slice("token:".length) };
  if (state?.startsWith("ctag:")) return { kind: "ctag", value: state.slice("ctag:".length) };
  return undefined;
}

function positionOf(syncToken: unknown, ctag: unknown): string | null {
  if (typeof syncToken === "string" && syncToken !== "") return `token:${syncToken}`;
  if (ctag !== undefined && ctag !== null && String(ctag) !== "") return `ctag:${String(ctag)}`;
  return null;
}

/** undefined when the server refused the token, so the caller starts over. */
async function incrementalByToken(
  url: string,
  token: string,
  known: ReadonlyMap<string, string>,
  session: CaldavSession,
): Promise<Omit<CollectionChanges, "requests" | "bytes"> | undefined> {
  const listed = new Map<string, string>();
  const removed = new Set<string>();
  let current = token;
  for (let round = 0; round < MAX_TRUNCATED_ROUNDS; round += 1) {
    const responses = await syncCollection({
      url,
      props: { "d:getetag": {} },
      syncLevel: 1,
      syncToken: current,
      headers: { ...session.headers, depth: "0" },
      fetch: session.fetch,
    });
    const first = responses[0];
    if (first && !first.ok && !first.href) {
      if ([403, 409].includes(first.status ?? 0) || /valid-sync-token/.test(String(first.raw)))
        return undefined;
      throw failed(url, "sync-collection", first);
    }
    let truncated = false;
    for (const response of responses) {
      if (!response.href) continue;
      const href = absoluteHref(String(response.href), url);
      if (sameCollection(href, url)) {
        if (response.status === 507) truncated = true;
        continue;
      }
      if (response.status === 404) {
        removed.add(href);
        listed.delete(href);
        continue;
      }
      const etag = normalizeEtag(response.props?.getetag);
      if (etag) {
        listed.set(href, etag);
        removed.delete(href);
      }
    }
    const next = syncTokenOf(responses);
    if (next === undefined) throw new CaldavError(`${url}: sync-collection answered without a sync-token`);
    current = next;
    if (!truncated) break;
  }
  const wanted = [...listed].filter(([href, etag]) => known.get(href) !== etag).map(([href]) => href);
  const fetched = await multiget(url, wanted, session);
  // An href listed as changed and gone by the time it was fetched has been deleted in between.
  const arrived = new Set(fetched.map((object) => object.remoteId));
  for (const href of wanted) if (!arrived.has(href)) removed.add(href);
  return {
    changed: fetched,
    removed: [...removed].filter((href) => known.has(href)),
    full: false,
    syncState: `token:${current}`,
  };
}

async function incrementalByCtag(
  url: string,
  ctag: string,
  known: ReadonlyMap<string, string>,
  session: CaldavSession,
): Promise<Omit<CollectionChanges, "requests" | "bytes">> {
  const [self] = await propfind({
    url,
    props: { "cs:getctag": {}, "d:sync-token": {} },
    depth: "0",
    headers: session.headers,
    fetch: session.fetch,
  });
  if (!self?.ok) throw failed(url, "PROPFIND", self);
  const remoteCtag = self.props?.getctag;
  // Unchanged; a server that has learnt sync-collection since is moved onto its token from here on.
  if (remoteCtag !== undefined && String(remoteCtag) === ctag) {
    return {
      changed: [],
      removed: [],
      full: false,
      syncState: positionOf(self.props?.syncToken, remoteCtag),
    };
  }
  const listing = await list(url, session);
  const wanted = [...listing.etags].filter(([href, etag]) => known.get(href) !== etag).map(([href]) => href);
  return {
    changed: await multiget(url, wanted, session),
    removed: [...known.keys()].filter((href) => !listing.etags.has(href)),
    full: false,
    syncState: listing.position,
  };
}

async function fullSync(
  url: string,
  session: CaldavSession,
): Promise<Omit<CollectionChanges, "requests" | "bytes">> {
  const listing = await list(url, session);
  return {
    changed: await multiget(url, [...listing.etags.keys()], session),
    removed: [],
    full: true,
    syncState: listing.position,
  };
}

/** Depth 1: the collection's own position and every member's ETag, in one answer. */
async function list(
  url: string,
  session: CaldavSession,
): Promise<{ etags: Map<string, string>; position: string | null }> {
  const responses = await propfind({
    url,
    props: { "d:getetag": {}, "d:resourcetype": {}, "cs:getctag": {}, "d:sync-token": {} },
    depth: "1",
    headers: session.headers,
    fetch: session.fetch,
  });
  const first = responses[0];
  if (first && !first.ok && !first.href) throw failed(url, "PROPFIND", first);
  const etags = new Map<string, string>();
  let position: string | null = null;
  for (const response of responses) {
    if (!response.href) continue;
    const href = absoluteHref(String(response.href), url);
    if (sameCollection(href, url)) {
      position = positionOf(response.props?.syncToken, response.props?.getctag);
      continue;
    }
    if (Object.keys(response.props?.resourcetype ?? {}).includes("collection")) continue;
    const etag = normalizeEtag(response.props?.getetag);
    if (etag) etags.set(href, etag);
  }
  return { etags, position };
}

/** The objects at these hrefs, with their ETags; an href the server no longer has is left out. */
export async function multiget(
  url: string,
  hrefs: readonly string[],
  session: CaldavSession,
): Promise<RemoteObject[]> {
  const objects: RemoteObject[] = [];
  for (let start = 0; start < hrefs.length; start += MULTIGET_BATCH) {
    const batch = hrefs.slice(start, start + MULTIGET_BATCH).map((href) => new URL(href).pathname);
    const responses = await davRequest({
      url,
      init: {
        method: "REPORT",
        namespace: "c",
        headers: { ...session.headers, depth: "1" },
        body: {
          "calendar-multiget": {
            _attributes: { "xmlns:d": "DAV:", "xmlns:c": "urn:ietf:params:xml:ns:caldav" },
            "d:prop": { "d:getetag": {}, "c:calendar-data": {} },
            "d:href": batch,
          },
        },
      },
      fetch: session.fetch,
    });
    const first = responses[0];
    if (first && !first.ok && !first.href) throw failed(url, "calendar-multiget", first);
    for (const response of responses) {
      if (!response.href || !response.ok) continue;
      const data = response.props?.calendarData;
      const body =
        typeof data === "string" ? data : typeof data?._cdata === "string" ? data._cdata : undefined;
      const etag = normalizeEtag(response.props?.getetag);
      if (body === undefined || etag === undefined) continue;
      objects.push({ remoteId: absoluteHref(String(response.href), url), etag, format: "icalendar", body });
    }
  }
  return objects;
}

function syncTokenOf(responses: DAVResponse[]): string | undefined {
  const raw = responses[0]?.raw as { multistatus?: { syncToken?: unknown } } | undefined;
  const token = raw?.multistatus?.syncToken;
  return typeof token === "string" && token !== "" ? token : undefined;
}

function sameCollection(href: string, url: string): boolean {
  const strip = (value: string) => new URL(value).pathname.replace(/\/+$/, "");
  return strip(href) === strip(url);
}

function failed(url: string, what: string, response: DAVResponse | undefined): CaldavError {
  const status = response ? `${response.status ?? "?"} ${response.statusText ?? ""}`.trim() : "no answer";
  if (response?.status === 401)
    return new CaldavError(`${url}: the server refused the user name or password (401)`);
  return new CaldavError(`${url}: ${what} failed: ${status}`);
}
