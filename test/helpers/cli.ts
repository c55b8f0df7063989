/**
 * Runs `briefbot` commands in-process against a test database, capturing stdout, stderr and the exit code,
 * through the same `runCli` the real binary uses.
 */
import { readFileSync } from "node:fs";
import type { Database, OpenDatabase } from "../../db/client.ts";
import { COMMAND_FAMILIES } from "../../src/cli/commands/index.ts";
import type { CliContext, RegisterCommands } from "../../src/cli/context.ts";
import { runCli, streamOutput } from "../../src/cli/run.ts";
import { type Config, loadConfig } from "../../src/config/config.ts";
import { type Clock, systemClock } from "../../src/core/clock.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliHarnessOptions {
  /** As the process would see it; BRIEFBOT_CONFIG names a real file (e.g. one allowing 127.0.0.1 sources). */
  env?: Record<string, string>;
  clock?: Clock;
  fetch?: typeof fetch;
  families?: RegisterCommands[];
  /** Replaces parts of the loaded configuration, e.g. model routes pointing at a test server. */
  config?: Partial<Config>;
}

export function cliHarness(getDb: () => Database, options: CliHarnessOptions = {}) {
  return async (...argv: string[]): Promise<CliResult> => {
    let stdout = "";
    let stderr = "";
    const streams = {
      stdout: (text: string) => {
        stdout += text;
      },
      stderr: (text: string) => {
        stderr += text;
      },
    };
    const context = async (): Promise<CliContext> => {
      const config: Config = {
        ...loadConfig(options.env ?? {}, (path) => readFileSync(path, "utf8")),
        ...options.config,
      };
      const database: OpenDatabase = {
        get db() {
          return getDb();
        },
        kind: "pglite",
        access: "memory",
        location: "test",
        migrate: async () => {},
        ping: async () => {},
        close: async () => {},
      };
      return {
        // Lazy, so commands that never touch the database need none.
        get db() {
          return getDb();
        },
        database,
        config,
        clock: options.clock ?? systemClock,
        out: streamOutput(streams),
        fetch: options.fetch ?? globalThis.fetch,
      };
    };
    const code = await runCli(argv, options.families ?? COMMAND_FAMILIES, context, streams);
    return { code, stdout, stderr };
  };
}
