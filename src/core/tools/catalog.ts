/** The product's tools, registered once; runs get allowlisted subsets of this registry. */

import { eventTools } from "./events.ts";
import { getRssItemsTool } from "./feeds.ts";
import { noteTools } from "./notes.ts";
import { projectTools } from "./projects.ts";
import { createToolRegistry, type ToolRegistry } from "./registry.ts";
import { taskTools } from "./tasks.ts";
import { getWeatherTool } from "./weather.ts";

export const ALL_TOOLS = [
  ...taskTools,
  ...eventTools,
  getWeatherTool,
  getRssItemsTool,
  ...projectTools,
  ...noteTools,
];

export function createDefaultToolRegistry(): ToolRegistry {
  return createToolRegistry(ALL_TOOLS);
}
