import {
  type ModelRoutesFileInput,
  ModelRoutesFileSchema,
  type ResolvedModelRoutes,
  resolveModelRoutes,
} from "../../src/config/model-routes.ts";
import type { ModelRole, ToolSchema } from "../../src/core/model.ts";
import { createModelClient, type ModelClientOptions, type ModelEvent } from "../../src/models/router.ts";

/** Routes from a config-file-shaped object, through the real schema. */
export function routesFrom(file: ModelRoutesFileInput): ResolvedModelRoutes {
  return resolveModelRoutes(ModelRoutesFileSchema.parse(file), {
    ollamaHost: "127.0.0.1:1",
    model: "unused",
  });
}

/** Every role on one endpoint and model. */
export function singleRoute(url: string, model = "qwen2.5:7b", concurrency = 1): ResolvedModelRoutes {
  const route = { endpoint: "gpu0", model };
  return routesFrom({
    endpoints: [{ name: "gpu0", url, concurrency }],
    routes: { interactive: route, briefing: route, background: route },
  });
}

/** A client with instant backoff that records its events. */
export function testClient(routes: ResolvedModelRoutes, options: Partial<ModelClientOptions> = {}) {
  const events: ModelEvent[] = [];
  const sleeps: number[] = [];
  const client = createModelClient({
    routes,
    retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { client, events, sleeps };
}

export const weatherTool: ToolSchema = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

export const eventsTool: ToolSchema = {
  type: "function",
  function: {
    name: "list_events",
    description: "Calendar events for a day",
    parameters: { type: "object", properties: { day: { type: "string" } } },
  },
};

export const ask = (role: ModelRole, content = "hi") => ({
  role,
  messages: [{ role: "user" as const, content }],
});

/** Resolves once `predicate` holds, polling the event loop (no wall-clock assertions). */
export async function until(predicate: () => boolean, what = "condition"): Promise<void> {
  for (let i = 0; i < 2000; i += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}
