/**
 * Replicas: the morning rush of test/replicas/rush.ts — real `briefbot start` processes (dist/) on one
 * PostgreSQL database, Telegram webhook and Slack HTTP behind one round-robin address, 100 users due at
 * the minute the replicas come up, scripted 429s on both platforms — with 1 replica, with 3, and with 3 and
 * one of them killed with SIGKILL mid-rush and started again. Then what the send lease costs on one token
 * (bench/send-lease.ts: sends/s without and with it, at 0, 50 and 100 ms more round trip). Then the orphan figure on the embedded
 * database (bench/orphans.ts): the only process killed over and over while slots fall due.
 *
 * SIMULATED: the model is the Ollama test server (15 ms to the first token, 1 ms a token, 4 at a time);
 * the platforms are the Telegram and Slack test servers, keeping Telegram's limits (30/s, 1/s per chat).
 */
import { loadavg } from "node:os";
import { ensureBuilt } from "../bin/build.js";
import { type RushResult, runRush } from "../test/replicas/rush.ts";
import { runOrphanBench } from "./orphans.ts";
import { runSendLeaseBench } from "./send-lease.ts";
import type { BenchSection } from "./types.ts";

const USERS = 100;

export async function runReplicasBench(): Promise<BenchSection> {
  await ensureBuilt();
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" / ");
  const lines = [
    `${USERS} users (half Telegram, half Slack) due at once; simulated model 15 ms + 1 ms/token, 4 in parallel; ` +
      "scripted 429s: Telegram global (retry_after 2) and per chat (3), Slack chat.postMessage (2)",
    `machine load average ${load} (1/5/15 min) at the start, on a shared 2-core machine`,
  ];
  for (const layout of [
    { replicas: 1, killOne: false },
    { replicas: 3, killOne: false },
    { replicas: 3, killOne: true },
  ]) {
    const result = await runRush({ ...layout, users: USERS, inbound: 4 });
    lines.push(...describe(layout, result));
  }
  lines.push(...(await runSendLeaseBench()));
  lines.push(...(await runOrphanBench()));
  return {
    title: "replicas: one PostgreSQL, 1 vs 3 `briefbot start`, a kill -9 mid-rush; orphans on PGlite",
    lines,
  };
}

function describe(layout: { replicas: number; killOne: boolean }, result: RushResult): string[] {
  const counts = [...result.postsPerUser.values()];
  const delivered = counts.filter((count) => count >= 1).length;
  const duplicates = counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0);
  const seconds = (ms: number | undefined) => (ms === undefined ? "-" : `${(ms / 1000).toFixed(1)} s`);
  const states = Object.entries(result.deliveryStates)
    .map(([state, count]) => `${state} ${count}`)
    .join(", ");
  return [
    `— ${layout.replicas} replica${layout.replicas > 1 ? "s" : ""}${layout.killOne ? ", one killed with SIGKILL and restarted" : ""}:`,
    `  delivered ${delivered}/${result.users.length}, duplicates ${duplicates} (must be 0); delivery rows: ${states}`,
    `  all delivered ${seconds(result.readyToLastPostMs)} after every replica was up (${seconds(result.spawnToLastPostMs)} after spawn)` +
      (layout.killOne
        ? `; killed after ${result.killedAfterPosts} posts (${result.killDeferrals} moments passed over: mid-send), ` +
          `the rest ${seconds(result.restartToAllDeliveredMs)} after the restart`
        : ""),
    `  Telegram: ${result.telegram.sends} sends, max ${result.telegram.maxPerSecond} in any second vs ${result.telegram.configuredPerSecond}/s configured ` +
      `(Telegram allows 30), max ${result.telegram.maxPerChatPerSecond}/s per chat; 429s ${result.telegram.tooMany} ` +
      `(${result.telegram.scripted429s} scripted), sends inside a retry_after ${result.telegram.beforeRetryAfter}`,
    `  Slack: ${result.slack.sends} chat.postMessage, max ${result.slack.maxPerSecond} in any second vs ${result.slack.configuredPerSecond}/s configured, ` +
      `max ${result.slack.maxPerChatPerSecond}/s per channel; 429s ${result.slack.tooMany} (${result.slack.scripted429s} scripted), ` +
      `sends inside a Retry-After ${result.slack.beforeRetryAfter}`,
    `  briefings sent per replica process: ${[...result.sendersByOwner.values()].join(", ")}; inbound requests per port through the proxy: ${result.proxy.servedBy.join(", ")}`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await runReplicasBench();
  console.log(`## ${section.title}`);
  for (const line of section.lines) console.log(`  ${line}`);
}
