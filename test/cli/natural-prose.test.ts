/**
 * A scripted model writes a briefing and a chat answer of natural prose — honest sentences and one lie of
 * every kind the gate stops (test/core/grounding/corpus/natural-day.ts) — through the CLI: no lie reaches the
 * output, every honest sentence does, and `receipts --json` / `runs --json` show each sentence's verdict.
 */
import { Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { registerBriefCommands } from "../../src/cli/commands/brief.ts";
import { createChatCommands } from "../../src/cli/commands/chat.ts";
import { registerReceiptsCommands } from "../../src/cli/commands/receipts.ts";
import { registerRunsCommands } from "../../src/cli/commands/runs.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { SentenceVerdict } from "../../src/core/domain.ts";
import { LONDON, MODEL, START, startModelServer } from "../core/fixture.ts";
import {
  HONEST_SENTENCES,
  LIES,
  naturalDraft,
  plain,
  seedNaturalDay,
} from "../core/grounding/corpus/natural-day.ts";
import { cliHarness } from "../helpers/cli.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type OllamaTestServer, refusedUrl } from "../servers/ollama-server.ts";

let server: OllamaTestServer;
let noWeatherService: string;
beforeAll(async () => {
  server = await startModelServer();
  noWeatherService = await refusedUrl();
});
afterAll(async () => {
  await server.close();
});

function expectOnlyHonest(text: string): void {
  for (const sentence of HONEST_SENTENCES) expect(plain(text)).toContain(plain(sentence));
  for (const [kind, lie] of Object.entries(LIES)) expect(plain(text), kind).not.toContain(plain(lie));
}

describeEachDatabase("the CLI delivers natural prose only as far as the receipts back it", (getDb) => {
  const cli = (lines: string[] = []) =>
    cliHarness(getDb, {
      env: { OLLAMA_HOST: server.url, BRIEFBOT_MODEL: MODEL, OPEN_METEO_URL: noWeatherService },
      clock: fixedClock(START),
      families: [
        registerBriefCommands,
        registerReceiptsCommands,
        registerRunsCommands,
        createChatCommands({ input: Readable.from(lines.map((line) => `${line}\n`)) }),
      ],
    });

  it("briefs, follows up, and shows every sentence's verdict in receipts --json and runs --json", async () => {
    const db = getDb();
    const user = await createTestUser(db, LONDON);
    await seedNaturalDay(db, user);
    const draft = naturalDraft();
    // The model writes the lies, and writes them again when asked to correct them.
    server.script(MODEL, [{ content: draft }, { content: draft }]);
    const brief = await cli()("brief", "--user", user.name, "--slot", "morning");
    expect(brief.code).toBe(0);
    expectOnlyHonest(brief.stdout);

    const receipts = JSON.parse((await cli()("receipts", "--user", user.name, "--json")).stdout) as {
      grounding: { action: string; sentences: SentenceVerdict[] };
    };
    expect(receipts.grounding.action).toBe("sentences_removed");
    const removed = receipts.grounding.sentences.filter((sentence) => !sentence.kept);
    expect(removed.map((sentence) => plain(sentence.text)).sort()).toEqual(
      Object.values(LIES).map(plain).sort(),
    );
    for (const sentence of removed) {
      expect(sentence.claims.some((claim) => !claim.backed && (claim.reason ?? "").length > 0)).toBe(true);
    }
    const kept = receipts.grounding.sentences.filter((sentence) => sentence.kept);
    expect(kept).toHaveLength(HONEST_SENTENCES.length);
    expect(kept.flatMap((sentence) => sentence.claims).every((claim) => claim.backed)).toBe(true);
    expect(
      kept.flatMap((sentence) => sentence.claims).some((claim) => claim.receipt?.tool === "list_events"),
    ).toBe(true);

    const runs = JSON.parse((await cli()("runs", "--user", user.name, "--json")).stdout) as Array<{
      grounding: { sentences: SentenceVerdict[] } | null;
    }>;
    expect(runs[0]?.grounding?.sentences).toEqual(receipts.grounding.sentences);

    server.script(MODEL, [{ content: draft }, { content: draft }]);
    const chat = await cli(["what's on today?", "/exit"])("chat", "--user", user.name);
    expect(chat.code).toBe(0);
    const answer = chat.stdout.split("\n").find((line) => line.startsWith("assistant> ")) ?? "";
    expectOnlyHonest(answer);
  });
});
