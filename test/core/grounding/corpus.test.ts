import { describe, expect, it } from "vitest";
import { groundAnswer } from "../../../src/core/grounding/gate.ts";
import { gateOptions } from "../../../src/core/grounding/options.ts";
import { BUSY, USER } from "./corpus/days.ts";
import { HELD_OUT } from "./corpus/held-out.ts";
import { scoreCorpus } from "./corpus/score.ts";
import { CORPUS } from "./corpus/sentences.ts";
import { TUNING_2 } from "./corpus/tuning-2.ts";
import { UNTOUCHED } from "./corpus/untouched.ts";

describe("the natural-prose corpus", () => {
  it("holds at least 150 sentences over six planted days, honest and lies of every kind", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CORPUS.map((entry) => entry.day)).size).toBe(6);
    const lieKinds = new Set(CORPUS.filter((entry) => !entry.honest).map((entry) => entry.kind));
    expect([...lieKinds].sort()).toEqual(
      ["count", "coverage", "day", "happening", "name", "quantity", "state", "time", "weather"].sort(),
    );
  });

  it("has an untouched check set of at least 80 sentences, honest and lies of every kind, only ever measured", () => {
    expect(UNTOUCHED.length).toBeGreaterThanOrEqual(80);
    const kinds = (honest: boolean) =>
      [...new Set(UNTOUCHED.filter((entry) => entry.honest === honest).map((entry) => entry.kind))].sort();
    const all = ["count", "coverage", "day", "happening", "name", "quantity", "state", "time", "weather"];
    expect(kinds(false)).toEqual(all);
    expect(kinds(true)).toEqual(all);
    // Written in other words: no sentence of it is in the tuning or held-out corpus.
    const seen = new Set([...CORPUS, ...HELD_OUT].map((entry) => entry.text.toLowerCase()));
    expect(UNTOUCHED.filter((entry) => seen.has(entry.text.toLowerCase()))).toEqual([]);
  });

  for (const path of ["briefing", "chat"] as const) {
    it(`stops at least 99 % of lies and keeps at least 97 % of honest sentences on the ${path} path (tuning, tuning-2 and held-out)`, async () => {
      const score = await scoreCorpus([...CORPUS, ...TUNING_2, ...HELD_OUT], path);
      const wrong = score.results.filter((result) => !result.right).map((result) => result.entry.text);
      expect(score.liesStopped / score.lies, wrong.join("\n")).toBeGreaterThanOrEqual(0.99);
      expect(score.honestKept / score.honest, wrong.join("\n")).toBeGreaterThanOrEqual(0.97);
    }, 180_000); // Over 600 sentences through the real gate: generous on a shared, loaded machine.
  }
});

describe("per-sentence verdicts", () => {
  it("name the receipt behind each backed claim and say why a removed sentence went", async () => {
    const draft = "The design review runs from 11 to noon. The design review is tomorrow morning.";
    const gate = await groundAnswer({
      draft,
      receipts: BUSY.receipts,
      options: gateOptions(USER, new Date("2026-12-01T07:00:00Z"), BUSY.localDate),
      rewrite: async () => ({ text: undefined, receipts: [] }),
    });
    expect(gate.kind).toBe("backed");
    if (gate.kind !== "backed") return;
    expect(gate.text).toBe("The design review runs from 11 to noon.");
    const [kept, removed] = gate.verdict.sentences ?? [];
    expect(kept?.kept).toBe(true);
    const events = BUSY.receipts.find((receipt) => receipt.toolName === "list_events");
    expect(kept?.claims.filter((claim) => claim.kind === "time")).toEqual([
      { kind: "time", text: "11", backed: true, receipt: { id: events?.id, tool: "list_events" } },
      { kind: "time", text: "noon", backed: true, receipt: { id: events?.id, tool: "list_events" } },
    ]);
    expect(removed?.kept).toBe(false);
    expect(removed?.claims.find((claim) => !claim.backed)).toMatchObject({
      kind: "day",
      backed: false,
      reason: '"Design review" is today at 11:00, not tomorrow morning',
    });
  });
});
