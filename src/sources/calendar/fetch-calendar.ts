/**
 * Where a calendar's text comes from: an http(s) address (conditional, size- and time-limited) or a local
 * .ics file. Every failure is thrown as an Error whose message is fit for `calendars.lastError`.
 */
import { readFile as readFileFromDisk, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { DEFAULT_MAX_BYTES, type FetchFunction, fetchWithCache } from "../http-cache-fetch.ts";
import type { NetworkPolicy } from "../network/address-policy.ts";

export type ReadFileFunction = (path: string) => Promise<string>;

export type CalendarBody =
  | { status: "not-modified" }
  | { status: "ok"; text: string; etag?: string | null; lastModified?: string | null };

export interface LoadCalendarOptions {
  fetch: FetchFunction;
  readFile?: ReadFileFunction;
  etag?: string | null;
  lastModified?: string | null;
  timeoutMs?: number;
  maxBytes?: number;
  /** Which addresses the fetch and its redirects may reach; default public only. */
  network?: NetworkPolicy;
}

export function isHttpSource(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** Apple and some Outlook links are handed out as webcal://; they are plain https underneath. */
export function normalizeCalendarSource(source: string): string {
  const trimmed = source.trim();
  return /^webcals?:\/\//i.test(trimmed) ? trimmed.replace(/^webcals?:\/\//i, "https://") : trimmed;
}

export async function loadCalendarSource(
  source: string,
  options: LoadCalendarOptions,
): Promise<CalendarBody> {
  if (isHttpSource(source)) {
    const result = await fetchWithCache(options.fetch, source, {
      etag: options.etag,
      lastModified: options.lastModified,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
      ...(options.network ? { network: options.network } : {}),
      headers: { accept: "text/calendar, text/plain;q=0.9, */*;q=0.1" },
    });
    if (result.status === "not-modified") return result;
    return {
      status: "ok",
      text: result.body,
      etag: result.etag ?? null,
      lastModified: result.lastModified ?? null,
    };
  }
  const path = source.startsWith("file://") ? fileURLToPath(source) : source;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (options.readFile) return { status: "ok", text: await options.readFile(path) };
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (size > maxBytes) throw new Error(`${path} is larger than the ${Math.round(maxBytes / 1024)} KB limit`);
  return { status: "ok", text: await readFileFromDisk(path, "utf8") };
}
