/**
 * What the briefing and chat tests share: the Ollama test server behind the real model client, a fixed
 * clock (Mon 2 Jun 2025, 07:00 in London), and helpers to seed a user's data.
 */

import type { Database } from "../../db/client.ts";
import { createEvent } from "../../db/queries/events.ts";
import { createTask } from "../../db/queries/tasks.ts";
import { saveCachedForecast } from "../../db/queries/weather.ts";
import type { User } from "../../db/schema/index.ts";
import { resolveModelRoutes } from "../../src/config/model-routes.ts";
import type { Logger } from "../../src/core/briefing/types.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { createModelClient } from "../../src/models/index.ts";
import { createDefaultToolRegistry } from "../../src/tools/index.ts";
import { type OllamaTestServer, type ScriptedToolCall, startOllamaServer } from "../servers/ollama-server.ts";

export const MODEL = "qwen2.5:7b";
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
  return { warnings, warn: (details, message) => warnings.push({ details, message }) };
}

export function testDeps(
  db: Database,
  url: string,
  options: { model?: string; clock?: ReturnType<typeof fixedClock> } = {},
) {
  const clock = options.clock ?? fixedClock(START);
  const logger = recordingLogger();
  return {
    deps: {
      db,
      model: modelClientFor(url, options.model),
      clock,
      tools: createDefaultToolRegistry(),
      logger,
    },
    clock,
    logger,
  };
}

export const call = (name: string, args: Record<string, unknown> = {}): ScriptedToolCall => ({
  name,
  arguments: args,
});

/** The four calls coverage requires of a morning briefing, as a batching model would make them. */
export const MORNING_CALLS = [
  call("list_tasks", { filter: "due_today" }),
  call("list_tasks", { filter: "overdue" }),
  call("list_events", { range: "today" }),
  call("get_weather"),
];

export async function seedTasks(db: Database, user: User): Promise<void> {
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
  db: Database,
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
export async function seedWeather(db: Database, at = new Date("2025-06-02T05:40:00Z")): Promise<void> {
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

/** The text of every message the model was sent in one request. */
export function requestText(request: { messages: Array<{ content?: unknown }> }): string {
  return request.messages
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
}
