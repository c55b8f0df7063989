/**
 * `npm run soak`: the long form of the soak suite — every mode at once, at least five minutes each, a
 * one-minute outage — and a table of its figures. SOAK_MINUTES, SOAK_OUTAGE_SECONDS and SOAK_MODES
 * (comma-separated) change it; SOAK_POSTGRES_URL runs on a fresh database of that PostgreSQL server
 * instead of the embedded one; SOAK_KEEP_LOGS=<folder> keeps each process's output there.
 */
import { runSoak, SOAK_MODES, type SoakMode, type SoakResult } from "./soak.ts";

const minutes = Number(process.env.SOAK_MINUTES ?? 5.5);
const outageSeconds = Number(process.env.SOAK_OUTAGE_SECONDS ?? 60);
const modes = (process.env.SOAK_MODES?.split(",") ?? [...SOAK_MODES]).map((mode) => {
  if (!(SOAK_MODES as readonly string[]).includes(mode))
    throw new Error(`SOAK_MODES: unknown mode "${mode}"`);
  return mode as SoakMode;
});

const settled = await Promise.allSettled(
  modes.map((mode) =>
    runSoak({
      mode,
      durationMs: minutes * 60_000,
      outageMs: outageSeconds * 1000,
      postgresUrl: process.env.SOAK_POSTGRES_URL,
      log: (line) => console.log(line),
    }),
  ),
);

const results: SoakResult[] = [];
for (const [index, outcome] of settled.entries()) {
  if (outcome.status === "fulfilled") results.push(outcome.value);
  else console.error(`${modes[index]} failed: ${String(outcome.reason)}`);
}

const rows: Array<[string, (result: SoakResult) => string]> = [
  ["database", (r) => r.database],
  ["minutes run", (r) => r.minutesRun.toFixed(1)],
  ["slots due", (r) => String(r.slotsDue)],
  ["slots delivered", (r) => String(r.slotsDelivered)],
  ["duplicates", (r) => String(r.duplicates)],
  ["restarts (graceful + kill -9)", (r) => `${r.restarts.graceful} + ${r.restarts.killed}`],
  ["samples", (r) => String(r.samples)],
  ["200 outside outage/restarts", (r) => `${(r.share200 * 100).toFixed(1)} % of ${r.healthySamples}`],
  ["outage", (r) => `${(r.outage.ms / 1000).toFixed(0)} s`],
  [
    "503 seen / recovered",
    (r) => `${r.outage.seen503 ? "yes" : "NO"} / ${r.outage.recovered ? "yes" : "NO"}`,
  ],
  [
    "back to 200 after outage",
    (r) =>
      r.outage.recoveredAfterMs === undefined ? "—" : `${(r.outage.recoveredAfterMs / 1000).toFixed(1)} s`,
  ],
  ["error lines outside outage", (r) => String(r.errorLines.length)],
  ["error lines in outage", (r) => String(r.errorLinesDuringOutage)],
  ["overlapping polls", (r) => String(r.overlappingPolls)],
  ["slowest /healthz answer", (r) => `${(r.slowestHealthMs / 1000).toFixed(1)} s`],
  ["… outside start-ups ", (r) => `${(r.slowestHealthRunningMs / 1000).toFixed(1)} s`],
  ["kill -9 waited for work in flight", (r) => `${r.killDeferrals} checks`],
  ["peak RSS", (r) => `${r.peakRssMb.toFixed(0)} MB`],
  ["worst event-loop delay", (r) => `${(r.worstLoopDelaySeconds * 1000).toFixed(0)} ms`],
  ["… outside start-ups", (r) => `${(r.worstLoopDelayRunningSeconds * 1000).toFixed(0)} ms`],
  [
    "accounts: briefings correct",
    (r) => (r.accounts ? `${r.accounts.briefings.correct}/${r.accounts.briefings.total}` : "—"),
  ],
  [
    "accounts: write-throughs",
    (r) => (r.accounts ? `${r.accounts.writeThroughs.onServer}/${r.accounts.writeThroughs.asked}` : "—"),
  ],
  ...(["caldav", "todoist"] as const).flatMap(
    (kind): Array<[string, (result: SoakResult) => string]> => [
      [
        `${kind}: syncs (quiet)`,
        (r) => (r.accounts ? `${r.accounts[kind].syncs} (${r.accounts[kind].quietSyncs})` : "—"),
      ],
      [
        `${kind}: requests per quiet sync`,
        (r) =>
          r.accounts
            ? `${r.accounts[kind].requestsPerQuietSync.join(", ") || "—"} (${r.accounts[kind].collections} collection${r.accounts[kind].collections === 1 ? "" : "s"})`
            : "—",
      ],
      [
        `${kind}: objects fetched (quiet)`,
        (r) =>
          r.accounts ? `${r.accounts[kind].objectsFetched} (${r.accounts[kind].objectsInQuietSyncs})` : "—",
      ],
    ],
  ),
  ["accounts: secrets seen", (r) => (r.accounts ? String(r.accounts.secretsSeen.length) : "—")],
];
const header = ["", ...results.map((result) => result.mode)];
const table = [header, ...rows.map(([name, cell]) => [name, ...results.map(cell)])];
const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? "").length)));
console.log("");
for (const row of table)
  console.log(`| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`);

for (const result of results) {
  for (const line of result.timeline) console.log(`${result.mode} ${line}`);
  for (const line of result.errorLines) console.log(`${result.mode} error line: ${line}`);
  for (const line of result.missing) console.log(`${result.mode} missing: ${line}`);
  for (const line of result.unhealthy) console.log(`${result.mode} unhealthy sample: ${line}`);
  for (const line of result.accounts?.briefings.wrong ?? [])
    console.log(`${result.mode} wrong briefing: ${line}`);
  for (const line of result.accounts?.writeThroughs.failures ?? [])
    console.log(`${result.mode} write-through: ${line}`);
  for (const line of result.accounts?.secretsSeen ?? []) console.log(`${result.mode} SECRET SEEN: ${line}`);
}
const failed =
  settled.some((outcome) => outcome.status === "rejected") ||
  results.some(
    (r) =>
      r.missing.length > 0 ||
      r.duplicates > 0 ||
      r.errorLines.length > 0 ||
      r.overlappingPolls > 0 ||
      r.share200 < 1 ||
      !r.outage.seen503 ||
      !r.outage.recovered ||
      (r.accounts !== undefined && accountsFailed(r.accounts)),
  );
process.exitCode = failed ? 1 : 0;

function accountsFailed(accounts: NonNullable<SoakResult["accounts"]>): boolean {
  const syncs = [accounts.caldav, accounts.todoist];
  return (
    accounts.briefings.correct !== accounts.briefings.total ||
    accounts.writeThroughs.onServer !== accounts.writeThroughs.asked ||
    accounts.secretsSeen.length > 0 ||
    syncs.some(
      (sync) =>
        sync.objectsInQuietSyncs > 0 ||
        sync.requestsPerQuietSync.some((requests) => requests !== sync.collections),
    )
  );
}
