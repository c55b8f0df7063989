import {
  addFeed,
  FeedExistsError,
  InvalidFeedUrlError,
  listFeeds,
  normaliseFeedUrl,
  removeFeed,
} from "../../../db/queries/feeds.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import type { Feed } from "../../../db/schema/index.ts";
import { redactAddress, redactAddressesIn } from "../../core/redact.ts";
import { type FeedSyncResult, syncAllFeeds, syncFeed } from "../../sources/feeds/sync-feed.ts";
import { type CliContext, CliError, type RegisterCommands, withContext } from "../context.ts";
import { collect, parsePositiveInt } from "../parse.ts";
import { plural } from "../plural.ts";
import { probeFeed } from "../source-probe.ts";

interface FeedOptions {
  user?: string;
  topic?: string[];
  json?: boolean;
  showSecrets?: boolean;
}

const SHOW_SECRETS = "show feed addresses in full (they may carry access tokens)";

export const registerFeedCommands: RegisterCommands = (program, context) => {
  const feed = program.command("feed").description("RSS, Atom, RDF and JSON Feed subscriptions");

  feed
    .command("add <url>")
    .description("subscribe a user to a feed (fetched and parsed first: one that fails is not added)")
    .requiredOption("--user <name>", "whose feed")
    .option("--topic <topic>", "a topic for get_rss_items(topic) (repeatable)", collect, [])
    .option("--show-secrets", SHOW_SECRETS)
    .action((url: string, options: FeedOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx, options.user ?? "");
        let address: string;
        try {
          address = normaliseFeedUrl(url);
        } catch (error) {
          if (error instanceof InvalidFeedUrlError) throw new CliError(error.message);
          throw error;
        }
        const show = shower(options);
        const existing = (await listFeeds(ctx.db, { userId: owner.id })).find((row) => row.url === address);
        if (existing) throw new CliError(`already subscribed to ${show(existing.url)} (feed ${existing.id})`);
        const { title } = await probeFeed(address, {
          fetch: ctx.fetch,
          now: ctx.clock.now(),
          network: ctx.config.sources,
          showSecrets: options.showSecrets ?? false,
        });
        let added: Feed;
        try {
          added = await addFeed(ctx.db, { userId: owner.id, url: address, topics: options.topic ?? [] });
        } catch (error) {
          if (error instanceof FeedExistsError)
            throw new CliError(`already subscribed to ${show(error.feed.url)} (feed ${error.feed.id})`);
          throw error;
        }
        const result = await syncFeed(ctx.db, added.id, {
          fetch: ctx.fetch,
          clock: ctx.clock,
          network: ctx.config.sources,
        });
        const name = `${title ? `"${title}" ` : ""}(${show(added.url)})`;
        if (result.status === "error") {
          // It parsed a moment ago; the second fetch failed. Kept: the background sync retries it.
          ctx.out.line(
            `added feed ${added.id} ${name}, but storing its items failed: ${showText(options, result.error)}`,
          );
          ctx.out.line("it will be retried on the next sync (briefbot feed sync)");
          return;
        }
        ctx.out.line(`added feed ${added.id} ${name}: ${plural(result.itemCount, "item")}`);
      }),
    );

  feed
    .command("list")
    .description("list feeds with last sync time, item count and last error")
    .option("--user <name>", "only this user's feeds")
    .option("--json", "machine-readable output")
    .option("--show-secrets", SHOW_SECRETS)
    .action((options: FeedOptions) =>
      withContext(context, async (ctx) => {
        const owner = options.user === undefined ? undefined : await requireUser(ctx, options.user);
        const rows = await listFeeds(ctx.db, owner ? { userId: owner.id } : {});
        const show = shower(options);
        if (options.json) {
          return ctx.out.json(
            rows.map((row) => ({
              ...row,
              url: show(row.url),
              lastError: row.lastError === null ? null : showText(options, row.lastError),
            })),
          );
        }
        if (rows.length === 0) return ctx.out.line("no feeds");
        for (const row of rows) {
          const synced = row.lastSyncAt ? `synced ${formatInstant(row.lastSyncAt)}` : "never synced";
          const topics = row.topics.length > 0 ? `  [${row.topics.join(", ")}]` : "";
          const error = row.lastError ? `  error: ${showText(options, row.lastError)}` : "";
          const name = row.title ? `${row.title} (${show(row.url)})` : show(row.url);
          ctx.out.line(
            `${String(row.id).padStart(4)}  ${row.userName}  ${name}  ${plural(row.itemCount, "item")}  ${synced}${topics}${error}`,
          );
        }
      }),
    );

  feed
    .command("sync")
    .description("fetch every feed now (or one user's)")
    .option("--user <name>", "only this user's feeds")
    .option("--show-secrets", SHOW_SECRETS)
    .action((options: FeedOptions) =>
      withContext(context, async (ctx) => {
        // An unknown --user is a NotFoundError: the CLI's exit-code table turns it into exit 2.
        const results = await syncAllFeeds(ctx.db, {
          fetch: ctx.fetch,
          clock: ctx.clock,
          network: ctx.config.sources,
          userName: options.user,
          onProgress: (result, done, total) =>
            ctx.out.progress(`[${done}/${total}] ${describeResult(result, options)}`),
        });
        if (results.length === 0) return ctx.out.line("no feeds to sync");
        const failed = results.filter((result) => result.status === "error").length;
        ctx.out.line(
          `synced ${plural(results.length, "feed")}: ${results.length - failed} ok, ${failed} failed`,
        );
      }),
    );

  feed
    .command("remove <id>")
    .description("unsubscribe a user from a feed (its stored items go with it)")
    .requiredOption("--user <name>", "whose feed")
    .action((id: string, options: FeedOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx, options.user ?? "");
        const feedId = parsePositiveInt("feed id", id);
        if (!(await removeFeed(ctx.db, owner.id, feedId)))
          throw new CliError(`${owner.name} has no feed ${feedId}`);
        ctx.out.line(`removed feed ${feedId}`);
      }),
    );
};

async function requireUser(ctx: CliContext, name: string) {
  const user = await findUserByName(ctx.db, name);
  if (!user) throw new CliError(`no user named "${name}" (see: briefbot user list)`);
  return user;
}

function shower(options: FeedOptions): (address: string) => string {
  return options.showSecrets ? (address) => address : redactAddress;
}

function showText(options: FeedOptions, text: string): string {
  return options.showSecrets ? text : redactAddressesIn(text);
}

function describeResult(result: FeedSyncResult, options: FeedOptions): string {
  const url = shower(options)(result.url);
  switch (result.status) {
    case "ok":
      return `${url}: ${plural(result.itemCount, "item")} (${result.newItems} new)`;
    case "not-modified":
      return `${url}: not modified`;
    case "error":
      return `${url}: failed: ${showText(options, result.error)}`;
  }
}

function formatInstant(instant: Date): string {
  return `${instant.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
