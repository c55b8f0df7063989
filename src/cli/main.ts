/**
 * The composition root of the command line: the only place that reads `process.env`, opens the
 * database for a command and closes it afterwards. Everything heavy is imported when a command needs it,
 * so `--help` and `--version` load little more than commander.
 */
import { readFileSync } from "node:fs";
import type { OpenDatabase } from "../../db/client.ts";
import { systemClock } from "../core/clock.ts";
import { COMMAND_FAMILIES } from "./commands/index.ts";
import type { CliContext, ContextOptions } from "./context.ts";
import { runCli, streamOutput } from "./run.ts";
import { packageVersion } from "./version.ts";

const streams = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};

const argv = process.argv.slice(2);
let opened: OpenDatabase | undefined;
let context: Promise<CliContext> | undefined;

async function createContext(options: ContextOptions = {}): Promise<CliContext> {
  const { loadConfig } = await import("../config/config.ts");
  const config = loadConfig(process.env, (path) => readFileSync(path, "utf8"));
  const bot = options.role === "bot";
  const out = streamOutput(streams);
  if (options.database === false) {
    const unused = () => {
      throw new Error("this command does not use the database");
    };
    return {
      get db() {
        return unused();
      },
      get database() {
        return unused();
      },
      config,
      clock: systemClock,
      out,
      fetch: globalThis.fetch,
    };
  }
  // The bot's console is the operator's view of start-up; a command's stdout stays clean for scripts.
  const progress = bot ? out.line : out.progress;
  const { openDatabase } = await import("../../db/client.ts");
  if (bot) {
    progress(
      config.database.url
        ? "briefbot: connecting to PostgreSQL…"
        : `briefbot: opening the embedded database in ${config.database.dataDir}…`,
    );
  }
  opened = await openDatabase({
    databaseUrl: config.database.url,
    dataDir: config.database.dataDir,
    role: bot ? "bot" : "cli",
    command: commandName(argv),
    onProgress: (line) => progress(`briefbot: ${line}`),
  });
  await opened.migrate();
  return { db: opened.db, database: opened, config, clock: systemClock, out, fetch: globalThis.fetch };
}

/** "calendar add", never its arguments: they can be secret addresses. */
function commandName(words: string[]): string {
  return words
    .filter((word) => !word.startsWith("-"))
    .slice(0, 2)
    .join(" ");
}

const exitCode = await runCli(
  argv,
  COMMAND_FAMILIES,
  (options) => (context ??= createContext(options)),
  streams,
  {
    version: packageVersion(),
  },
);
try {
  await opened?.close();
} catch (error) {
  streams.stderr(
    `briefbot: closing the database failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
}
// Leftover sockets or timers (a half-open HTTP keep-alive, a library's retry) must not keep a finished
// command — or a bot that failed to start — alive: flush what was written, then exit.
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
process.exit(exitCode);
