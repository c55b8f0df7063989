/**
 * The composition root of the command line: the only place that reads `process.env`, opens the
 * database for a command and closes it afterwards.
 */
import { readFileSync } from "node:fs";
import { type OpenDatabase, openDatabase } from "../../db/client.ts";
import { loadConfig } from "../config/config.ts";
import { systemClock } from "../core/clock.ts";
import { COMMAND_FAMILIES } from "./commands/index.ts";
import type { CliContext } from "./context.ts";
import { runCli, streamOutput } from "./run.ts";

const streams = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};

let opened: OpenDatabase | undefined;
let context: Promise<CliContext> | undefined;

async function createContext(): Promise<CliContext> {
  const config = loadConfig(process.env, (path) => readFileSync(path, "utf8"));
  opened = await openDatabase({ databaseUrl: config.database.url, dataDir: config.database.dataDir });
  await opened.migrate();
  return {
    db: opened.db,
    database: opened,
    config,
    clock: systemClock,
    out: streamOutput(streams),
    fetch: globalThis.fetch,
  };
}

const exitCode = await runCli(
  process.argv.slice(2),
  COMMAND_FAMILIES,
  () => (context ??= createContext()),
  streams,
);
await opened?.close();
process.exitCode = exitCode;
