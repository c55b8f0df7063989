/**
 * Three real `briefbot start` processes on one PostgreSQL database, behind one address (a round-robin
 * proxy in front of their webhook/HTTP ports), 100 users due at the minute they come up, and one replica
 * killed with SIGKILL mid-rush and started again. What the platforms received is the verdict: every
 * briefing posted exactly once, no send inside a `retry_after` the platform gave, and no more sends per
 * second on the token than the flood gate's configured pace allows, across the replicas together.
 */
import { describe, expect, it } from "vitest";
import { runRush } from "./rush.ts";

describe("three replicas on one PostgreSQL database", () => {
  it("deliver each of 100 briefings once through a kill -9, honouring retry_after and the pace per token", {
    timeout: 240_000,
  }, async () => {
    const result = await runRush({ replicas: 3, users: 100, killOne: true, inbound: 6 });
    // The run's figures, for the record (a failure's message carries the 429s themselves).
    const platform = (figures: typeof result.telegram) =>
      `${figures.sends} sends, ${figures.tooMany} 429s (${figures.scripted429s} scripted), ` +
      `${figures.beforeRetryAfter} inside a retry_after, max ${figures.maxPerSecond}/s`;
    console.log(
      `rush: telegram ${platform(result.telegram)}; slack ${platform(result.slack)}; ` +
        `last post ${(result.readyToLastPostMs / 1000).toFixed(1)} s after ready`,
    );

    // Exactly once, counted at the platforms: one post per (user, slot, date), every user.
    expect(result.users).toHaveLength(100);
    const counts = [...result.postsPerUser.values()];
    expect(counts.filter((count) => count !== 1)).toEqual([]);
    expect(new Set(result.runs.map((run) => run.key)).size).toBe(result.runs.length);
    expect(result.runs).toHaveLength(100);
    expect(result.runs.filter((run) => run.state !== "delivered")).toEqual([]);
    expect(result.deliveryStates).toEqual({ sent: 100 });
    // The kill happened mid-rush: some briefings were out before it, and some only after the restart.
    expect(result.killedAfterPosts).toBeGreaterThan(0);
    expect(result.killedAfterPosts).toBeLessThan(100);

    // The scripted 429s were given, and nothing was sent into a scope they closed, by any replica.
    expect(result.telegram.tooMany).toBeGreaterThanOrEqual(result.telegram.scripted429s);
    expect(result.slack.tooMany).toBeGreaterThanOrEqual(result.slack.scripted429s);
    expect(result.telegram.beforeRetryAfter, result.telegram.limited.join("\n")).toBe(0);
    expect(result.slack.beforeRetryAfter, result.slack.limited.join("\n")).toBe(0);

    // The pace is one budget per token across the replicas: evenly spaced sends put at most the configured
    // rate in a second, plus the one a request delayed on its way can bring in from the next.
    expect(result.telegram.maxPerFiveSeconds).toBeLessThanOrEqual(
      5 * result.telegram.configuredPerSecond + 1,
    );
    expect(result.slack.maxPerFiveSeconds).toBeLessThanOrEqual(5 * result.slack.configuredPerSecond + 1);
    expect(result.telegram.maxPerChatPerSecond).toBeLessThanOrEqual(1);
    expect(result.slack.maxPerChatPerSecond).toBeLessThanOrEqual(1);

    // One address: the platforms' inbound requests reached the replicas through the proxy, each answered.
    expect(result.inbound).toEqual({ telegramAnswered: 6, telegramSent: 6, slackAcked: 6, slackSent: 6 });
    expect(result.proxy.unserved).toBe(0);
    expect(result.proxy.servedBy.filter((served) => served > 0).length).toBeGreaterThanOrEqual(2);
    // More than one replica sent briefings: the claim keys, not a single busy process, kept them apart.
    expect([...result.sendersByOwner.keys()].filter((owner) => owner !== "none").length).toBeGreaterThan(1);
  });
});
