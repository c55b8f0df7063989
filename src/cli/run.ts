import { Command, CommanderError } from "commander";
import { NotFoundError } from "../../db/queries/users.ts";
import { ConfigError } from "../config/config.ts";
import { NotFoundError as CoreNotFoundError, errorMessage } from "../core/errors.ts";
import { LocationError } from "../sources/weather/set-location.ts";
import { CliError, type ContextFactory, type Output, type RegisterCommands } from "./context.ts";

export interface CliStreams {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export function streamOutput(streams: CliStreams): Output {
  return {
    line: (text) => streams.stdout(`${text}\n`),
    json: (value) => streams.stdout(`${JSON.stringify(value, null, 2)}\n`),
    progress: (text) => streams.stderr(`${text}\n`),
  };
}

/**
 * Builds the program from command families and runs one invocation. Every failure becomes one line on
 * stderr and an exit code: 2 for bad input (the user can fix it), 1 for anything else.
 */
export async function runCli(
  argv: string[],
  families: RegisterCommands[],
  context: ContextFactory,
  streams: CliStreams,
): Promise<number> {
  const program = new Command("briefbot")
    .description("Grounded briefings and follow-ups in Telegram, Slack and the terminal")
    .exitOverride()
    .configureOutput({ writeOut: streams.stdout, writeErr: streams.stderr })
    .showSuggestionAfterError(true);
  for (const register of families) register(program, context);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    return reportFailure(error, streams);
  }
}

function reportFailure(error: unknown, streams: CliStreams): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message; help and version are not failures.
    if (
      error.code === "commander.helpDisplayed" ||
      error.code === "commander.version" ||
      error.code === "commander.help"
    ) {
      return 0;
    }
    return 2;
  }
  if (error instanceof ConfigError) {
    for (const problem of error.problems) streams.stderr(`${problem}\n`);
    return 2;
  }
  if (error instanceof CliError) {
    streams.stderr(`briefbot: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof LocationError) {
    streams.stderr(`briefbot: ${error.message}\n`);
    // The lookup service failing is not the user's input: try again later.
    return error.reason === "unavailable" ? 1 : 2;
  }
  if (error instanceof NotFoundError || error instanceof CoreNotFoundError) {
    streams.stderr(`briefbot: ${error.message}\n`);
    return 2;
  }
  streams.stderr(`briefbot: ${errorMessage(error).split("\n")[0]}\n`);
  return 1;
}
