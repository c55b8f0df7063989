/**
 * `briefbot account …`: a user's CalDAV and Todoist accounts. `add` discovers the server's collections
 * through the provider and stores the password or token sealed with BRIEFBOT_SECRET_KEY; no command ever
 * prints a secret. Without a key, every account command refuses in one line naming the variable.
 */
import { readFileSync } from "node:fs";
import { findUserByName } from "../../../db/queries/users.ts";
import { createAccounts, createLeases } from "../../../db/stores/index.ts";
import { buildAccountService } from "../../build-core.ts";
import type { AccountProvider } from "../../core/accounts/ports.ts";
import type { AccountService } from "../../core/accounts/service.ts";
import type { Account, AccountKind } from "../../core/domain.ts";
import { errorMessage } from "../../core/errors.ts";
import { silentLogger } from "../../core/logger.ts";
import { redactAddress, redactAddressesIn } from "../../core/redact.ts";
import { newOwnerId } from "../../runtime/process-lease.ts";
import { createSecretCipher, NO_SECRET_KEY_TEXT } from "../../sources/accounts/secret-cipher.ts";
import { TODOIST_API_URL } from "../../sources/accounts/todoist/todoist-provider.ts";
import { createSourceLeases, sourceLeaseName } from "../../sources/source-lease.ts";
import { type CliContext, CliError, type RegisterCommands, withContext } from "../context.ts";
import { parsePositiveInt } from "../parse.ts";
import { plural } from "../plural.ts";

interface AddOptions {
  user: string;
  username?: string;
  passwordFile?: string;
  tokenFile?: string;
  label?: string;
  collections?: string;
  url?: string;
}

/** The commands over these providers (tests hand in their own; the product uses the build's). */
export function accountCommands(providers?: readonly AccountProvider[]): RegisterCommands {
  return (program, context) => {
    const account = program.command("account").description("a user's CalDAV and Todoist accounts");
    const service = (ctx: CliContext): AccountService => {
      if (!ctx.config.secretKey) throw new CliError(NO_SECRET_KEY_TEXT);
      return buildAccountService({
        db: ctx.db,
        config: ctx.config,
        clock: ctx.clock,
        logger: silentLogger,
        ...(providers ? { providers } : {}),
      });
    };
    const add = account
      .command("add")
      .description("connect an account (its collections are discovered first)");

    add
      .command("caldav <url>")
      .description("a CalDAV server: Nextcloud, Radicale, Fastmail, iCloud (calendars only)")
      .requiredOption("--user <name>", "whose account")
      .requiredOption("--username <name>", "the CalDAV user name")
      .requiredOption("--password-file <file>", "a file holding the password (an app password where offered)")
      .option("--label <label>", "how receipts name it (default: the server's host)")
      .option("--collections <names>", "comma-separated collections to sync (default: all)")
      .action((url: string, options: AddOptions) =>
        withContext(context, (ctx) =>
          addAccount(
            ctx,
            service(ctx),
            "caldav",
            url,
            options.username ?? null,
            options.passwordFile,
            options,
          ),
        ),
      );
    add
      .command("todoist")
      .description("a Todoist account, with a personal API token")
      .requiredOption("--user <name>", "whose account")
      .requiredOption(
        "--token-file <file>",
        "a file holding the API token (Settings → Integrations → Developer)",
      )
      .option("--url <base>", "the API's base URL (the client adds /api/v1)", TODOIST_API_URL)
      .option("--label <label>", "how receipts name it", "Todoist")
      .option("--collections <names>", "comma-separated projects to sync (default: all)")
      .action((options: AddOptions) =>
        withContext(context, (ctx) =>
          addAccount(ctx, service(ctx), "todoist", options.url ?? "", null, options.tokenFile, options),
        ),
      );

    account
      .command("list")
      .description("accounts with their collections, last sync and last error (never a secret)")
      .option("--user <name>", "only this user's")
      .option("--json", "as JSON")
      .action((options: { user?: string; json?: boolean }) =>
        withContext(context, async (ctx) => {
          const store = createAccounts(ctx.db);
          const owner = options.user === undefined ? undefined : await requireUser(ctx, options.user);
          const rows = owner ? await store.list(owner.id) : await store.listAll();
          if (options.json) return ctx.out.json(rows.map(shown));
          if (rows.length === 0) return ctx.out.line("no accounts");
          for (const row of rows) for (const line of describe(row)) ctx.out.line(line);
        }),
      );

    account
      .command("remove <id>")
      .description(
        "disconnect an account: its mirrored tasks and events go with it (nothing on the server changes)",
      )
      .requiredOption("--user <name>", "whose account")
      .action((id: string, options: { user: string }) =>
        withContext(context, async (ctx) => {
          const owner = await requireUser(ctx, options.user);
          const accountId = parsePositiveInt("<id>", id);
          if (!(await createAccounts(ctx.db).remove(owner.id, accountId)))
            throw new CliError(`${owner.name} has no account ${accountId} (see: briefbot account list)`);
          ctx.out.line(`removed account ${accountId}`);
        }),
      );

    account
      .command("sync")
      .description("sync accounts now, with a line per collection")
      .option("--user <name>", "only this user's")
      .option("--account <id>", "only this account")
      .action((options: { user?: string; account?: string }) =>
        withContext(context, async (ctx) => {
          const accounts = service(ctx);
          const store = createAccounts(ctx.db);
          const owner = options.user === undefined ? undefined : await requireUser(ctx, options.user);
          let rows = owner ? await store.list(owner.id) : await store.listAll();
          if (options.account !== undefined) {
            const wanted = parsePositiveInt("--account", options.account);
            rows = rows.filter((row) => row.id === wanted);
            if (rows.length === 0) throw new CliError(`no account ${wanted} (see: briefbot account list)`);
          }
          if (rows.length === 0) return ctx.out.line("no accounts to sync");
          // One sync per account across processes: a running bot's background sync is not doubled.
          const leases = createSourceLeases(createLeases(ctx.db), {
            owner: newOwnerId("cli"),
            clock: ctx.clock,
          });
          let failed = 0;
          for (const row of rows) {
            ctx.out.progress(`syncing account ${row.id} (${row.label})…`);
            const outcome = await leases.exclusive(sourceLeaseName.account(row.id), () =>
              accounts.syncAccount(row, (line) =>
                ctx.out.progress(
                  `  ${line.name}: ${line.changed} changed, ${line.removed} removed${line.full ? " (full)" : ""}, ${plural(line.requests, "request")}, ${plural(line.bytes, "byte")}${line.skipped.length > 0 ? `; skipped ${line.skipped.join("; ")}` : ""}`,
                ),
              ),
            );
            if (!outcome.ran) {
              ctx.out.line(
                `account ${row.id} (${row.label}): skipped, another process (${outcome.holder ?? "unknown"}) is syncing it`,
              );
              continue;
            }
            const report = outcome.value;
            if (report.error) {
              failed += 1;
              ctx.out.line(`account ${row.id} (${row.label}): failed: ${redactAddressesIn(report.error)}`);
            } else {
              const requests = report.collections.reduce((sum, line) => sum + line.requests, 0);
              const bytes = report.collections.reduce((sum, line) => sum + line.bytes, 0);
              const changed = report.collections.reduce((sum, line) => sum + line.changed, 0);
              ctx.out.line(
                `account ${row.id} (${row.label}): ${changed} changed in ${plural(report.collections.length, "collection")}, ${plural(requests, "request")}, ${plural(bytes, "byte")}`,
              );
            }
          }
          if (failed > 0) throw new CliError(`${failed} of ${rows.length} accounts failed to sync`, 1);
        }),
      );

    account
      .command("rotate-key")
      .description(
        "re-seal every stored password and token with a new key, in one transaction (then set BRIEFBOT_SECRET_KEY to it)",
      )
      .requiredOption("--new-key-file <file>", "a file holding the new key (32 bytes, base64 or hex)")
      .action((options: { newKeyFile: string }) =>
        withContext(context, async (ctx) => {
          const accounts = service(ctx);
          const next = createSecretCipher(readSecretFile(options.newKeyFile, "--new-key-file"));
          const count = await accounts.rotateKey(next);
          ctx.out.line(
            `re-sealed ${count} secrets with key ${next.keyId}; now set BRIEFBOT_SECRET_KEY (or its _FILE) to the new key and restart the bot`,
          );
        }),
      );
  };
}

export const registerAccountCommands: RegisterCommands = accountCommands();

async function addAccount(
  ctx: CliContext,
  service: AccountService,
  kind: AccountKind,
  url: string,
  username: string | null,
  secretFile: string | undefined,
  options: AddOptions,
): Promise<void> {
  const owner = await requireUser(ctx, options.user);
  let address: URL;
  try {
    address = new URL(url);
  } catch {
    throw new CliError(
      `"${redactAddress(url)}" is not an address (like https://cloud.example.com/remote.php/dav)`,
    );
  }
  if (!/^https?:$/.test(address.protocol)) throw new CliError("the address must be http(s)");
  const secret = readSecretFile(secretFile ?? "", kind === "caldav" ? "--password-file" : "--token-file");
  const choose = options.collections
    ?.split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  ctx.out.progress(`discovering collections at ${redactAddress(url)}…`);
  try {
    const { account } = await service.addAccount({
      userId: owner.id,
      kind,
      label: options.label ?? address.hostname,
      url: address.toString().replace(/\/$/, ""),
      username,
      secret,
      ...(choose && choose.length > 0 ? { choose } : {}),
    });
    ctx.out.line(`added account ${account.id} (${account.label}) for ${owner.name}`);
    for (const line of describe(account).slice(1)) ctx.out.line(line);
    ctx.out.line("its first sync runs with the next background sync, or now: briefbot account sync");
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Nothing was stored; the reason, without the secret (the providers never put it in a message).
    throw new CliError(`could not add the account: ${redactAddressesIn(errorMessage(error))}`);
  }
}

function readSecretFile(path: string, option: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`${option}: cannot read ${path}${code ? ` (${code})` : ""}`);
  }
  const secret = text.replace(/\r?\n$/, "");
  if (secret.trim() === "") throw new CliError(`${option}: ${path} is empty`);
  return secret;
}

async function requireUser(ctx: CliContext, name: string) {
  const user = await findUserByName(ctx.db, name);
  if (!user) throw new CliError(`no user named "${name}" (see: briefbot user list)`);
  return user;
}

function shown(account: Account) {
  return {
    ...account,
    url: redactAddress(account.url),
    lastError: account.lastError && redactAddressesIn(account.lastError),
  };
}

function describe(account: Account): string[] {
  const collections = account.collections.map(
    (collection) =>
      `${collection.enabled ? "[x]" : "[ ]"} ${collection.name} (${collection.holds.join(", ")})`,
  );
  return [
    `${account.id}  ${account.kind}  ${account.label}  ${redactAddress(account.url)}${account.username ? `  as ${account.username}` : ""}`,
    `    collections: ${collections.join("; ") || "none"}`,
    `    last sync: ${account.lastSyncAt ? `${account.lastSyncAt.toISOString().slice(0, 16).replace("T", " ")} UTC` : "never"}${account.lastError ? `; last error: ${redactAddressesIn(account.lastError)}` : ""}`,
  ];
}
