import { findUserByName } from "../../../db/queries/users.ts";
import type { WeatherResult } from "../../core/weather/forecast.ts";
import { getWeather } from "../../sources/weather/get-weather.ts";
import { CliError, type RegisterCommands, withContext } from "../context.ts";

interface WeatherOptions {
  user: string;
  json?: boolean;
}

export const registerWeatherCommands: RegisterCommands = (program, context) => {
  program
    .command("weather")
    .description("a user's forecast (cached; refreshed when older than 30 minutes)")
    .requiredOption("--user <name>", "whose location")
    .option("--json", "machine-readable output")
    .action((options: WeatherOptions) =>
      withContext(context, async (ctx) => {
        const user = await findUserByName(ctx.db, options.user);
        if (!user) throw new CliError(`no user named "${options.user}" (see: briefbot user list)`);
        const result = await getWeather(ctx.db, user, {
          fetch: ctx.fetch,
          clock: ctx.clock,
          forecastUrl: ctx.config.openMeteo.forecastUrl,
        });
        if (options.json) return ctx.out.json(result);
        // Not a bad input, but the operator should see it failed: stderr and exit 1.
        if (!result.available) throw new CliError(result.reason, 1);
        for (const line of formatWeather(result)) ctx.out.line(line);
      }),
    );
};

export function formatWeather(result: WeatherResult): string[] {
  if (!result.available) return [result.reason];
  const lines = [
    `${result.location}, as of ${result.asOfLocal}${result.stale ? ` (stale: ${result.staleReason ?? "old data"})` : ""}`,
  ];
  if (result.current) {
    lines.push(
      `  now        ${formatTemperature(result.current.temperatureC)}, ${result.current.description}`,
    );
  }
  for (const day of result.days) {
    const rain =
      day.precipitationProbabilityPercent === null
        ? ""
        : `, ${day.precipitationProbabilityPercent}% chance of rain`;
    lines.push(
      `  ${day.date} ${formatTemperature(day.minTemperatureC)} to ${formatTemperature(day.maxTemperatureC)}, ${day.description}${rain}`,
    );
  }
  return lines;
}

function formatTemperature(value: number | null): string {
  return value === null ? "?" : `${Math.round(value)}°C`;
}
