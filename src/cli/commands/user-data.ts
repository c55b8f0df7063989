/**
 * `briefbot user export <name>` writes everything stored about a user as one JSON document (subscription
 * addresses redacted unless `--include-secrets`); `briefbot user remove <name>` deletes all of it after the
 * name is typed again at a terminal, or with `--yes` in scripts.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { Command } from "commander";
import { requireUserByName } from "../../../db/queries/users.ts";
import { createForgetQuestions } from "../../../db/stores/forget-questions.ts";
import { createUserData } from "../../../db/stores/user-data.ts";
import { createUserDataService, type UserDataService } from "../../core/user-data/index.ts";
import { type CliContext, CliError, type ContextFactory, withContext } from "../context.ts";

/** Where the typed confirmation comes from; tests pass their own. */
export interface ConfirmationInput {
  input: Readable;
  /** Only a person at a terminal can confirm by typing; anything else needs `--yes`. */
  isTTY: boolean;
}

interface ExportOptions {
  out?: string;
  includeSecrets?: boolean;
}

export function createUserDataCommands(
  terminal?: ConfirmationInput,
): (user: Command, context: ContextFactory) => void {
  return (user, context) => {
    user
      .command("export <name>")
      .description("write everything stored about a user as one JSON document (stdout, or --out)")
      .option("--out <file>", "write to this file instead of stdout (never overwrites one)")
      .option("--include-secrets", "calendar and feed addresses in full (redacted by default)")
      .action((name: string, options: ExportOptions) =>
        withContext(context, (ctx) => exportUser(ctx, name, options)),
      );

    user
      .command("remove <name>")
      .description("delete a user and everything stored about them (asks first)")
      .option("--yes", "do not ask (scripts)")
      .action((name: string, options: { yes?: boolean }) =>
        withContext(context, (ctx) =>
          removeUser(
            ctx,
            name,
            options,
            terminal ?? { input: process.stdin, isTTY: process.stdin.isTTY === true },
          ),
        ),
      );
  };
}

export const registerUserDataCommands = createUserDataCommands();

function service(ctx: CliContext): UserDataService {
  // The CLI only exports and removes; the chat's forget questions are not its to ask.
  return createUserDataService(createUserData(ctx.db), createForgetQuestions(ctx.db), ctx.clock);
}

async function exportUser(ctx: CliContext, name: string, options: ExportOptions): Promise<void> {
  const target = await requireUserByName(ctx.db, name);
  const exported = await service(ctx).exportUser(target.id, {
    includeSecrets: options.includeSecrets === true,
  });
  if (!exported) throw new CliError(`no user named "${name}"`);
  if (options.out === undefined) {
    ctx.out.line(new TextDecoder().decode(exported.bytes).trimEnd());
    return;
  }
  const path = resolve(options.out);
  // Personal data: readable by the owner only, and an existing file is never replaced by accident.
  await writeFile(path, exported.bytes, { flag: "wx", mode: 0o600 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST") throw new CliError(`${path} already exists; choose another --out`);
    throw new CliError(`could not write ${path}: ${error.message}`, 1);
  });
  ctx.out.line(
    `wrote ${target.name}'s data to ${path} (${formatSize(exported.bytes.byteLength)}, ${
      options.includeSecrets ? "secrets included" : "secrets redacted"
    })`,
  );
}

async function removeUser(
  ctx: CliContext,
  name: string,
  options: { yes?: boolean },
  terminal: ConfirmationInput,
): Promise<void> {
  const target = await requireUserByName(ctx.db, name);
  if (!options.yes) {
    if (!terminal.isTTY)
      throw new CliError(
        `not removing ${target.name}: not at a terminal to confirm; add --yes to remove anyway`,
      );
    ctx.out.line(
      `This deletes ${target.name} and everything stored about them: tasks, notes, projects, events, subscriptions, briefings, conversations. It cannot be undone.`,
    );
    ctx.out.line(`Type the name (${target.name}) to confirm:`);
    const typed = await readLine(terminal.input);
    if (typed?.trim() !== target.name)
      throw new CliError(`nothing removed: "${typed?.trim() ?? ""}" is not ${target.name}`, 1);
  }
  const counts = await service(ctx).remove(target.id);
  ctx.out.line(`removed ${target.name}`);
  for (const [table, count] of Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))) {
    if (count > 0) ctx.out.line(`  ${table.padEnd(18)} ${count}`);
  }
}

async function readLine(input: Readable): Promise<string | undefined> {
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    const next = await reader[Symbol.asyncIterator]().next();
    return next.done ? undefined : next.value;
  } finally {
    reader.close();
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
