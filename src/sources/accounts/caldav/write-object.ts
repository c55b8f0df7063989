/**
 * Conditional writes of one calendar object (RFC 4791 §5.3.2, RFC 7232): a create is `If-None-Match: *`,
 * an edit or delete is `If-Match` with the ETag the mirror holds. When the precondition fails (412) the
 * server has moved on: the object is read back and handed to the caller in a `ConflictError`, and nothing
 * is written. A 404 means it was deleted there.
 */
import { createObject, deleteObject, updateObject } from "tsdav";
import { ConflictError, type RemoteObject } from "../../../core/accounts/ports.ts";
import { CaldavError, type CaldavSession, normalizeEtag } from "./caldav-http.ts";
import { multiget } from "./sync-collection.ts";

const CONTENT_TYPE = "text/calendar; charset=utf-8";

export async function putObject(
  session: CaldavSession,
  url: string,
  body: string,
  condition: { create: true } | { etag: string },
): Promise<RemoteObject> {
  const call = { url, data: body, fetch: session.fetch };
  const response =
    "create" in condition
      ? await createObject({
          ...call,
          headers: { ...session.headers, "content-type": CONTENT_TYPE, "if-none-match": "*" },
        })
      : await updateObject({
          ...call,
          etag: condition.etag,
          headers: { ...session.headers, "content-type": CONTENT_TYPE },
        });
  if (response.status === 412)
    throw await conflict(session, url, "it changed on the server since it was read");
  if (response.status === 404 && !("create" in condition))
    throw new ConflictError(`${url}: it was deleted on the server`, undefined);
  if (!response.ok) throw new CaldavError(`${url}: PUT failed: ${response.status} ${response.statusText}`);
  const etag = normalizeEtag(response.headers.get("etag"));
  // RFC 4791 §5.3.4: no ETag in the answer means the server stored something other than what was sent.
  if (etag) return { remoteId: url, etag, format: "icalendar", body };
  const stored = await readObject(session, url);
  if (!stored) throw new CaldavError(`${url}: written, but the server does not return it`);
  return stored;
}

export async function deleteRemoteObject(session: CaldavSession, current: RemoteObject): Promise<void> {
  const response = await deleteObject({
    url: current.remoteId,
    etag: current.etag,
    headers: session.headers,
    fetch: session.fetch,
  });
  if (response.status === 412)
    throw await conflict(session, current.remoteId, "it changed on the server since it was read");
  if (response.status === 404)
    throw new ConflictError(`${current.remoteId}: it was already deleted on the server`, undefined);
  if (!response.ok)
    throw new CaldavError(`${current.remoteId}: DELETE failed: ${response.status} ${response.statusText}`);
}

/** The object as the server holds it now, through the same multiget the sync uses. */
export async function readObject(session: CaldavSession, url: string): Promise<RemoteObject | undefined> {
  const collection = new URL(".", url).href;
  const [object] = await multiget(collection, [url], session);
  return object;
}

async function conflict(session: CaldavSession, url: string, why: string): Promise<ConflictError> {
  const current = await readObject(session, url);
  return new ConflictError(`${url}: ${current ? why : "it was deleted on the server"}`, current);
}
