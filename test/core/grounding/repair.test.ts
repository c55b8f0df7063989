import { describe, expect, it } from "vitest";
import {
  checkGrounding,
  describeUnbacked,
  type GroundingReport,
  removeUnbackedSentences,
} from "../../../src/core/grounding/index.ts";
import { designMorning, LONDON } from "./receipts.ts";

describe("removeUnbackedSentences", () => {
  it("keeps paragraphs and bullets, dropping only the unbacked sentences and emptied bullets", () => {
    const prose =
      "Morning! Renew passport is overdue. A quick meeting at 10:30 AM.\n\n" +
      "- Fix briefing hallucinations is due today.\n- Team huddle at 14:30.\n\n" +
      "The Q2 budget draft is due. That's all.";
    const report = checkGrounding(prose, designMorning(), LONDON);

    expect(report.unbacked.map((claim) => claim.text)).toEqual(["10:30 AM", "14:30", "Q2 budget draft"]);
    expect(removeUnbackedSentences(prose, report)).toBe(
      "Morning! Renew passport is overdue.\n\n- Fix briefing hallucinations is due today.\n\nThat's all.",
    );
  });

  it("returns an empty string when every sentence was unbacked", () => {
    const prose = "A quick meeting at 10:30 AM. The Q2 budget draft is due.";
    expect(removeUnbackedSentences(prose, checkGrounding(prose, designMorning(), LONDON))).toBe("");
  });

  it("returns the prose unchanged when nothing is unbacked", () => {
    const prose = "Renew passport is overdue.  Two  spaces stay.";
    expect(removeUnbackedSentences(prose, { claims: [], unbacked: [] })).toBe(prose);
  });
});

describe("describeUnbacked", () => {
  it("names each unbacked claim once, with why it has no receipt", () => {
    const report: GroundingReport = {
      claims: [],
      unbacked: [
        { kind: "time", text: "10:30 AM", sentenceIndex: 0, normalized: "10:30" },
        { kind: "time", text: "10:30 AM", sentenceIndex: 3, normalized: "10:30" },
        { kind: "date", text: "Friday", sentenceIndex: 1, normalized: "2026-12-04" },
        { kind: "temperature", text: "20°C", sentenceIndex: 2, normalized: "20" },
        { kind: "number", text: "three overdue tasks", sentenceIndex: 2, normalized: "3" },
        { kind: "item", text: "Q2 budget draft", sentenceIndex: 1, normalized: "q2 budget draft" },
      ],
    };
    expect(describeUnbacked(report)).toBe(
      "These claims have no receipt from this run: " +
        '"10:30 AM" (no event or task at 10:30); ' +
        '"Friday" (no event, task or item on 2026-12-04); ' +
        '"20°C" (no weather reading of 20); ' +
        '"three overdue tasks" (no list or value of 3); ' +
        '"Q2 budget draft" (no task, event, project or headline by that name). ' +
        "Rewrite the briefing without them; say plainly when something is empty.",
    );
  });

  it("is empty when everything is backed", () => {
    expect(describeUnbacked({ claims: [], unbacked: [] })).toBe("");
  });
});
