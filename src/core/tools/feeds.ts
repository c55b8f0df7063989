import { z } from "zod";
import { interestsFromProfile } from "../feeds/interests.ts";
import { defineTool } from "./define-tool.ts";
import { clip, compact, localStamp } from "./format.ts";
import { staleSourcesNote } from "./freshness.ts";

export const getRssItemsTool = defineTool({
  name: "get_rss_items",
  description:
    "Recent headlines from the user's feeds, newest first; without a topic, those matching the profile's " +
    "interests first. Mention only headlines in the result.",
  readOnly: true,
  // Every headline and summary is written by whoever runs the feed.
  untrusted: (result) =>
    typeof result === "object" && result !== null && Array.isArray((result as { items?: unknown }).items)
      ? (result as { items: unknown[] }).items.length > 0
      : false,
  input: z.object({
    max: z.coerce.number().int().min(1).max(30).default(8).describe("How many items, 1-30"),
    topic: z.string().trim().min(1).max(100).optional().describe("Only items about this topic"),
  }),
  async handler({ max, topic }, context) {
    const [items, freshness] = await Promise.all([
      context.sources.feedItems(context.user.id, {
        max,
        topic,
        // Without a topic, what the profile says the user cares about takes the slots first.
        interests: topic ? [] : interestsFromProfile(context.user.profile),
      }),
      staleSourcesNote(context, "feed"),
    ]);
    return {
      ...(topic ? { topic } : {}),
      count: items.length,
      items: items.map((item) =>
        compact({
          title: item.title,
          feed: item.feedTitle,
          published: item.publishedAt ? localStamp(item.publishedAt, context.user.timeZone) : null,
          summary: clip(item.summary, 100),
          interests: item.matchedInterests.length > 0 ? item.matchedInterests : null,
        }),
      ),
      ...(items.length === 0
        ? { note: topic ? `No recent items about "${topic}".` : "No recent feed items." }
        : {}),
      ...(freshness ? { freshness } : {}),
    };
  },
});
