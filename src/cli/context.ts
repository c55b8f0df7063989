import type { Command } from "commander";
import type { Database, OpenDatabase } from "../../db/client.ts";
import type { Config } from "../config/config.ts";
import type { Clock } from "../core/clock.ts";
import { BriefbotError } from "../core/errors.ts";

/** Where a command writes: people read lines, scripts read `--json`. */
export interface Output {
  line(text: string): void;
  json(value: unknown): void;
  /** Progress on long commands (stderr, so `--json` output stays clean). */
  progress(text: string): void;
}

/** What every command gets; built once per invocation by `src/cli/main.ts`. */
export interface CliContext {
  db: Database;
  /** The open database itself, for commands that run long (start) and need ping/kind. */
  database: OpenDatabase;
  config: Config;
  clock: Clock;
  out: Output;
  fetch: typeof fetch;
}

/** What a command needs of its context beyond the defaults. */
export interface ContextOptions {
  /**
   * "bot": this process becomes the owner of the embedded database (`start`). Other commands work through
   * a running bot's socket, or own the folder themselves while no bot runs.
   */
  role?: "bot" | "cli";
  /** False for commands that never touch the database (`models`): none is opened. */
  database?: boolean;
}

export type ContextFactory = (options?: ContextOptions) => Promise<CliContext>;

/** Adds one command family to the program; commands open the context lazily (only when they run). */
export type RegisterCommands = (program: Command, context: ContextFactory) => void;

/**
 * A family `--help` can list without loading it: its module (and what that imports — Bolt, grammY, the
 * calendar parser…) loads only when one of its commands runs.
 */
export interface LazyCommandFamily {
  /** The top-level command it adds. */
  name: string;
  /** As the family's own module describes it (a test keeps the two equal). */
  description: string;
  load(): Promise<RegisterCommands>;
}

export type CommandFamily = RegisterCommands | LazyCommandFamily;

/** A bad input: printed as one line on stderr, exit code 2, nothing written. */
export class CliError extends BriefbotError {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super("cli_usage", message);
  }
}

/** Opens the context only when a command actually runs, so `--help` never touches the database. */
export async function withContext(
  context: ContextFactory,
  run: (ctx: CliContext) => Promise<void>,
  options?: ContextOptions,
): Promise<void> {
  await run(await context(options));
}
