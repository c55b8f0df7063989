/**
 * The providers `buildCore` uses by default load when an account of their kind is first met
 * (src/account-providers.ts). Their synchronous methods (`derive`, `isSeries`) run on accounts the service
 * read from the store without a network call first, so the store the service gets must have loaded the
 * provider of every account it returns — including in a process that has just started.
 */
import { describe, expect, it } from "vitest";
import { lazyAccountProviders } from "../../src/account-providers.ts";
import type { AccountProvider } from "../../src/core/accounts/ports.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { AccountKind, NewAccount, RemoteObject } from "../../src/core/domain.ts";
import { createMemoryAccounts } from "../helpers/memory-ports/accounts.ts";
import { createMemoryTables } from "../helpers/memory-ports/tables.ts";
import { insertMemoryUser } from "../helpers/memory-ports/users.ts";

const clock = fixedClock("2026-12-03T07:00:00Z");
const WINDOW = {
  windowStart: new Date("2026-12-02T00:00:00Z"),
  windowEnd: new Date("2026-12-18T00:00:00Z"),
  timeZone: "Europe/Berlin",
};

const TODOIST_TASK: RemoteObject = {
  remoteId: "6X7rM8997g3RQmvh",
  etag: "2026-12-01T10:00:00.000000Z",
  format: "todoist-json",
  body: JSON.stringify({
    id: "6X7rM8997g3RQmvh",
    project_id: "inbox",
    parent_id: null,
    content: "Renew passport",
    description: "",
    checked: false,
    is_deleted: false,
    priority: 4,
    labels: [],
    due: { date: "2026-12-04" },
    completed_at: null,
    updated_at: "2026-12-01T10:00:00.000000Z",
  }),
};

const VEVENT: RemoteObject = {
  remoteId: "/u/calendar/standup.ics",
  etag: '"1"',
  format: "icalendar",
  body: [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//EN",
    "BEGIN:VEVENT",
    "UID:standup",
    "DTSTAMP:20261201T100000Z",
    "DTSTART:20261204T090000Z",
    "DTEND:20261204T091500Z",
    "SUMMARY:Stand-up",
    "RRULE:FREQ=DAILY;COUNT=3",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n"),
};

function account(kind: AccountKind): NewAccount {
  return {
    userId: 1,
    kind,
    label: kind,
    url: "https://example.org/",
    username: null,
    secret: { keyId: "k", sealed: "" },
    collections: [],
    createdAt: clock.now(),
  };
}

function setup() {
  const lazy = lazyAccountProviders({ network: { allowPrivateNetworks: false, allowHosts: [] }, clock });
  const tables = createMemoryTables();
  insertMemoryUser(tables, { name: "ann", timeZone: "Europe/Berlin" });
  const store = createMemoryAccounts(tables);
  const provider = (kind: AccountKind): AccountProvider => {
    const found = lazy.providers.find((entry) => entry.kind === kind);
    if (!found) throw new Error(`no ${kind} provider`);
    return found;
  };
  return { lazy, store, provider };
}

describe("account providers loaded on first use", () => {
  it("has loaded an account's provider by the time the store returns the account, and no other", async () => {
    const { lazy, store, provider } = setup();
    // Written by an earlier process: this one has met no account yet.
    await store.create(account("todoist"));
    expect(() => provider("todoist").derive(TODOIST_TASK, WINDOW)).toThrow(/before it was loaded/);

    const [listed] = await lazy.loadingProviders(store).listAll();
    expect(listed?.kind).toBe("todoist");
    expect(
      provider("todoist")
        .derive(TODOIST_TASK, WINDOW)
        .tasks.map((task) => task.title),
    ).toEqual(["Renew passport"]);
    expect(() => provider("caldav").derive(VEVENT, WINDOW)).toThrow(/before it was loaded/);
  });

  it("loads through every read that hands the service an account: get, list, create", async () => {
    const { lazy, store, provider } = setup();
    const existing = await store.create(account("caldav"));
    await lazy.loadingProviders(store).get(existing.userId, existing.id);
    expect(provider("caldav").isSeries?.(VEVENT)).toBe(true);
    expect(provider("caldav").derive(VEVENT, WINDOW).events).toHaveLength(3);

    const other = setup();
    await other.lazy.loadingProviders(other.store).create(account("todoist"));
    expect(other.provider("todoist").derive(TODOIST_TASK, WINDOW).tasks).toHaveLength(1);

    const third = setup();
    await third.store.create(account("caldav"));
    await third.lazy.loadingProviders(third.store).list(1);
    expect(third.provider("caldav").isSeries?.(VEVENT)).toBe(true);
  });

  it("keeps the shape of the real providers: only CalDAV writes events", () => {
    const { provider } = setup();
    expect(typeof provider("caldav").createEvent).toBe("function");
    expect(provider("todoist").createEvent).toBeUndefined();
    expect(provider("todoist").isSeries).toBeUndefined();
  });
});
