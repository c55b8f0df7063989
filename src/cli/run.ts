import { Command, CommanderError } from "commander";
import { errorCode, errorMessage } from "../core/errors.ts";
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
  const code = errorCode(error);
  if (code === "config_invalid" && error instanceof Error && "problems" in error) {
    for (const problem of error.problems as string[]) streams.stderr(`briefbot: ${problem}\n`);
    return 2;
  }
  streams.stderr(`briefbot: ${errorMessage(error).split("\n")[0]}\n`);
  return exitStatusFor(code, error);
}

/**
 * Exit statuses by error code (codes are stable; class names and messages are not): 2 means the command or
 * its input is wrong and repeating it will not help, 1 that it may work later. Matching codes keeps this
 * module — loaded for every `--help` — from loading the modules that define the errors.
 */
const EXIT_STATUS_BY_CODE: Readonly<Record<string, 1 | 2>> = {
  not_found: 2,
  location_invalid: 2,
  // The lookup service failing is not the user's input: try again later.
  location_unavailable: 1,
};

function exitStatusFor(code: string | undefined, error: unknown): number {
  // A start-up failure says itself whether the configuration (2) or the world (1) is at fault.
  if (code === "start_failed" && error instanceof Error && "exitCode" in error) {
    return error.exitCode === 2 ? 2 : 1;
  }
  return (code === undefined ? undefined : EXIT_STATUS_BY_CODE[code]) ?? 1;
}
