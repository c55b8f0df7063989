/**
 * A subscription is tried before it is stored: fetched and parsed with the very functions the background
 * sync uses, so `calendar add README.md` or `feed add <a 404>` is refused with one line and nothing saved.
 * An address that is wrong (4xx, not a calendar, not a feed) exits 2; a server failing right now (5xx, no
 * answer) exits 1 — try again later.
 */
import { errorMessage } from "../core/errors.ts";
import { redactAddress, redactAddressesIn } from "../core/redact.ts";
import { defaultExpansionWindow, expandCalendar } from "../sources/calendar/expand-calendar.ts";
import { loadCalendarSource } from "../sources/calendar/fetch-calendar.ts";
import { parseFeedDocument } from "../sources/feeds/parse-feed.ts";
import { FEED_REQUEST_HEADERS } from "../sources/feeds/sync-feed.ts";
import { FetchError, type FetchFunction, fetchWithCache } from "../sources/http-cache-fetch.ts";
import type { NetworkPolicy } from "../sources/network/address-policy.ts";
import { CliError } from "./context.ts";

export interface ProbeDeps {
  fetch: FetchFunction;
  now: Date;
  /** Which addresses a subscription may reach (`sources` in BRIEFBOT_CONFIG), as its syncs will. */
  network?: NetworkPolicy | undefined;
  /** Show the address in full in the refusal (`--show-secrets`). */
  showSecrets?: boolean;
}

/** Throws a `CliError` unless `source` loads and parses as an iCalendar file. */
export async function probeCalendar(source: string, userZone: string, deps: ProbeDeps): Promise<void> {
  try {
    const body = await loadCalendarSource(source, { fetch: deps.fetch, network: deps.network });
    if (body.status === "ok") expandCalendar(body.text, { userZone, ...defaultExpansionWindow(deps.now) });
  } catch (error) {
    throw refusal("calendar", source, error, deps);
  }
}

/** Throws a `CliError` unless `url` fetches and parses as a feed; returns its title. */
export async function probeFeed(url: string, deps: ProbeDeps): Promise<{ title: string }> {
  try {
    const response = await fetchWithCache(deps.fetch, url, {
      headers: FEED_REQUEST_HEADERS,
      network: deps.network,
    });
    if (response.status === "not-modified") return { title: "" };
    return { title: parseFeedDocument(response.body, url).title };
  } catch (error) {
    throw refusal("feed", url, error, deps);
  }
}

function refusal(kind: "calendar" | "feed", address: string, error: unknown, deps: ProbeDeps): CliError {
  const show = deps.showSecrets ? (text: string) => text : redactAddressesIn;
  const shown = deps.showSecrets ? address : redactAddress(address);
  // Fetch errors start with the address they failed on; the line names it once.
  const reason = show(errorMessage(error).replace(`${address}: `, ""));
  return new CliError(`not added: ${shown} is not a usable ${kind}: ${reason}`, laterOrNever(error));
}

/** 1 when the same address may well work later; 2 when it is wrong. */
function laterOrNever(error: unknown): 1 | 2 {
  if (!(error instanceof FetchError)) return 2;
  if (error.code === "timeout" || error.code === "network") return 1;
  if (error.code === "http-status" && (error.status ?? 0) >= 500) return 1;
  return 2;
}
