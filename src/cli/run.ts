import { Command, CommanderError } from "commander";
import { errorMessage } from "../core/errors.ts";
import { CliError, type CommandFamily, type ContextFactory, type Output } from "./context.ts";

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

export interface RunCliOptions {
  /** Shown by `--version`. */
  version?: string;
}

/**
 * Builds the program from command families and runs one invocation. Only the family of the command being
 * run is loaded; the others are listed for `--help` from their names and descriptions. Every failure
 * becomes one line on stderr starting "briefbot: ", and an exit code: 2 for bad input (the user can fix
 * it), 1 for anything else.
 */
export async function runCli(
  argv: string[],
  families: CommandFamily[],
  context: ContextFactory,
  streams: CliStreams,
  options: RunCliOptions = {},
): Promise<number> {
  const program = new Command("briefbot")
    .description("Grounded briefings and follow-ups in Telegram, Slack and the terminal")
    .exitOverride()
    .configureOutput({
      writeOut: streams.stdout,
      writeErr: streams.stderr,
      // Commander's own "error: …" lines get the same prefix as every other failure.
      outputError: (text, write) =>
        write(
          `briefbot: ${text
            .replace(/^error: /, "")
            .trim()
            .replace(/\n/g, " ")}\n`,
        ),
    })
    .showSuggestionAfterError(true);
  if (options.version) program.version(options.version, "-V, --version", "print the version");
  try {
    const invoked = invokedCommand(argv);
    for (const family of families) {
      if (typeof family === "function") family(program, context);
      else if (family.name === invoked) (await family.load())(program, context);
      else program.command(family.name).description(family.description);
    }
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    return reportFailure(error, streams);
  }
}

/** The top-level command a command line runs (`help user` asks about `user`). */
function invokedCommand(argv: string[]): string | undefined {
  const words = argv.filter((word) => !word.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
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
  if (error instanceof CliError) {
    streams.stderr(`briefbot: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof Error && error.name === "ConfigError" && "problems" in error) {
    for (const problem of error.problems as string[]) streams.stderr(`briefbot: ${problem}\n`);
    return 2;
  }
  const code = error instanceof Error ? exitCodeFor(error) : undefined;
  streams.stderr(`briefbot: ${errorMessage(error).split("\n")[0]}\n`);
  return code ?? 1;
}

/**
 * Known failures by class name. Matching names rather than classes keeps this module — loaded for every
 * `--help` — from loading the database, configuration and weather modules that define them.
 */
function exitCodeFor(error: Error): number | undefined {
  switch (error.name) {
    case "NotFoundError":
      return 2;
    case "LocationError":
      // The lookup service failing is not the user's input: try again later.
      return (error as Error & { reason?: string }).reason === "unavailable" ? 1 : 2;
    case "StartError":
      return (error as Error & { exitCode?: number }).exitCode ?? 1;
    default:
      return undefined;
  }
}
