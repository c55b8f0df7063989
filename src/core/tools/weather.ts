import { z } from "zod";
import { type DailyForecast, readForecast } from "../weather/forecast.ts";
import { defineTool } from "./define-tool.ts";
import { asOfStamp, compact } from "./format.ts";

/** Words that mean "wherever the user is" rather than a place name. */
const HOME_WORDS = new Set(["home", "here", "my location", "current", "local", "me"]);

export const getWeatherTool = defineTool({
  name: "get_weather",
  description:
    "The stored forecast for the user's saved location: today's low/high °C, conditions and chance of rain, " +
    "the temperature now, the next days. as_of: when it was fetched.",
  readOnly: true,
  input: z.object({
    location: z
      .string()
      .trim()
      .max(100)
      .optional()
      .describe('Leave out (or "home") for the user\'s saved location'),
  }),
  async handler({ location }, context) {
    const saved = context.user.locationName;
    if (location && !HOME_WORDS.has(location.toLowerCase()) && !sameLocation(location, saved)) {
      throw new Error(
        `only the user's saved location (${saved ?? "none set"}) has a forecast, not "${location}"`,
      );
    }
    const now = context.clock.now();
    const weather = await readForecast(context.sources, context.user, now);
    if (!weather.available) throw new Error(weather.reason);
    const [today, ...later] = weather.days;
    const asOf = asOfStamp(new Date(weather.asOf), context.user.timeZone, now);
    return compact({
      location: weather.location,
      as_of: asOf,
      // Only an old forecast says so: the last good one stands in, and the briefing must say how old it is.
      stale: weather.stale ? true : null,
      note: weather.stale
        ? `This is the last forecast fetched, as of ${asOf}; it could not be refreshed since.`
        : null,
      unit: "°C",
      now:
        weather.current && weather.current.temperatureC !== null
          ? { temperature: round(weather.current.temperatureC), summary: weather.current.description }
          : null,
      today: today ? dayView(today) : null,
      next_days: later.length > 0 ? later.slice(0, 3).map(dayView) : null,
    });
  },
});

function dayView(day: DailyForecast): Record<string, unknown> {
  return compact({
    date: day.date,
    summary: day.description,
    low: day.minTemperatureC === null ? null : round(day.minTemperatureC),
    high: day.maxTemperatureC === null ? null : round(day.maxTemperatureC),
    precipitation_chance: day.precipitationProbabilityPercent,
  });
}

/** Whole degrees: the model rounds anyway, and the grounding check then finds the same number. */
function round(value: number): number {
  return Math.round(value);
}

function sameLocation(asked: string, saved: string | null): boolean {
  if (!saved) return false;
  const a = asked.toLowerCase();
  const b = saved.toLowerCase();
  return b.includes(a) || a.includes(b.split(",")[0]?.trim() ?? b);
}
