/**
 * What the briefing and chat tests share: the core composed over a test store's ports — the in-memory ports
 * (`describeInMemory`), or a real database's stores — with a model (the in-process scripted model, or the
 * Ollama test server behind the real client), a fixed clock (Mon 2 Jun 2025, 07:00 in London), and helpers
 * to seed a user's data. Every helper taking `db` takes either store.
 */

import { resolveModelRoutes } from "../../src/config/model-routes.ts";
import { type Clock, fixedClock } from "../../src/core/clock.ts";
import { type CoreOptions, composeCore } from "../../src/core/compose.ts";
import type { User } from "../../src/core/domain.ts";
import { sequentialIds } from "../../src/core/ids.ts";
import type { Logger } from "../../src/core/logger.ts";
import type { ModelClient } from "../../src/core/model.ts";
import type { Ports, Sources } from "../../src/core/ports.ts";
import type { ToolContext } from "../../src/core/tools/define-tool.ts";
import { createModelClient, estimatePromptTokens } from "../../src/models/index.ts";
import {
  addFeed,
  createEvent,
  createTask,
  portsOf,
  saveCachedForecast,
  saveFeedSync,
  type TestStore,
} from "../helpers/test-store.ts";
import { type OllamaTestServer, type ScriptedToolCall, startOllamaServer } from "../servers/ollama-server.ts";

export const MODEL = "qwen2.5:7b";
/** The process name the test core works under: runs a test claims for it must carry it. */
export const TEST_OWNER = "test-process";
export const SMALL_MODEL = "llama3.2:1b";
/** 07:00 on Monday 2 June 2025 in Europe/London (BST). */
export const START = "2025-06-02T06:00:00Z";
export const TODAY = "2025-06-02";

export async function startModelServer(): Promise<OllamaTestServer> {
  return startOllamaServer({ models: { [MODEL]: {}, [SMALL_MODEL]: { parameterSize: "1.2B" } } });
}

export function modelClientFor(url: string, model = MODEL) {
  return createModelClient({
    routes: resolveModelRoutes(undefined, { ollamaHost: url, model }),
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

export function recordingLogger(): Logger & { warnings: Array<{ details: object; message: string }> } {
  const warnings: Array<{ details: object; message: string }> = [];
  return {
    warnings,
    info: () => {},
    warn: (details, message) => warnings.push({ details, message }),
    error: (details, message) => warnings.push({ details, message }),
  };
}

/** What a tool handler gets when `user` acts: the ports of `db` (either store) and a clock. */
export function toolContextFor(db: TestStore, user: User, clock: Clock = fixedClock(START)): ToolContext {
  const { records, sources } = portsOf(db);
  return { user, clock, records, sources };
}

/**
 * The core as `composeCore` builds it for the app, over the ports of `db` (either store), with `model` (a scripted
 * model, or `modelClientFor(server.url)`); warnings are recorded, ids are `runner_1`, `runner_2`, ….
 */
export function testCore<MODEL extends ModelClient, CLOCK extends Clock = ReturnType<typeof fixedClock>>(
  db: TestStore,
  model: MODEL,
  options: Partial<Pick<CoreOptions, "tools" | "config" | "timer" | "geocoder" | "owner" | "accounts">> & {
    clock?: CLOCK;
    /** `Sources.refresh`, e.g. `createSourceRefresher` against the Open-Meteo test server; default none. */
    refresh?: Sources["refresh"];
    /** Changes the ports the core gets (a failing store, say). */
    wrapPorts?: (ports: Ports) => Ports;
  } = {},
) {
  const clock = options.clock ?? (fixedClock(START) as unknown as CLOCK);
  const logger = recordingLogger();
  const stores = portsOf(db);
  const given: Ports = options.refresh
    ? { ...stores, sources: { ...stores.sources, refresh: options.refresh } }
    : stores;
  const ports = options.wrapPorts ? options.wrapPorts(given) : given;
  const core = composeCore({
    ports,
    model,
    clock,
    ids: sequentialIds("runner"),
    logger,
    config: options.config ?? {},
    owner: options.owner ?? TEST_OWNER,
    tools: options.tools,
    timer: options.timer,
    geocoder: options.geocoder,
    accounts: options.accounts,
    // As the app builds it: every request kept inside its share of num_ctx.
    estimatePromptTokens,
  });
  return { ...core, ports, model, clock, logger };
}

export const call = (name: string, args: Record<string, unknown> = {}): ScriptedToolCall => ({
  name,
  arguments: args,
});

/** The calls the runner makes before a morning briefing's first model request (receipts first), in order. */
export const MORNING_COVERAGE: Array<[string, Record<string, unknown>]> = [
  ["list_tasks", { filter: "due_today" }],
  ["list_tasks", { filter: "overdue" }],
  ["list_tasks", { filter: "high_priority" }],
  ["list_events", { range: "today" }],
  ["get_weather", {}],
  ["get_rss_items", { max: 8 }],
  ["list_projects", { status: "active" }],
];

/** The status row of a morning briefing whose coverage calls all succeeded. */
export const MORNING_STATUS_ROW =
  "✓ checked calendar · ✓ looked at tasks · ✓ pulled weather · ✓ read the news · ✓ reviewed projects";

export async function seedTasks(db: TestStore, user: User): Promise<void> {
  await createTask(db, {
    userId: user.id,
    title: "Renew passport",
    dueDate: TODAY,
    dueTime: "14:30",
    priority: "high",
  });
  await createTask(db, { userId: user.id, title: "File expenses", dueDate: "2025-05-30" });
}

export async function seedEvent(
  db: TestStore,
  user: User,
  title = "Dentist",
  start = "2025-06-02T08:00:00Z",
): Promise<void> {
  await createEvent(db, user.id, {
    title,
    startsAt: new Date(start),
    endsAt: new Date(new Date(start).getTime() + 30 * 60_000),
    timeZone: user.timeZone,
  });
}

/** A cached forecast for the user's place (London), as the background refresh would leave it. */
export async function seedWeather(db: TestStore, at = new Date("2025-06-02T05:40:00Z")): Promise<void> {
  await saveCachedForecast(
    db,
    51.51,
    -0.13,
    {
      latitude: 51.51,
      longitude: -0.13,
      timezone: "Europe/London",
      current: { time: "2025-06-02T06:30", temperature_2m: 11.2, weather_code: 2 },
      daily: {
        time: ["2025-06-02", "2025-06-03"],
        temperature_2m_max: [16.4, 18],
        temperature_2m_min: [8.1, 10],
        precipitation_probability_max: [20, 60],
        weather_code: [2, 61],
      },
    },
    at,
  );
}

export const LONDON = {
  timeZone: "Europe/London",
  locationName: "London",
  latitude: 51.51,
  longitude: -0.13,
};

export { requestText } from "../helpers/scripted-model.ts";

/** A feed of the user's whose one item carries `injection`: outside text telling the model what to do. */
export async function seedInjectedFeed(db: TestStore, user: User, injection: string): Promise<void> {
  const feed = await addFeed(db, { userId: user.id, url: `https://news.example/${user.id}.rss` });
  await saveFeedSync(db, feed, {
    title: "Totally Normal News",
    etag: null,
    lastModified: null,
    at: new Date("2025-06-02T05:00:00Z"),
    items: [
      {
        guid: "x",
        title: "Markets open flat",
        link: null,
        summary: injection,
        publishedAt: new Date("2025-06-02T04:30:00Z"),
      },
    ],
  });
}
