import { addFeed, FeedExistsError, InvalidFeedUrlError, listFeeds } from "../../../db/queries/feeds.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import type { Feed } from "../../../db/schema/index.ts";
import {
  type FeedSyncResult,
  syncAllFeeds,
  syncFeed,
  UnknownUserError,
} from "../../sources/feeds/sync-feed.ts";
import { type CliContext, CliError, type RegisterCommands, withContext } from "../context.ts";
import { collect } from "../parse.ts";

interface FeedOptions {
  user?: string;
  topic?: string[];
  json?: boolean;
}

export const registerFeedCommands: RegisterCommands = (program, context) => {
  const feed = program.command("feed").description("RSS, Atom, RDF and JSON Feed subscriptions");

  feed
    .command("add <url>")
    .description("subscribe a user to a feed and fetch it once")
    .requiredOption("--user <name>", "whose feed")
    .option("--topic <topic>", "a topic for get_rss_items(topic) (repeatable)", collect, [])
    .action((url: string, options: FeedOptions) =>
      withContext(context, async (ctx) => {
        const owner = await requireUser(ctx, options.user ?? "");
        let added: Feed;
        try {
          added = await addFeed(ctx.db, { userId: owner.id, url, topics: options.topic ?? [] });
        } catch (error) {
          if (error instanceof InvalidFeedUrlError || error instanceof FeedExistsError)
            throw new CliError(error.message);
          throw error;
        }
        const result = await syncFeed(ctx.db, added.id, {
          fetch: ctx.fetch,
          clock: ctx.clock,
          network: ctx.config.sources,
        });
        if (result.status === "error") {
          ctx.out.line(`added feed ${added.id} (${added.url}), but the first sync failed: ${result.error}`);
          ctx.out.line("it will be retried on the next sync (briefbot feed sync)");
          return;
        }
        ctx.out.line(`added feed ${added.id} (${added.url}): ${plural(result.itemCount, "item")}`);
      }),
    );

  feed
    .command("list")
    .description("list feeds with last sync time, item count and last error")
    .option("--user <name>", "only this user's feeds")
    .option("--json", "machine-readable output")
    .action((options: FeedOptions) =>
      withContext(context, async (ctx) => {
        const owner = options.user === undefined ? undefined : await requireUser(ctx, options.user);
        const rows = await listFeeds(ctx.db, owner ? { userId: owner.id } : {});
        if (options.json) return ctx.out.json(rows);
        if (rows.length === 0) return ctx.out.line("no feeds");
        for (const row of rows) {
          const synced = row.lastSyncAt ? `synced ${formatInstant(row.lastSyncAt)}` : "never synced";
          const topics = row.topics.length > 0 ? `  [${row.topics.join(", ")}]` : "";
          const error = row.lastError ? `  error: ${row.lastError}` : "";
          ctx.out.line(
            `${String(row.id).padStart(4)}  ${row.userName}  ${row.title || row.url}  ${plural(row.itemCount, "item")}  ${synced}${topics}${error}`,
          );
        }
      }),
    );

  feed
    .command("sync")
    .description("fetch every feed now (or one user's)")
    .option("--user <name>", "only this user's feeds")
    .action((options: FeedOptions) =>
      withContext(context, async (ctx) => {
        let results: FeedSyncResult[];
        try {
          results = await syncAllFeeds(ctx.db, {
            fetch: ctx.fetch,
            clock: ctx.clock,
            network: ctx.config.sources,
            userName: options.user,
            onProgress: (result, done, total) =>
              ctx.out.progress(`[${done}/${total}] ${describeResult(result)}`),
          });
        } catch (error) {
          if (error instanceof UnknownUserError) throw new CliError(error.message);
          throw error;
        }
        if (results.length === 0) return ctx.out.line("no feeds to sync");
        const failed = results.filter((result) => result.status === "error").length;
        ctx.out.line(
          `synced ${plural(results.length, "feed")}: ${results.length - failed} ok, ${failed} failed`,
        );
      }),
    );
};

async function requireUser(ctx: CliContext, name: string) {
  const user = await findUserByName(ctx.db, name);
  if (!user) throw new CliError(`no user named "${name}" (see: briefbot user list)`);
  return user;
}

function describeResult(result: FeedSyncResult): string {
  switch (result.status) {
    case "ok":
      return `${result.url}: ${plural(result.itemCount, "item")} (${result.newItems} new)`;
    case "not-modified":
      return `${result.url}: not modified`;
    case "error":
      return `${result.url}: failed: ${result.error}`;
  }
}

function formatInstant(instant: Date): string {
  return `${instant.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
